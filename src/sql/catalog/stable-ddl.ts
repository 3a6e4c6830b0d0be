import { ownedString } from '../../owned-string.js'
import type { Dialect } from '../../storage/dialect.js'
import type { ColumnDef, DatabaseInfo, Precision, StableInfo, TagValue } from '../../storage/td-types.js'
import type { Engine } from '../../storage/types.js'
import { TD, TdError, dbNotExist, tableNotExist } from '../../td-error.js'
import { chunkIntervalTicks, DEFAULT_DB_OPTIONS, optionValue, PRECISIONS } from './database-options.js'
import { SharedDdl } from './shared-ddl.js'
import { OWN_TABLES_FIRST } from './shared-tables.js'
import { encodeTags, ownedColumns } from './row-codecs.js'
import { mapOf } from './versioned-map.js'

/** DDL of databases and super tables: the physical schema and tables, and their catalog rows. */

/** Optional dialect hook (PostgreSQL: hypertable where TimescaleDB is installed). */
interface DataTableHook {
  afterCreateDataTable?(schema: string, table: string, tsCol: string, chunkTicks?: bigint | number): string[]
}

/** each column and tag name once, else 9788 `Duplicated column names` */
export function checkDuplicates(cols: ColumnDef[]): void {
  const seen = new Set<string>()
  for (const c of cols) {
    if (seen.has(c.name)) {
      throw new TdError(TD.PAR_DUPLICATED_COLUMN, `Duplicated column names: ${c.name}`)
    }
    seen.add(c.name)
  }
}

export abstract class StableDdl extends SharedDdl {
  /** runs the dialect's post-create statements (hypertable) in the creating transaction */
  protected async afterCreateDataTable(tx: Engine, db: string, table: string, tsCol: string): Promise<void> {
    const hook = (this.d as Dialect & DataTableHook).afterCreateDataTable
    if (typeof hook !== 'function') {
      return
    }
    const info = this.dbs.get(db)
    const chunk = info ? chunkIntervalTicks(info.options.duration, info.precision) : undefined
    for (const stmt of hook.call(this.d, this.d.schemaName(db), table, tsCol, chunk)) {
      await tx.exec(stmt)
    }
  }

  // ---- databases -----------------------------------------------------------------------------

  async createDatabase(
    name: string,
    options: { precision?: Precision; vgroups?: number; [k: string]: unknown },
    ifNotExists: boolean,
    owner = 'root',
  ): Promise<void> {
    const precision = options.precision ?? 'ms'
    if (!PRECISIONS.includes(precision)) {
      throw new TdError(TD.PAR_INVALID_DB_OPTION, `Invalid option precision: ${String(precision)}`)
    }
    const vgroups = options.vgroups === undefined ? 2 : Number(options.vgroups)
    if (!Number.isInteger(vgroups) || vgroups < 1 || vgroups > 1024) {
      throw new TdError(TD.PAR_INVALID_DB_OPTION, `Invalid option vgroups: ${String(options.vgroups)}`)
    }
    await this.mutate(async () => {
      if (this.dbs.has(name)) {
        if (ifNotExists) {
          return
        }
        throw new TdError(TD.MND_DB_ALREADY_EXIST, 'Database already exists')
      }
      let maxId = 1
      for (const d of this.dbs.values()) {
        maxId = Math.max(maxId, d.firstVgId + d.vgroups - 1)
      }
      const opts: Record<string, string | number> = { ...DEFAULT_DB_OPTIONS }
      for (const [k, v] of Object.entries(options)) {
        if (v !== undefined) {
          opts[k.toLowerCase()] = optionValue(v)
        }
      }
      opts.precision = precision
      opts.vgroups = vgroups
      const info: DatabaseInfo = {
        name: ownedString(name),
        precision,
        vgroups,
        firstVgId: maxId + 1,
        options: opts,
        createdAt: Date.now(),
        owner,
      }
      await this.engine.transaction(async (tx) => {
        await tx.exec(`CREATE SCHEMA IF NOT EXISTS ${this.d.quoteIdent(this.d.schemaName(name))}`)
        await tx.exec(
          `INSERT INTO ${this.cat('databases')} (name, prec, vgroups, first_vgid, options, created_at, owner) VALUES (${this.s(name)}, ${this.s(precision)}, ${vgroups}, ${info.firstVgId}, ${this.s(JSON.stringify(opts))}, ${info.createdAt}, ${this.s(owner)})`,
        )
      })
      this.dbs.set(info.name, info)
    }, () => this.syncDatabases())
  }

  async dropDatabase(name: string, ifExists: boolean): Promise<void> {
    await this.mutate(async () => {
      if (!this.dbs.has(name)) {
        if (ifExists) {
          return
        }
        throw dbNotExist(name)
      }
      await this.engine.transaction(async (tx) => {
        await tx.exec(`DROP SCHEMA IF EXISTS ${this.d.quoteIdent(this.d.schemaName(name))} CASCADE`)
        for (const t of ['tables', 'stables']) {
          await tx.exec(`DELETE FROM ${this.cat(t)} WHERE db = ${this.s(name)}`)
        }
        await tx.exec(`DELETE FROM ${this.cat('databases')} WHERE name = ${this.s(name)}`)
        // TDengine drops the grants on a database with it: a new one of the same name starts bare
        await tx.exec(`DELETE FROM ${this.cat('privileges')} WHERE db = ${this.s(name)}`)
      })
      this.forgetDb(name)
      this.shapes.forget(name)
      this.engine.routes?.dropSchema(this.d.schemaName(name))
      this.setGrants(this.listPrivileges().filter((p) => p.db !== name))
    }, () => this.syncDatabases())
  }

  // ---- super tables --------------------------------------------------------------------------

  async createStable(
    db: string,
    name: string,
    columns: ColumnDef[],
    tags: ColumnDef[],
    ifNotExists: boolean,
    comment?: string,
  ): Promise<void> {
    if (columns.length === 0 || columns[0].type !== 'TIMESTAMP') {
      throw new TdError(TD.PAR_INVALID_FIRST_COLUMN, 'First column must be timestamp')
    }
    checkDuplicates([...columns, ...tags])
    await this.mutate(async () => {
      this.requireDb(db)
      if (this.stables.get(db)?.has(name)) {
        if (ifNotExists) {
          return
        }
        throw new TdError(TD.MND_STB_ALREADY_EXIST, 'STable already exists')
      }
      if (this.tables.get(db)?.has(name)) {
        throw new TdError(TD.TDB_TABLE_ALREADY_EXIST, 'Table already exists')
      }
      const info: StableInfo = { db, name: ownedString(name), columns: ownedColumns(columns), tags: ownedColumns(tags), createdAt: Date.now() }
      if (comment !== undefined) {
        info.comment = comment
      }
      // past a database's first super tables (shared-tables.ts); a column or tag of the shared
      // tables' own name (`_stid`) keeps tables of its own
      const shareable =
        this.engine.routes !== undefined &&
        (this.stables.get(db)?.size ?? 0) >= OWN_TABLES_FIRST &&
        ![...columns, ...tags].some((c) => c.name === '_stid')
      const placed = shareable ? this.placeShared(info) : undefined
      try {
        await this.engine.transaction(async (tx) => {
          if (placed === undefined) {
            await this.createOwnTables(tx, info)
          } else {
            await this.createViews(tx, info, placed)
          }
          await tx.exec(
            `INSERT INTO ${this.cat('stables')} (db, name, columns, tags, created_at, comment, layout) VALUES (${this.s(db)}, ${this.s(name)}, ${this.s(JSON.stringify(info.columns))}, ${this.s(JSON.stringify(info.tags))}, ${info.createdAt}, ${comment === undefined ? 'NULL' : this.s(comment)}, ${this.layoutSql(info)})`,
          )
        })
      } catch (err) {
        this.unrouteShared(info)
        this.shapes.forget(db)
        throw err
      }
      mapOf(this.stables, db).set(info.name, info)
    }, this.syncNames(db, [name]))
  }

  async dropStable(db: string, name: string, ifExists: boolean): Promise<void> {
    await this.mutate(async () => {
      this.requireDb(db)
      if (!this.stables.get(db)?.has(name)) {
        if (ifExists) {
          return
        }
        throw new TdError(TD.MND_STB_NOT_EXIST, 'STable not exist')
      }
      await this.dropStableLocked(db, name)
    }, this.syncNames(db, [name]))
  }

  protected async dropStableLocked(db: string, name: string): Promise<void> {
    const st = this.requireStable(db, name)
    const unused = this.shapes.release(st)
    try {
      await this.engine.transaction(async (tx) => {
        if (st.shared === undefined) {
          await tx.exec(`DROP TABLE IF EXISTS ${this.phys(db, `${name}$tags`)}`)
          await tx.exec(`DROP TABLE IF EXISTS ${this.phys(db, name)}`)
        } else {
          await this.dropViews(tx, st, unused)
        }
        await tx.exec(
          `DELETE FROM ${this.cat('tables')} WHERE db = ${this.s(db)} AND kind = 'child' AND stable = ${this.s(name)}`,
        )
        await tx.exec(`DELETE FROM ${this.cat('stables')} WHERE db = ${this.s(db)} AND name = ${this.s(name)}`)
      })
    } catch (err) {
      this.routeShared(st)
      this.shapes.forget(db)
      throw err
    }
    this.stables.get(db)?.delete(name)
    const tbls = this.tables.get(db)
    if (tbls) {
      for (const [k, t] of tbls) {
        if (t.kind === 'child' && t.stable === name) {
          tbls.delete(k)
        }
      }
    }
    if (st.shared === undefined) {
      // a shared super table's children took their tids from the database's shared sequence
      this.nextTid.delete(`${db}\u0000${name}`)
    }
    this.tagIndexes.forget(db, name)
  }

  protected async saveStable(tx: Engine, st: StableInfo): Promise<void> {
    await tx.exec(
      `UPDATE ${this.cat('stables')} SET columns = ${this.s(JSON.stringify(st.columns))}, tags = ${this.s(JSON.stringify(st.tags))}, layout = ${this.layoutSql(st)} WHERE db = ${this.s(st.db)} AND name = ${this.s(st.name)}`,
    )
  }

  async addStableColumn(db: string, stable: string, col: ColumnDef, isTag: boolean): Promise<void> {
    await this.addStableColumns(db, stable, [col], isTag)
  }

  /**
   * Several columns (or tags) in one transaction and one catalog write: the schemaless core adds
   * a wide line's new fields at once (one by one, 4,000 of them took 20 s, each rewriting the
   * whole column list), and a failure leaves none of them added.
   */
  async addStableColumns(db: string, stable: string, cols: ColumnDef[], isTag: boolean): Promise<void> {
    if (cols.length === 0) {
      return
    }
    await this.mutate(async () => {
      let st = this.requireStable(db, stable)
      const tagNames = new Set(st.tags.map((c) => c.name))
      const colNames = new Set(st.columns.map((c) => c.name))
      for (const col of cols) {
        if (tagNames.has(col.name)) {
          throw new TdError(TD.MND_TAG_ALREADY_EXIST, 'Tag already exists')
        }
        if (colNames.has(col.name)) {
          throw new TdError(TD.MND_COLUMN_ALREADY_EXIST, 'Column already exists')
        }
        ;(isTag ? tagNames : colNames).add(col.name)
      }
      // valid: a shared super table gets tables of its own, then the columns
      st = await this.unshareLocked(st)
      const added = ownedColumns(cols)
      const next: StableInfo = isTag ? { ...st, tags: [...st.tags, ...added] } : { ...st, columns: [...st.columns, ...added] }
      const target = isTag ? `${stable}$tags` : stable
      await this.engine.transaction(async (tx) => {
        for (const col of cols) {
          await tx.exec(`ALTER TABLE ${this.phys(db, target)} ADD COLUMN ${this.colDefsSql([col])}`)
        }
        await this.saveStable(tx, next)
      })
      mapOf(this.stables, db).set(stable, next)
      if (isTag) {
        for (const t of this.tables.get(db)?.values() ?? []) {
          if (t.kind === 'child' && t.stable === stable && t.tags) {
            for (const c of added) {
              t.tags[c.name] = null
            }
          }
        }
      }
    }, this.syncNames(db, [], [stable]))
  }

  async dropStableColumn(db: string, stable: string, name: string, isTag: boolean): Promise<void> {
    await this.mutate(async () => {
      let st = this.requireStable(db, stable)
      const list = isTag ? st.tags : st.columns
      const idx = list.findIndex((c) => c.name === name)
      if (idx < 0) {
        throw isTag
          ? new TdError(TD.MND_TAG_NOT_EXIST, 'Tag does not exist')
          : new TdError(TD.MND_COLUMN_NOT_EXIST, 'Column does not exist')
      }
      if (!isTag && idx === 0) {
        throw new TdError(TD.PAR_INVALID_ALTER_TABLE, 'Invalid alter table statement: cannot drop the primary timestamp column')
      }
      if (isTag && st.tags.length === 1) {
        throw new TdError(TD.PAR_INVALID_ALTER_TABLE, 'Invalid alter table statement: a super table needs at least one tag')
      }
      st = await this.unshareLocked(st)
      const rest = list.filter((c) => c.name !== name)
      const next: StableInfo = isTag ? { ...st, tags: rest } : { ...st, columns: rest }
      const target = isTag ? `${stable}$tags` : stable
      await this.engine.transaction(async (tx) => {
        await tx.exec(`ALTER TABLE ${this.phys(db, target)} DROP COLUMN ${this.d.quoteIdent(name)}`)
        await this.saveStable(tx, next)
        if (isTag) {
          await this.rewriteChildTags(tx, db, stable, (tags) => {
            delete tags[name]
          })
        }
      })
      mapOf(this.stables, db).set(stable, next)
      if (isTag) {
        for (const t of this.tables.get(db)?.values() ?? []) {
          if (t.kind === 'child' && t.stable === stable && t.tags) {
            delete t.tags[name]
          }
        }
      }
    }, this.syncNames(db, [], [stable]))
  }

  /** Updates the persisted tag JSON of every child of a stable (cache updated by the caller). */
  protected async rewriteChildTags(
    tx: Engine,
    db: string,
    stable: string,
    edit: (tags: Record<string, TagValue>) => void,
  ): Promise<void> {
    for (const t of this.tables.get(db)?.values() ?? []) {
      if (t.kind === 'child' && t.stable === stable) {
        const tags = { ...(t.tags ?? {}) }
        edit(tags)
        await tx.exec(
          `UPDATE ${this.cat('tables')} SET tags = ${this.s(encodeTags(tags))} WHERE db = ${this.s(db)} AND name = ${this.s(t.name)}`,
        )
      }
    }
  }

  async widenColumn(db: string, table: string, name: string, length: number): Promise<void> {
    await this.mutate(async () => {
      this.requireDb(db)
      let st = this.stables.get(db)?.get(table)
      const nt = this.tables.get(db)?.get(table)
      let list: ColumnDef[] | undefined
      let physTable: string
      let isTag = false
      if (st) {
        const ci = st.columns.findIndex((c) => c.name === name)
        if (ci >= 0) {
          list = st.columns
          physTable = table
        } else {
          list = st.tags
          isTag = true
          physTable = `${table}$tags`
        }
      } else if (nt && nt.kind === 'normal') {
        list = nt.columns
        physTable = table
      } else if (nt) {
        throw new TdError(TD.PAR_INVALID_ALTER_TABLE, 'Invalid alter table statement: modify a child table column through its super table')
      } else {
        throw tableNotExist(table)
      }
      const idx = list?.findIndex((c) => c.name === name) ?? -1
      if (!list || idx < 0) {
        throw isTag || !st
          ? new TdError(st ? TD.MND_TAG_NOT_EXIST : TD.MND_COLUMN_NOT_EXIST, st ? 'Tag does not exist' : 'Column does not exist')
          : new TdError(TD.MND_COLUMN_NOT_EXIST, 'Column does not exist')
      }
      const old = list[idx]
      if (old.type !== 'VARCHAR' && old.type !== 'NCHAR') {
        throw new TdError(TD.PAR_INVALID_MODIFY_COL, 'Only varchar/nchar/geometry length can be modified')
      }
      if (length <= old.length) {
        throw new TdError(TD.PAR_INVALID_MODIFY_COL, 'Field length can only be increased')
      }
      const widened: ColumnDef = { ...old, length }
      const nextList = list.map((c, i) => (i === idx ? widened : c))
      const oldType = this.d.columnType(old)
      const newType = this.d.columnType(widened)
      if (st !== undefined && oldType !== newType) {
        // the column's physical type changes: the super table leaves its shape's shared tables
        st = await this.unshareLocked(st)
      }
      await this.engine.transaction(async (tx) => {
        if (oldType !== newType) {
          await tx.exec(
            `ALTER TABLE ${this.phys(db, physTable)} ALTER COLUMN ${this.d.quoteIdent(name)} TYPE ${newType}`,
          )
        }
        if (st) {
          await this.saveStable(tx, isTag ? { ...st, tags: nextList } : { ...st, columns: nextList })
        } else {
          await tx.exec(
            `UPDATE ${this.cat('tables')} SET columns = ${this.s(JSON.stringify(nextList))} WHERE db = ${this.s(db)} AND name = ${this.s(table)}`,
          )
        }
      })
      if (st) {
        mapOf(this.stables, db).set(table, isTag ? { ...st, tags: nextList } : { ...st, columns: nextList })
      } else if (nt) {
        nt.columns = nextList
      }
    }, this.syncNames(db, [table]))
  }
}
