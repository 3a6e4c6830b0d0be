import type { ColumnDef, DatabaseInfo, Precision, StableInfo, TableInfo, TagValue } from '../storage/td-types.js'
import type { ShowStmt, TableRef } from './ast.js'
import { maySee, noRights } from './catalog/access.js'
import type { Catalog } from './catalog/types.js'
import { requireDb, resolveDb } from './ddl.js'
import { TD, TdError, tableNotExist } from '../td-error.js'
import type { ColumnMeta, SqlContext, SqlResult } from './result.js'
import { keepText, SYSTEM_PRECISION, systemTable, tagValueText, typeText, vgroupRows, INS_TAGS_COLUMNS } from './system-tables.js'

/**
 * SHOW and DESCRIBE (sql-dialect.md section 4): answered from the same data as
 * information_schema (src/sql/system-tables.ts), in TDengine's column shapes.
 */

/** a `rows` result over already materialised rows */
function rowsResult(columns: ColumnMeta[], rows: unknown[][], precision: Precision = SYSTEM_PRECISION): SqlResult {
  return {
    kind: 'rows',
    columns,
    precision,
    rows: (async function* () {
      if (rows.length > 0) {
        yield rows
      }
    })(),
  }
}

/** TDengine LIKE: `%` any run, `_` one char, backslash escapes; case-sensitive, whole string */
function likeToRegExp(pattern: string): RegExp {
  let re = '^'
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]
    if (ch === '\\' && i + 1 < pattern.length) {
      re += pattern[++i].replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    } else if (ch === '%') {
      re += '[\\s\\S]*'
    } else if (ch === '_') {
      re += '[\\s\\S]'
    } else {
      re += ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    }
  }
  return new RegExp(re + '$', 'u')
}

/** SHOW STABLES/TABLES/VGROUPS need a database: 9728 `database not specified` otherwise */
function showDb(db: string | undefined, ctx: SqlContext, catalog: Catalog): string {
  const name = db ?? ctx.defaultDb
  if (name === undefined || name === '') {
    throw new TdError(TD.PAR_SYNTAX_ERROR, 'database not specified')
  }
  requireVisible(catalog, name, ctx)
  return name
}

/** the database record for SHOW and DESCRIBE: 904 when missing, 771 without any privilege on it */
function requireVisible(catalog: Catalog, name: string, ctx: SqlContext): DatabaseInfo {
  const d = requireDb(catalog, name)
  if (!maySee(catalog, ctx.user, name)) {
    throw noRights(`user "${ctx.user}" has no privilege on database "${name}"`)
  }
  return d
}

function system(name: string, catalog: Catalog, ctx: SqlContext): { columns: ColumnMeta[]; rows: unknown[][] } {
  const t = systemTable(name, catalog, ctx.user)
  if (t === undefined) {
    throw new TdError(TD.PAR_INTERNAL_ERROR, `Parser internal error: no system table ${name}`)
  }
  return t
}

const q = (s: string): string => '`' + s + '`'

function columnsText(cols: ColumnDef[]): string {
  return cols.map((c) => `${q(c.name)} ${typeText(c)}`).join(', ')
}

function tagLiteralText(v: TagValue | undefined): string {
  if (v === null || v === undefined) {
    return 'NULL'
  }
  if (typeof v === 'string') {
    return JSON.stringify(v)
  }
  if (typeof v === 'object') {
    return `'${JSON.stringify(v)}'`
  }
  return String(v)
}

/** SHOW CREATE DATABASE text, every option listed (sql-dialect.md 2.1) */
function createDatabaseText(catalog: Catalog, name: string, ctx: SqlContext): string {
  const d = requireVisible(catalog, name, ctx)
  const o = d.options
  const opt = (k: string, dflt: string | number): string | number => o[k] ?? dflt
  const dur = String(opt('duration', '10d'))
  return (
    `CREATE DATABASE ${q(d.name)} BUFFER ${opt('buffer', 256)} CACHESIZE ${opt('cachesize', 1)} CACHEMODEL '${opt('cachemodel', 'none')}'` +
    ` COMP ${opt('comp', 2)} DURATION ${/^\d+$/.test(dur) ? dur + 'd' : dur} WAL_FSYNC_PERIOD ${opt('wal_fsync_period', 3000)}` +
    ` MAXROWS ${opt('maxrows', 4096)} MINROWS ${opt('minrows', 100)} STT_TRIGGER ${opt('stt_trigger', 1)} KEEP ${keepText(o.keep)}` +
    ` PAGES ${opt('pages', 256)} PAGESIZE ${opt('pagesize', 4)} PRECISION '${d.precision}' REPLICA ${opt('replica', 1)}` +
    ` WAL_LEVEL ${opt('wal_level', 1)} VGROUPS ${d.vgroups} SINGLE_STABLE ${opt('single_stable', 0)}` +
    ` TABLE_PREFIX ${opt('table_prefix', 0)} TABLE_SUFFIX ${opt('table_suffix', 0)} TSDB_PAGESIZE ${opt('tsdb_pagesize', 4)}` +
    ` WAL_RETENTION_PERIOD ${opt('wal_retention_period', 3600)} WAL_RETENTION_SIZE ${opt('wal_retention_size', 0)}` +
    ` KEEP_TIME_OFFSET ${opt('keep_time_offset', 0)}`
  )
}

function createStableText(st: StableInfo): string {
  const comment = st.comment ? ` COMMENT '${st.comment.replace(/'/g, "\\'")}'` : ''
  return `CREATE STABLE ${q(st.name)} (${columnsText(st.columns)}) TAGS (${columnsText(st.tags)})${comment}`
}

function createTableText(catalog: Catalog, t: TableInfo): string {
  if (t.kind === 'child' && t.stable !== undefined) {
    const st = catalog.getStable(t.db, t.stable)
    const tags = st?.tags ?? []
    return `CREATE TABLE ${q(t.name)} USING ${q(t.stable)} (${tags.map((x) => q(x.name)).join(', ')}) TAGS (${tags
      .map((x) => tagLiteralText(t.tags?.[x.name]))
      .join(', ')})`
  }
  return `CREATE TABLE ${q(t.name)} (${columnsText(t.columns ?? [])})`
}

function requireTable(catalog: Catalog, ref: TableRef, ctx: SqlContext): { db: string; table?: TableInfo; stable?: StableInfo } {
  const db = resolveDb(ref.db, ctx)
  requireVisible(catalog, db, ctx)
  const table = catalog.getTable(db, ref.name)
  const stable = table === undefined ? catalog.getStable(db, ref.name) : undefined
  if (table === undefined && stable === undefined) {
    throw tableNotExist(ref.name)
  }
  return { db, ...(table ? { table } : {}), ...(stable ? { stable } : {}) }
}

/** DESCRIBE [db.]t: field, type, length, note ('TAG' for tags) */
export function describe(catalog: Catalog, ref: TableRef, ctx: SqlContext): SqlResult {
  if ((ref.db ?? ctx.defaultDb) === 'information_schema') {
    const sys = systemTable(ref.name, catalog, ctx.user)
    if (sys === undefined) {
      throw tableNotExist(ref.name)
    }
    return rowsResult(DESCRIBE_COLUMNS, sys.columns.map((c) => [c.name, c.type, c.length, '']))
  }
  const { db, table, stable } = requireTable(catalog, ref, ctx)
  let cols: ColumnDef[]
  let tags: ColumnDef[] = []
  if (stable !== undefined) {
    cols = stable.columns
    tags = stable.tags
  } else if (table?.kind === 'child' && table.stable !== undefined) {
    const st = catalog.getStable(db, table.stable)
    cols = st?.columns ?? []
    tags = st?.tags ?? []
  } else {
    cols = table?.columns ?? []
  }
  const rows = [...cols.map((c) => [c.name, c.type, c.length, '']), ...tags.map((c) => [c.name, c.type, c.length, 'TAG'])]
  return rowsResult(DESCRIBE_COLUMNS, rows)
}

const DESCRIBE_COLUMNS: ColumnMeta[] = [
  { name: 'field', type: 'VARCHAR', length: 64 },
  { name: 'type', type: 'VARCHAR', length: 20 },
  { name: 'length', type: 'INT', length: 4 },
  { name: 'note', type: 'VARCHAR', length: 16 },
]

const OTHER_TABLE: Readonly<Record<string, string>> = {
  dnodes: 'ins_dnodes',
  mnodes: 'ins_mnodes',
  qnodes: 'ins_qnodes',
  cluster: 'ins_cluster',
  variables: 'ins_configs',
  localVariables: 'ins_configs',
  functions: 'ins_functions',
  indexes: 'ins_indexes',
  streams: 'ins_streams',
  topics: 'ins_topics',
}

/** Runs a SHOW statement. */
export function executeShow(show: ShowStmt, catalog: Catalog, ctx: SqlContext): SqlResult {
  switch (show.what) {
    case 'databases': {
      const t = system('ins_databases', catalog, ctx)
      return rowsResult(t.columns, t.rows)
    }
    case 'userPrivileges': {
      const t = system('ins_user_privileges', catalog, ctx)
      return rowsResult(t.columns, t.rows)
    }
    case 'users': {
      const t = system('ins_users', catalog, ctx)
      return rowsResult(t.columns, t.rows)
    }
    case 'stables': {
      const db = showDb(show.db, ctx, catalog)
      const re = show.like !== undefined ? likeToRegExp(show.like) : undefined
      const rows = catalog
        .listStables(db)
        .filter((s) => re === undefined || re.test(s.name))
        .map((s) => [s.name])
      return rowsResult([{ name: 'stable_name', type: 'VARCHAR', length: 192 }], rows)
    }
    case 'tables': {
      const db = showDb(show.db, ctx, catalog)
      const re = show.like !== undefined ? likeToRegExp(show.like) : undefined
      const rows = catalog
        .listTables(db)
        .filter((t) => (show.tableKind === undefined || t.kind === show.tableKind) && (re === undefined || re.test(t.name)))
        .map((t) => [t.name])
      return rowsResult([{ name: 'table_name', type: 'VARCHAR', length: 192 }], rows)
    }
    case 'vgroups': {
      const db = showDb(show.db, ctx, catalog)
      const t = system('ins_vgroups', catalog, ctx)
      return rowsResult(t.columns, vgroupRows(catalog, db))
    }
    case 'createDatabase':
      return rowsResult(
        [
          { name: 'Database', type: 'VARCHAR', length: 64 },
          { name: 'Create Database', type: 'VARCHAR', length: 1024 },
        ],
        [[show.name, createDatabaseText(catalog, show.name, ctx)]],
      )
    case 'createTable': {
      const { table, stable } = requireTable(catalog, show.table, ctx)
      if (show.stable && stable === undefined) {
        throw new TdError(TD.MND_STB_NOT_EXIST, 'STable not exist')
      }
      const text = stable !== undefined ? createStableText(stable) : createTableText(catalog, table as TableInfo)
      return rowsResult(
        [
          { name: stable !== undefined && show.stable ? 'Stable' : 'Table', type: 'VARCHAR', length: 192 },
          { name: stable !== undefined && show.stable ? 'Create Stable' : 'Create Table', type: 'VARCHAR', length: 16384 },
        ],
        [[show.table.name, text]],
      )
    }
    case 'tags': {
      const { db, table } = requireTable(catalog, show.table, ctx)
      const rows: unknown[][] = []
      if (table?.kind === 'child' && table.stable !== undefined) {
        for (const tag of catalog.getStable(db, table.stable)?.tags ?? []) {
          rows.push([table.name, db, table.stable, tag.name, typeText(tag), tagValueText(table.tags?.[tag.name])])
        }
      }
      return rowsResult(INS_TAGS_COLUMNS, rows)
    }
    case 'tableTags': {
      const db = resolveDb(show.table.db, ctx)
      const dbInfo = requireVisible(catalog, db, ctx)
      const st = catalog.getStable(db, show.table.name)
      if (st === undefined) {
        throw tableNotExist(show.table.name)
      }
      const rows = catalog
        .listTables(db)
        .filter((t) => t.kind === 'child' && t.stable === st.name)
        .map((t) => [t.name, ...st.tags.map((tag) => t.tags?.[tag.name] ?? null)])
      return rowsResult(
        [{ name: 'tbname', type: 'VARCHAR', length: 192 }, ...st.tags.map((t) => ({ name: t.name, type: t.type, length: t.length }))],
        rows,
        dbInfo.precision,
      )
    }
    case 'alive':
      return rowsResult([{ name: 'status', type: 'INT', length: 4 }], [[1]])
    case 'other': {
      const name = OTHER_TABLE[show.object]
      if (name !== undefined) {
        const t = system(name, catalog, ctx)
        return rowsResult(t.columns, t.rows)
      }
      // objects this service does not have (streams' consumers, grants ...): an empty set
      return rowsResult([{ name: 'name', type: 'VARCHAR', length: 64 }], [])
    }
  }
}
