import { ownedString } from '../../owned-string.js'
import type { StableInfo } from '../../storage/td-types.js'
import { TD, TdError, tableNotExist } from '../../td-error.js'
import { optionValue } from './database-options.js'
import { TableDdl } from './table-ddl.js'
import { mapOf } from './versioned-map.js'

/**
 * The ALTERs that change names and descriptions rather than storage: RENAME TAG / COLUMN, table
 * comments, and database options. Each is one mutation (catalog rows and physical DDL in one
 * transaction); other replicas reload the catalog on the NOTIFY, so they see the change too.
 */
export abstract class AlterDdl extends TableDdl {
  /**
   * Renames a super table's tag (isTag) or a normal table's column: the physical column and
   * every catalog row that names it (a tag's value in each child's row).
   */
  async renameColumn(db: string, table: string, from: string, to: string, isTag: boolean): Promise<void> {
    await this.mutate(async () => {
      this.requireDb(db)
      const qi = this.d.quoteIdent
      if (isTag) {
        let st = this.requireStable(db, table)
        if (!st.tags.some((t) => t.name === from)) {
          throw new TdError(TD.MND_TAG_NOT_EXIST, 'Tag does not exist')
        }
        if (st.tags.some((t) => t.name === to) || st.columns.some((c) => c.name === to)) {
          throw new TdError(TD.MND_TAG_ALREADY_EXIST, 'Tag already exists')
        }
        // a renamed tag is another shape: the super table gets tables of its own first
        st = await this.unshareLocked(st)
        const next: StableInfo = { ...st, tags: st.tags.map((t) => (t.name === from ? { ...t, name: ownedString(to) } : t)) }
        await this.engine.transaction(async (tx) => {
          await tx.exec(`ALTER TABLE ${this.phys(db, `${table}$tags`)} RENAME COLUMN ${qi(from)} TO ${qi(to)}`)
          await this.saveStable(tx, next)
          await this.rewriteChildTags(tx, db, table, (tags) => {
            tags[to] = tags[from] ?? null
            delete tags[from]
          })
        })
        mapOf(this.stables, db).set(table, next)
        for (const t of this.tables.get(db)?.values() ?? []) {
          if (t.kind === 'child' && t.stable === table && t.tags) {
            t.tags[to] = t.tags[from] ?? null
            delete t.tags[from]
          }
        }
        return
      }
      const t = this.requireNormal(db, table)
      const cols = t.columns ?? []
      if (!cols.some((c) => c.name === from)) {
        throw new TdError(TD.MND_COLUMN_NOT_EXIST, 'Column does not exist')
      }
      if (cols.some((c) => c.name === to)) {
        throw new TdError(TD.MND_COLUMN_ALREADY_EXIST, 'Column already exists')
      }
      const next = cols.map((c) => (c.name === from ? { ...c, name: ownedString(to) } : c))
      await this.engine.transaction(async (tx) => {
        await tx.exec(`ALTER TABLE ${this.phys(db, table)} RENAME COLUMN ${qi(from)} TO ${qi(to)}`)
        await tx.exec(
          `UPDATE ${this.cat('tables')} SET columns = ${this.s(JSON.stringify(next))} WHERE db = ${this.s(db)} AND name = ${this.s(table)}`,
        )
      })
      t.columns = next
    }, this.syncNames(db, isTag ? [] : [table], isTag ? [table] : []))
  }

  /** COMMENT of a super table, child or normal table ('' clears it, as TDengine shows no comment) */
  async setComment(db: string, name: string, comment: string): Promise<void> {
    await this.mutate(async () => {
      this.requireDb(db)
      const st = this.stables.get(db)?.get(name)
      const t = st === undefined ? this.tables.get(db)?.get(name) : undefined
      if (st === undefined && t === undefined) {
        throw tableNotExist(name)
      }
      const table = st !== undefined ? 'stables' : 'tables'
      await this.engine.exec(
        `UPDATE ${this.cat(table)} SET comment = ${this.s(comment)} WHERE db = ${this.s(db)} AND name = ${this.s(name)}`,
      )
      if (st !== undefined) {
        mapOf(this.stables, db).set(name, { ...st, comment })
      } else if (t !== undefined) {
        t.comment = comment
      }
    }, this.syncNames(db, [name]))
  }

  /**
   * ALTER DATABASE: merges `options` (already checked by the SQL layer) into the stored ones. The
   * row is re-read inside the mutation so a change another replica made a moment ago is kept.
   */
  async alterDatabase(name: string, options: Record<string, string | number>): Promise<void> {
    await this.mutate(async () => {
      const info = this.requireDb(name)
      const rows = await this.engine.query(`SELECT options FROM ${this.cat('databases')} WHERE name = ${this.s(name)}`)
      const stored = rows.length > 0 ? (JSON.parse(String(rows[0][0])) as Record<string, string | number>) : info.options
      const next = { ...stored }
      for (const [k, v] of Object.entries(options)) {
        next[k.toLowerCase()] = optionValue(v)
      }
      await this.engine.exec(`UPDATE ${this.cat('databases')} SET options = ${this.s(JSON.stringify(next))} WHERE name = ${this.s(name)}`)
      this.dbs.set(info.name, { ...info, options: next })
    }, () => this.syncDatabases())
  }
}
