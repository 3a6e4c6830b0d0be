import type { StableInfo, TableInfo } from '../../storage/td-types.js'
import { TdError } from '../../td-error.js'
import { DATABASES_SELECT, STABLES_SELECT, INSERT_ROWS_PER_STATEMENT, rowToDb, rowToPrivilege, rowToStable, rowToTable, rowToUser, slices } from './row-codecs.js'
import { CATALOG_LOCK } from './state.js'
import { LoadingCatalog } from './loading.js'
import { mapOf } from './versioned-map.js'

/**
 * Mutations on a database shared by several replicas: each runs inside the `catalog` advisory lock,
 * first re-reading the catalog rows it depends on (another replica may have changed them a moment
 * ago), and NOTIFYs the other replicas at commit. On embedded storage a mutation just runs under
 * the mutex.
 */
export abstract class ReplicaSyncedCatalog extends LoadingCatalog {
  /**
   * A catalog mutation. On a shared database: inside one transaction holding the `catalog`
   * advisory lock, `sync` first re-reads the rows the mutation depends on (so existence checks
   * see what other replicas committed), then `fn`, then a NOTIFY delivered at commit.
   */
  protected async mutate<T>(fn: () => Promise<T>, sync?: () => Promise<void>): Promise<T> {
    this.ready()
    return this.mutex.run(async () => {
      const lock = this.hooks.withAdvisoryLock
      if (typeof lock !== 'function') {
        return fn()
      }
      try {
        return (await lock.call(this.engine, CATALOG_LOCK, async () => {
          if (sync) {
            await sync()
          }
          const result = await fn()
          if (typeof this.hooks.notifyCatalogChange === 'function') {
            await this.hooks.notifyCatalogChange('catalog')
          }
          return result
        })) as T
      } catch (err) {
        if (!(err instanceof TdError)) {
          // the outer transaction may have rolled back after fn updated the cache: re-read it
          this.load().catch(() => {
            // the next NOTIFY resync or mutation re-reads
          })
        }
        throw err
      }
    })
  }

  // ---- re-reads of single entries inside the advisory lock (shared databases only) ----------

  protected async syncDatabases(): Promise<void> {
    const rows = await this.engine.query(
      `SELECT ${DATABASES_SELECT} FROM ${this.cat('databases')}`,
    )
    const seen = new Set<string>()
    let changed = false
    for (const r of rows) {
      const info = rowToDb(r)
      seen.add(info.name)
      const cur = this.dbs.get(info.name)
      if (!cur || cur.createdAt !== info.createdAt) {
        // new, or dropped and re-created elsewhere: nothing cached under it is valid
        this.forgetDb(info.name)
        this.dbs.set(info.name, info)
        changed = true
      }
    }
    for (const name of [...this.dbs.keys()]) {
      if (!seen.has(name)) {
        this.forgetDb(name)
        changed = true
      }
    }
    if (changed) {
      // grants on a database dropped or re-created elsewhere went with it
      await this.syncPrivileges()
    }
  }

  protected forgetDb(name: string): void {
    this.dbs.delete(name)
    this.stables.delete(name)
    this.tables.delete(name)
    this.tagIndexes.forget(name)
    for (const k of [...this.nextTid.keys()]) {
      if (k.startsWith(`${name}\u0000`)) {
        this.nextTid.delete(k)
      }
    }
  }

  protected async syncStables(db: string, names: string[]): Promise<void> {
    const uniq = [...new Set(names)]
    if (uniq.length === 0) {
      return
    }
    const found = new Map<string, StableInfo>()
    for (const part of slices(uniq, INSERT_ROWS_PER_STATEMENT)) {
      for (const r of await this.engine.query(
        `SELECT ${STABLES_SELECT} FROM ${this.cat('stables')} WHERE db = ${this.s(db)} AND name IN (${part.map((n) => this.s(n)).join(', ')})`,
      )) {
        const info = rowToStable(r)
        found.set(info.name, info)
      }
    }
    for (const name of uniq) {
      const info = found.get(name)
      const cur = this.stables.get(db)?.get(name)
      if (info) {
        mapOf(this.stables, db).set(name, info)
        if (cur && cur.createdAt !== info.createdAt) {
          this.forgetChildren(db, name)
        }
      } else if (cur) {
        this.stables.get(db)?.delete(name)
        this.forgetChildren(db, name)
      }
    }
  }

  protected forgetChildren(db: string, stable: string): void {
    const tbls = this.tables.get(db)
    if (tbls) {
      for (const [k, t] of tbls) {
        if (t.kind === 'child' && t.stable === stable) {
          tbls.delete(k)
        }
      }
    }
    this.nextTid.delete(`${db}\u0000${stable}`)
    this.tagIndexes.forget(db, stable)
  }

  protected async syncTables(db: string, names: string[]): Promise<void> {
    const uniq = [...new Set(names)]
    const found = new Map<string, TableInfo>()
    for (const part of slices(uniq, INSERT_ROWS_PER_STATEMENT)) {
      for (const r of await this.engine.query(
        `SELECT db, name, kind, tid, stable, tags, columns, ttl, created_at, comment FROM ${this.cat('tables')} WHERE db = ${this.s(db)} AND name IN (${part.map((n) => this.s(n)).join(', ')})`,
      )) {
        const info = rowToTable(r)
        found.set(info.name, info)
      }
    }
    for (const name of uniq) {
      const info = found.get(name)
      if (info) {
        mapOf(this.tables, db).set(name, info)
      } else {
        this.tables.get(db)?.delete(name)
      }
    }
  }

  /** next free tid from the catalog rows (another replica may have allocated some) */
  protected async syncTid(db: string, stable: string | undefined): Promise<void> {
    const where =
      stable === undefined ? `kind = 'normal'` : `kind = 'child' AND stable = ${this.s(stable)}`
    const [[max]] = await this.engine.query(
      `SELECT max(tid) FROM ${this.cat('tables')} WHERE db = ${this.s(db)} AND ${where}`,
    )
    const key = stable === undefined ? `${db}\u0000` : `${db}\u0000${stable}`
    this.nextTid.set(key, max === null || max === undefined ? 1 : Number(max) + 1)
  }

  protected async syncUser(name: string): Promise<void> {
    const rows = await this.engine.query(
      `SELECT name, hash, is_super, enabled, sysinfo, createdb, created_at FROM ${this.cat('users')} WHERE name = ${this.s(name)}`,
    )
    if (rows.length === 0) {
      this.users.delete(name)
    } else {
      this.users.set(name, rowToUser(rows[0]))
    }
    this.authCache.delete(name)
  }

  /** every privilege row: grants are few, and GRANT/REVOKE/DROP re-read them inside the lock */
  protected async syncPrivileges(): Promise<void> {
    this.setGrants((await this.engine.query(`SELECT usr, db, privilege, created_at FROM ${this.cat('privileges')}`)).map(rowToPrivilege))
  }

  /** db row, the named stables and tables: what most table-level mutations depend on */
  protected syncNames(db: string, names: string[], stables: string[] = names): () => Promise<void> {
    return async () => {
      await this.syncDatabases()
      if (this.dbs.has(db)) {
        await this.syncStables(db, stables)
        await this.syncTables(db, names)
      }
    }
  }

}
