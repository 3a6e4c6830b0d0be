import type { StableInfo } from '../../storage/td-types.js'
import type { Engine } from '../../storage/types.js'
import { ReplicaSyncedCatalog } from './replica-sync.js'
import type { Placement } from './shared-tables.js'
import { mapOf } from './versioned-map.js'

/**
 * The physical side of super tables: tables of their own (`st`, `st$tags`), or views over the
 * shared tables of their shape where the engine routes writes (DuckDB; shared-tables.ts,
 * routes.ts). A shared super table whose columns or tags change first gets tables of its own
 * (`unshareLocked`), after which every ALTER works on its tables as before.
 */
export abstract class SharedDdl extends ReplicaSyncedCatalog {
  /** the data table's column list after `_tid` (and `_stid`) */
  private dataDefs(st: StableInfo): string {
    return this.colDefsSql(st.columns)
  }

  private tagDefs(st: StableInfo): string {
    return `${this.d.quoteIdent('tbname')} VARCHAR NOT NULL${st.tags.length ? `, ${this.colDefsSql(st.tags)}` : ''}`
  }

  /** `_tid`, then the columns (tags: `_tid`, tbname, the tags), as a select list */
  private viewList(st: StableInfo, tags: boolean): string {
    const qi = this.d.quoteIdent
    const names = tags ? ['_tid', 'tbname', ...st.tags.map((t) => t.name)] : ['_tid', ...st.columns.map((c) => c.name)]
    return names.map(qi).join(', ')
  }

  protected layoutSql(st: StableInfo): string {
    return st.shared === undefined ? 'NULL' : this.s(JSON.stringify(st.shared))
  }

  protected async createOwnTables(tx: Engine, st: StableInfo): Promise<void> {
    const qi = this.d.quoteIdent
    const ts = qi(st.columns[0].name)
    await tx.exec(`CREATE TABLE ${this.phys(st.db, st.name)} (${qi('_tid')} INTEGER NOT NULL, ${this.dataDefs(st)}${this.d.dataTableKey([qi('_tid'), ts])})`)
    await this.afterCreateDataTable(tx, st.db, st.name, st.columns[0].name)
    await tx.exec(`CREATE TABLE ${this.phys(st.db, `${st.name}$tags`)} (${qi('_tid')} INTEGER${this.d.tagTableKey()}, ${this.tagDefs(st)})`)
  }

  /** runs the dialect's post-create statements (hypertable) in the creating transaction */
  protected abstract afterCreateDataTable(tx: Engine, db: string, table: string, tsCol: string): Promise<void>

  /** Sets `st.shared` to the tables of its shape (counted as their user: `shapes.forget` if it is not created). */
  protected placeShared(st: StableInfo): Placement {
    const taken = (name: string): boolean => this.stables.get(st.db)?.has(name) === true || this.tables.get(st.db)?.has(name) === true
    const placed = this.shapes.place(st.db, this.shapeOf(st), taken)
    st.shared = placed.layout
    return placed
  }

  /** The shared tables a new shape needs, the two views, and the engine's routes to them. */
  protected async createViews(tx: Engine, st: StableInfo, placed: Placement): Promise<void> {
    const qi = this.d.quoteIdent
    const shared = st.shared as NonNullable<StableInfo['shared']>
    if (placed.newData) {
      await tx.exec(`CREATE TABLE ${this.phys(st.db, shared.data)} (${qi('_stid')} INTEGER NOT NULL, ${qi('_tid')} INTEGER NOT NULL, ${this.dataDefs(st)})`)
    }
    if (placed.newTags) {
      await tx.exec(`CREATE TABLE ${this.phys(st.db, shared.tags)} (${qi('_stid')} INTEGER NOT NULL, ${qi('_tid')} INTEGER, ${this.tagDefs(st)})`)
    }
    for (const tags of [false, true]) {
      const p = this.physOf(st, tags)
      await tx.exec(`CREATE VIEW ${this.phys(st.db, tags ? `${st.name}$tags` : st.name)} AS SELECT ${this.viewList(st, tags)} FROM ${p.table} WHERE ${p.rows}`)
    }
    this.routeShared(st)
  }

  /** Drops the views and the routes, then the super table's rows in the shared tables (clearShared). */
  protected async dropViews(tx: Engine, st: StableInfo, unused: string[]): Promise<void> {
    await this.dropViewsOnly(tx, st)
    await this.clearShared(tx, st, unused)
  }

  /** the two views and the engine's routes through them */
  private async dropViewsOnly(tx: Engine, st: StableInfo): Promise<void> {
    await tx.exec(`DROP VIEW IF EXISTS ${this.phys(st.db, `${st.name}$tags`)}`)
    await tx.exec(`DROP VIEW IF EXISTS ${this.phys(st.db, st.name)}`)
    this.unrouteShared(st)
  }

  /** Deletes the super table's rows from its shared tables, dropping those in `unused` (no other super table uses them). */
  private async clearShared(tx: Engine, st: StableInfo, unused: string[]): Promise<void> {
    const shared = st.shared as NonNullable<StableInfo['shared']>
    for (const tags of [false, true]) {
      const p = this.physOf(st, tags)
      await tx.exec(unused.includes(tags ? shared.tags : shared.data) ? `DROP TABLE ${p.table}` : `DELETE FROM ${p.table} WHERE ${p.rows}`)
    }
  }

  /**
   * Gives a shared super table tables of its own (its rows moved there, in one transaction of
   * its own, under the caller's catalog lock) and returns it so; any other comes back as it is.
   */
  protected async unshareLocked(st: StableInfo): Promise<StableInfo> {
    if (st.shared === undefined) {
      return st
    }
    const own: StableInfo = { ...st }
    delete own.shared
    const db = st.db
    const unused = this.shapes.release(st)
    try {
      await this.engine.transaction(async (tx) => {
        // the views go first: the tables of its own take their names
        await this.dropViewsOnly(tx, st)
        await this.createOwnTables(tx, own)
        for (const tags of [false, true]) {
          const p = this.physOf(st, tags)
          const list = this.viewList(st, tags)
          await tx.exec(`INSERT INTO ${this.phys(db, tags ? `${st.name}$tags` : st.name)} (${list}) SELECT ${list} FROM ${p.table} WHERE ${p.rows}`)
        }
        await this.clearShared(tx, st, unused)
        await this.saveStable(tx, own)
      })
    } catch (err) {
      this.routeShared(st)
      this.shapes.forget(db)
      throw err
    }
    mapOf(this.stables, db).set(st.name, own)
    // its children keep their tids; new ones continue above them
    let max = 0
    for (const t of this.tables.get(db)?.values() ?? []) {
      if (t.kind === 'child' && t.stable === st.name) {
        max = Math.max(max, t.tid)
      }
    }
    this.nextTid.set(`${db}\u0000${st.name}`, max + 1)
    return own
  }

  protected abstract saveStable(tx: Engine, st: StableInfo): Promise<void>
}
