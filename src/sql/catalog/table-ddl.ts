import { ownedString } from '../../owned-string.js'
import type { ColumnDef, TableInfo, TagValue } from '../../storage/td-types.js'
import { TD, TdError, tableNotExist } from '../../td-error.js'
import {
  encodeTags,
  INSERT_ROWS_PER_STATEMENT,
  isTextTag,
  ownedColumns,
  ownedTags,
  slices,
  TABLES_COLUMNS,
  tagLiteral,
  textTag,
} from './row-codecs.js'
import { childTidKey } from './shared-tables.js'
import { checkDuplicates, StableDdl } from './stable-ddl.js'
import type { ChildTableSpec } from './types.js'
import { mapOf } from './versioned-map.js'

/** DDL of child and normal tables: tag rows, data tables, their catalog rows and tids. */
export abstract class TableDdl extends StableDdl {
  // ---- child and normal tables ---------------------------------------------------------------

  async createChildTable(
    db: string,
    name: string,
    stable: string,
    tags: Record<string, TagValue>,
    ifNotExists: boolean,
    ttl = 0,
    comment?: string,
  ): Promise<TableInfo> {
    // fast path without the lock: auto-creating inserts hit existing children most of the time
    const existing = this.tables.get(db)?.get(name)
    if (existing && ifNotExists) {
      return existing
    }
    const [info] = await this.createChildTables(db, [{ name, stable, tags, ttl, ...(comment !== undefined ? { comment } : {}) }], ifNotExists)
    return info
  }

  async createChildTables(db: string, specs: ChildTableSpec[], ifNotExists: boolean): Promise<TableInfo[]> {
    const known = specs.map((x) => this.tables.get(db)?.get(x.name))
    if (ifNotExists && known.every((t) => t !== undefined)) {
      return known as TableInfo[]
    }
    return this.mutate(async () => {
      this.requireDb(db)
      const out: TableInfo[] = []
      const fresh: TableInfo[] = []
      const pending = new Map<string, TableInfo>()
      for (const spec of specs) {
        const st = this.requireStable(db, spec.stable)
        const cur = this.tables.get(db)?.get(spec.name) ?? pending.get(spec.name)
        if (cur) {
          if (ifNotExists) {
            out.push(cur)
            continue
          }
          throw new TdError(TD.TDB_TABLE_ALREADY_EXIST, 'Table already exists')
        }
        if (this.stables.get(db)?.has(spec.name)) {
          throw new TdError(TD.TDB_TABLE_ALREADY_EXIST, 'Table already exists')
        }
        for (const k of Object.keys(spec.tags)) {
          if (!st.tags.some((t) => t.name === k)) {
            throw new TdError(TD.PAR_INVALID_TAG_NAME, `Invalid tag name: ${k}`)
          }
        }
        const given = ownedTags(spec.tags)
        const full: Record<string, TagValue> = {}
        for (const t of st.tags) {
          full[t.name] = given[t.name] ?? null
        }
        const info: TableInfo = {
          db,
          name: ownedString(spec.name),
          kind: 'child',
          tid: 0, // allocated below, once every spec is valid
          stable: spec.stable,
          tags: full,
          ttl: spec.ttl ?? 0,
          createdAt: Date.now(),
        }
        if (spec.comment !== undefined) {
          info.comment = spec.comment
        }
        pending.set(spec.name, info)
        fresh.push(info)
        out.push(info)
      }
      if (fresh.length === 0) {
        return out
      }
      const saved = new Map<string, number | undefined>()
      for (const info of fresh) {
        const key = childTidKey(db, this.stables.get(db)?.get(info.stable as string), info.stable as string)
        if (!saved.has(key)) {
          saved.set(key, this.nextTid.get(key))
        }
        info.tid = this.allocTid(key)
      }
      const qi = this.d.quoteIdent
      try {
        await this.engine.transaction(async (tx) => {
          const byStable = new Map<string, TableInfo[]>()
          for (const info of fresh) {
            const list = byStable.get(info.stable as string) ?? []
            list.push(info)
            byStable.set(info.stable as string, list)
          }
          for (const [stable, list] of byStable) {
            const st = this.requireStable(db, stable)
            if (tx.insertRows !== undefined && st.tags.every(isTextTag)) {
              // text tags (every schemaless and Prometheus tag) need no conversion the appender would do differently
              const rows = list.map((info) => [info.tid, info.name, ...st.tags.map((t) => textTag(t, info.tags?.[t.name]))])
              await tx.insertRows(this.d.schemaName(db), `${stable}$tags`, ['_tid', 'tbname', ...st.tags.map((t) => t.name)], rows)
              continue
            }
            // a shared tag table's rows name their super table (`_stid`)
            const stid = st.shared === undefined ? [] : [String(st.shared.stid)]
            const head = `INSERT INTO ${this.physOf(st, true).table} (${[...(stid.length ? [qi('_stid')] : []), qi('_tid'), qi('tbname'), ...st.tags.map((t) => qi(t.name))].join(', ')}) VALUES `
            for (const part of slices(list, INSERT_ROWS_PER_STATEMENT)) {
              const values = part.map((info) => {
                const vals = st.tags.map((t) => tagLiteral(this.d, t, info.tags?.[t.name]))
                return `(${[...stid, String(info.tid), this.s(info.name), ...vals].join(', ')})`
              })
              await tx.exec(head + values.join(', '))
            }
          }
          const rows = fresh.map((info) => [db, info.name, 'child', info.tid, info.stable as string, encodeTags(info.tags ?? {}), null, info.ttl, info.createdAt, info.comment ?? null])
          if (tx.insertRows !== undefined) {
            await tx.insertRows(this.d.catalogSchema, 'tables', TABLES_COLUMNS, rows)
          } else {
            for (const part of slices(rows, INSERT_ROWS_PER_STATEMENT)) {
              await tx.exec(`INSERT INTO ${this.cat('tables')} (${TABLES_COLUMNS.join(', ')}) VALUES ${part.map((r) => this.rowLiteral(r)).join(', ')}`)
            }
          }
        })
      } catch (err) {
        // nothing was created: give the ids back (keeps them compact)
        for (const [key, v] of saved) {
          if (v === undefined) {
            this.nextTid.delete(key)
          } else {
            this.nextTid.set(key, v)
          }
        }
        throw err
      }
      const before = this.changes
      const tbls = mapOf(this.tables, db)
      for (const info of fresh) {
        tbls.set(info.name, info)
      }
      this.tagIndexes.added(db, before, this.changes, fresh)
      return out
    }, async () => {
      const stableNames = [...new Set(specs.map((x) => x.stable))]
      await this.syncNames(db, specs.map((x) => x.name), [...stableNames, ...specs.map((x) => x.name)])()
      if (this.dbs.has(db)) {
        for (const st of stableNames) {
          await this.syncTid(db, st)
        }
      }
    })
  }

  async createNormalTable(
    db: string,
    name: string,
    columns: ColumnDef[],
    ifNotExists: boolean,
    ttl = 0,
    comment?: string,
  ): Promise<TableInfo> {
    if (columns.length === 0 || columns[0].type !== 'TIMESTAMP') {
      throw new TdError(TD.PAR_INVALID_FIRST_COLUMN, 'First column must be timestamp')
    }
    checkDuplicates(columns)
    return this.mutate(async () => {
      this.requireDb(db)
      const cur = this.tables.get(db)?.get(name)
      if (cur) {
        if (ifNotExists) {
          return cur
        }
        throw new TdError(TD.TDB_TABLE_ALREADY_EXIST, 'Table already exists')
      }
      if (this.stables.get(db)?.has(name)) {
        throw new TdError(TD.TDB_TABLE_ALREADY_EXIST, 'Table already exists')
      }
      const key = `${db}\u0000`
      const tid = this.allocTid(key)
      const info: TableInfo = { db, name: ownedString(name), kind: 'normal', tid, columns: ownedColumns(columns), ttl, createdAt: Date.now() }
      if (comment !== undefined) {
        info.comment = comment
      }
      try {
        await this.engine.transaction(async (tx) => {
          await tx.exec(
            `CREATE TABLE ${this.phys(db, name)} (${this.colDefsSql(columns)}${this.d.dataTableKey([this.d.quoteIdent(columns[0].name)])})`,
          )
          await this.afterCreateDataTable(tx, db, name, columns[0].name)
          await tx.exec(
            `INSERT INTO ${this.cat('tables')} (${TABLES_COLUMNS.join(', ')}) VALUES ${this.rowLiteral([db, name, 'normal', tid, null, null, JSON.stringify(info.columns), ttl, info.createdAt, comment ?? null])}`,
          )
        })
      } catch (err) {
        if (this.nextTid.get(key) === tid + 1) {
          this.nextTid.set(key, tid)
        }
        throw err
      }
      mapOf(this.tables, db).set(info.name, info)
      return info
    }, async () => {
      await this.syncNames(db, [name])()
      if (this.dbs.has(db)) {
        await this.syncTid(db, undefined)
      }
    })
  }

  async dropTable(db: string, name: string, ifExists: boolean): Promise<void> {
    await this.mutate(async () => {
      this.requireDb(db)
      const t = this.tables.get(db)?.get(name)
      if (!t) {
        if (this.stables.get(db)?.has(name)) {
          // TDengine 3 lets DROP TABLE name a super table
          await this.dropStableLocked(db, name)
          return
        }
        if (ifExists) {
          return
        }
        throw tableNotExist(name)
      }
      const qi = this.d.quoteIdent
      await this.engine.transaction(async (tx) => {
        if (t.kind === 'child') {
          const st = this.requireStable(db, t.stable as string)
          for (const tags of [false, true]) {
            const p = this.physOf(st, tags)
            await tx.exec(`DELETE FROM ${p.table} WHERE ${p.rows} AND ${qi('_tid')} = ${t.tid}`)
          }
        } else {
          await tx.exec(`DROP TABLE IF EXISTS ${this.phys(db, name)}`)
        }
        await tx.exec(`DELETE FROM ${this.cat('tables')} WHERE db = ${this.s(db)} AND name = ${this.s(name)}`)
      })
      this.tables.get(db)?.delete(name)
    }, this.syncNames(db, [name]))
  }

  async setTags(db: string, child: string, tags: Record<string, TagValue>): Promise<void> {
    await this.mutate(async () => {
      this.requireDb(db)
      const t = this.tables.get(db)?.get(child)
      if (!t) {
        throw tableNotExist(child)
      }
      if (t.kind !== 'child') {
        throw new TdError(TD.PAR_INVALID_ALTER_TABLE, 'Invalid alter table statement: only child tables have tags')
      }
      const st = this.requireStable(db, t.stable as string)
      const sets: string[] = []
      for (const [k, v] of Object.entries(tags)) {
        const def = st.tags.find((x) => x.name === k)
        if (!def) {
          throw new TdError(TD.PAR_INVALID_TAG_NAME, `Invalid tag name: ${k}`)
        }
        sets.push(`${this.d.quoteIdent(k)} = ${tagLiteral(this.d, def, v)}`)
      }
      if (sets.length === 0) {
        return
      }
      const next = { ...(t.tags ?? {}), ...ownedTags(tags) }
      const tagRows = this.physOf(st, true)
      await this.engine.transaction(async (tx) => {
        await tx.exec(
          `UPDATE ${tagRows.table} SET ${sets.join(', ')} WHERE ${tagRows.rows} AND ${this.d.quoteIdent('_tid')} = ${t.tid}`,
        )
        await tx.exec(
          `UPDATE ${this.cat('tables')} SET tags = ${this.s(encodeTags(next))} WHERE db = ${this.s(db)} AND name = ${this.s(child)}`,
        )
      })
      t.tags = next
      // changed in place: the tag indexes (and anything else keyed on the version) must see it
      this.changed()
    }, this.syncNames(db, [child], []))
  }

  protected requireNormal(db: string, table: string): TableInfo {
    this.requireDb(db)
    const t = this.tables.get(db)?.get(table)
    if (!t) {
      throw tableNotExist(table)
    }
    if (t.kind !== 'normal') {
      throw new TdError(TD.PAR_INVALID_ALTER_TABLE, 'Invalid alter table statement: alter the columns of a child table through its super table')
    }
    return t
  }

  async addTableColumn(db: string, table: string, col: ColumnDef): Promise<void> {
    await this.mutate(async () => {
      const t = this.requireNormal(db, table)
      const cols = t.columns ?? []
      if (cols.some((c) => c.name === col.name)) {
        throw new TdError(TD.MND_COLUMN_ALREADY_EXIST, 'Column already exists')
      }
      const next = [...cols, col]
      await this.engine.transaction(async (tx) => {
        await tx.exec(`ALTER TABLE ${this.phys(db, table)} ADD COLUMN ${this.colDefsSql([col])}`)
        await tx.exec(
          `UPDATE ${this.cat('tables')} SET columns = ${this.s(JSON.stringify(next))} WHERE db = ${this.s(db)} AND name = ${this.s(table)}`,
        )
      })
      t.columns = next
    }, this.syncNames(db, [table], []))
  }

  async dropTableColumn(db: string, table: string, name: string): Promise<void> {
    await this.mutate(async () => {
      const t = this.requireNormal(db, table)
      const cols = t.columns ?? []
      const idx = cols.findIndex((c) => c.name === name)
      if (idx < 0) {
        throw new TdError(TD.MND_COLUMN_NOT_EXIST, 'Column does not exist')
      }
      if (idx === 0) {
        throw new TdError(TD.PAR_INVALID_ALTER_TABLE, 'Invalid alter table statement: cannot drop the primary timestamp column')
      }
      const next = cols.filter((c) => c.name !== name)
      await this.engine.transaction(async (tx) => {
        await tx.exec(`ALTER TABLE ${this.phys(db, table)} DROP COLUMN ${this.d.quoteIdent(name)}`)
        await tx.exec(
          `UPDATE ${this.cat('tables')} SET columns = ${this.s(JSON.stringify(next))} WHERE db = ${this.s(db)} AND name = ${this.s(table)}`,
        )
      })
      t.columns = next
    }, this.syncNames(db, [table], []))
  }
}
