/**
 * Step 2 of a schemaless write (schemaless.ts), under the database's schema lock: the schema
 * changes pass 1 collected (database, super tables, columns, widths, child tables), re-checked
 * against the catalog as it is now. SchemaChanged says another request or SQL DDL changed it in
 * a way that needs pass 1 again; a TdError of one super table or child rejects only its lines.
 */
import type { Catalog } from '../../sql/catalog/types.js'
import { TdError, dbNotExist } from '../../td-error.js'
import type { ColumnDef } from '../../storage/td-types.js'
import { TAG_NULL_NAME } from '../naming.js'
import { TS_COLUMN, type ColState, type RequestState, type StableAcc } from './request-state.js'

/** The catalog moved under pass 1: judge the lines again. */
export class SchemaChanged extends Error {}

/** Most super tables and tables (child and normal) a schemaless write may bring a database to; 0: no limit. */
export interface TableLimits {
  maxStables: number
  maxTables: number
}

/** the flags the limits come from, named in the rejections */
const MAX_STABLES_FLAG = 'schemaless.maxStablesPerDatabase'
const MAX_TABLES_FLAG = 'schemaless.maxTablesPerDatabase'

/** Applies the schema changes pass 1 collected; throws SchemaChanged when pass 1 must run again. */
export async function applySchema(
  catalog: Catalog,
  autoCreateDb: boolean,
  state: RequestState,
  ttl: number,
  user: string,
  limits: TableLimits = { maxStables: 0, maxTables: 0 },
): Promise<void> {
  const db = state.db
  if (catalog.getDatabase(db) === undefined) {
    if (state.dbInfo !== undefined) {
      throw new SchemaChanged()
    }
    if (!autoCreateDb) {
      throw dbNotExist(db)
    }
    await catalog.createDatabase(db, { precision: 'ns' }, true, user)
    if (catalog.getDatabase(db)?.precision !== 'ns') {
      // another request created it with another precision: convert against that one
      throw new SchemaChanged()
    }
  } else if (state.dbInfo === undefined) {
    throw new SchemaChanged()
  }
  // super tables first, then every new child of the request in ONE catalog transaction: a
  // request of 100 new measurements made 100 more commits (one per child), each a WAL flush
  const ready: StableAcc[] = []
  let pendingChildren = 0
  for (const st of state.stables.values()) {
    if (!st.dirty || st.error !== undefined || st.children.length === 0) {
      continue
    }
    if (limits.maxTables > 0 && !withinTableLimit(catalog, db, st, state, limits.maxTables, pendingChildren)) {
      continue
    }
    if (limits.maxStables > 0 && catalog.getStable(db, st.name) === undefined && catalog.tableCounts(db).stables >= limits.maxStables) {
      state.rejectStable(st, `super table "${st.name}": database "${db}" holds ${limits.maxStables} super tables, the limit --${MAX_STABLES_FLAG}`)
      continue
    }
    try {
      await ensureStable(catalog, db, st)
    } catch (err) {
      if (err instanceof TdError) {
        state.rejectStable(st, `super table "${st.name}": ${err.message}`)
        continue
      }
      throw err
    }
    ready.push(st)
    pendingChildren += missingChildren(st).length
  }
  const missing = ready.flatMap((st) => missingChildren(st).map((child) => ({ st, child })))
  if (missing.length > 1 && catalog.createChildTables !== undefined) {
    // all or none; on a TdError the loop below retries one by one to reject only the offending children
    try {
      const infos = await catalog.createChildTables(
        db,
        missing.map(({ st, child }) => ({ name: child.name, stable: st.name, tags: child.tags ?? {}, ttl: ttl > 0 ? ttl : 0 })),
        true,
      )
      infos.forEach((info, i) => {
        const { st, child } = missing[i]
        if (info.stable !== st.name || info.kind !== 'child') {
          state.rejectChild(st, child, `table "${child.name}" exists and is not a child table of super table "${st.name}"`)
          return
        }
        child.tid = info.tid
      })
    } catch (err) {
      if (!(err instanceof TdError)) {
        throw err
      }
    }
  }
  for (const st of ready) {
    for (const child of st.children) {
      if (child.tid !== undefined || child.dead) {
        continue
      }
      try {
        const info = await catalog.createChildTable(db, child.name, st.name, child.tags ?? {}, true, ttl > 0 ? ttl : 0)
        if (info.stable !== st.name || info.kind !== 'child') {
          state.rejectChild(st, child, `table "${child.name}" exists and is not a child table of super table "${st.name}"`)
          continue
        }
        child.tid = info.tid
      } catch (err) {
        if (err instanceof TdError) {
          state.rejectChild(st, child, `child table "${child.name}": ${err.message}`)
          continue
        }
        throw err
      }
    }
  }
}

function missingChildren(st: StableAcc): StableAcc['children'] {
  return st.children.filter((c) => c.tid === undefined && !c.dead)
}

/**
 * Rejects the lines of the new children that do not fit under the table limit (the first that fit
 * are created); false when no line of the super table is left to write.
 */
function withinTableLimit(catalog: Catalog, db: string, st: StableAcc, state: RequestState, maxTables: number, pending: number): boolean {
  const missing = missingChildren(st)
  // `pending`: children of earlier super tables of this request, created after the loop
  const room = Math.max(0, maxTables - catalog.tableCounts(db).tables - pending)
  for (const child of missing.slice(room)) {
    state.rejectChild(st, child, `child table "${child.name}": database "${db}" holds ${maxTables} tables, the limit --${MAX_TABLES_FLAG}`)
  }
  return st.children.some((c) => !c.dead)
}

async function ensureStable(catalog: Catalog, db: string, st: StableAcc): Promise<void> {
  let cur = catalog.getStable(db, st.name)
  if (cur === undefined) {
    if (st.existing !== undefined) {
      throw new SchemaChanged()
    }
    const columns: ColumnDef[] = [{ name: TS_COLUMN, type: 'TIMESTAMP', length: 8 }]
    for (const c of st.cols.values()) {
      columns.push({ name: c.name, type: c.type, length: c.want })
    }
    const tags: ColumnDef[] = []
    for (const t of st.tags.values()) {
      tags.push({ name: t.name, type: t.type, length: t.want })
    }
    if (tags.length === 0) {
      tags.push({ name: TAG_NULL_NAME, type: 'NCHAR', length: 1 })
    }
    await catalog.createStable(db, st.name, columns, tags, true)
    cur = catalog.getStable(db, st.name)
    if (cur === undefined) {
      throw new SchemaChanged()
    }
  }
  if (cur.columns[0].name !== st.tsName) {
    throw new SchemaChanged()
  }
  await ensureColumns(catalog, db, st.name, cur.columns, st.cols, false)
  cur = catalog.getStable(db, st.name) ?? cur
  await ensureColumns(catalog, db, st.name, cur.tags, st.tags, true)
}

async function ensureColumns(
  catalog: Catalog,
  db: string,
  stable: string,
  have: ColumnDef[],
  want: Map<string, ColState>,
  isTag: boolean,
): Promise<void> {
  const byName = new Map(have.map((c) => [c.name, c]))
  const missing: ColumnDef[] = []
  for (const c of want.values()) {
    const cur = byName.get(c.name)
    if (cur === undefined) {
      if (c.known) {
        // dropped meanwhile
        throw new SchemaChanged()
      }
      missing.push({ name: c.name, type: c.type, length: c.want })
      continue
    }
    if (cur.type !== c.type) {
      throw new SchemaChanged()
    }
    if ((cur.type === 'VARCHAR' || cur.type === 'NCHAR') && cur.length < c.want) {
      await catalog.widenColumn(db, stable, c.name, c.want)
    }
  }
  // one transaction for a line's new columns: linear in their number, and all or none
  await catalog.addStableColumns(db, stable, missing, isTag)
}
