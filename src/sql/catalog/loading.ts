import type { DatabaseInfo, StableInfo, TableInfo } from '../../storage/td-types.js'
import type { Engine } from '../../storage/types.js'
import { hashPassword } from './passwords.js'
import { rootPasswordDiffers, type RootPasswordOptions } from './root-password.js'
import { DATABASES_SELECT, STABLES_SELECT, rowToDb, rowToPrivilege, rowToStable, rowToTable, rowToUser, type UserRecord } from './row-codecs.js'
import { childTidKey } from './shared-tables.js'
import { CATALOG_LOCK, CatalogState } from './state.js'
import { mapOf, VersionedMap } from './versioned-map.js'

/**
 * Loading the catalog: creating its tables and the root user, reading every row into the cache,
 * retrying in the background while storage is unavailable at start, and re-reading it when
 * another replica changed it.
 */

const MISS_REFRESH_MS = 250

export abstract class LoadingCatalog extends CatalogState {
  private closed = false
  private retryTimer: NodeJS.Timeout | undefined
  private readonly loadWaiters: Array<{ resolve: () => void; reject: (e: unknown) => void }> = []
  private lastMissRefresh = 0
  private missRefresh: Promise<boolean> | undefined
  unsubscribe: (() => void) | undefined
  private refreshing = false
  private refreshAgain = false

  loaded(): boolean {
    return this.isLoaded
  }

  whenLoaded(): Promise<void> {
    if (this.isLoaded) {
      return Promise.resolve()
    }
    return new Promise((resolve, reject) => {
      this.loadWaiters.push({ resolve, reject })
    })
  }

  close(): void {
    this.closed = true
    clearTimeout(this.retryTimer)
    this.unsubscribe?.()
    for (const w of this.loadWaiters.splice(0)) {
      w.reject(new Error('catalog closed before it was loaded'))
    }
  }

  /** Background retries of `init` while storage is unavailable at start (backoff up to 5 s). */
  retryInit(root: RootPasswordOptions, firstError: unknown, delayMs: number): void {
    this.loadError = firstError
    const attempt = (delay: number): void => {
      if (this.closed) {
        return
      }
      this.retryTimer = setTimeout(() => {
        this.init(root).then(
          () => {
            // loaded; waiters resolved by init
          },
          (err: unknown) => {
            this.loadError = err
            attempt(Math.min(delay * 2, 5_000))
          },
        )
      }, delay)
      this.retryTimer.unref()
    }
    attempt(delayMs)
  }


  /**
   * Coalesced background re-read for NOTIFYs: a burst of changes from another replica costs one
   * reload in flight plus at most one after it, not one per notification.
   */
  refreshSoon(): void {
    if (this.refreshing) {
      this.refreshAgain = true
      return
    }
    this.refreshing = true
    const run = (): void => {
      this.refreshAgain = false
      this.refresh()
        .catch(() => {
          // the next change or a resync retries; requests keep the old cache meanwhile
        })
        .finally(() => {
          if (this.refreshAgain && !this.closed) {
            run()
          } else {
            this.refreshing = false
          }
        })
    }
    run()
  }

  async refreshOnMiss(): Promise<boolean> {
    if (!this.isLoaded || !this.shared()) {
      return false
    }
    if (this.missRefresh) {
      return this.missRefresh
    }
    if (Date.now() - this.lastMissRefresh < MISS_REFRESH_MS) {
      return false
    }
    this.lastMissRefresh = Date.now()
    this.missRefresh = this.refresh()
      .then(() => true)
      .finally(() => {
        this.missRefresh = undefined
      })
    return this.missRefresh
  }

  async init(root: RootPasswordOptions): Promise<void> {
    const cs = this.d.quoteIdent(this.d.catalogSchema)
    const lock = this.hooks.withAdvisoryLock
    // CREATE ... IF NOT EXISTS is not race-free between processes on PostgreSQL (two replicas
    // starting together can both insert into pg_namespace): the catalog lock serialises them
    const inTx = <T>(fn: (tx: Engine) => Promise<T>): Promise<T> =>
      typeof lock === 'function' ? lock.call(this.engine, CATALOG_LOCK, fn) as Promise<T> : this.engine.transaction(fn)
    await inTx(async (tx) => {
      await tx.exec(`CREATE SCHEMA IF NOT EXISTS ${cs}`)
      for (const sql of this.d.setupSql?.() ?? []) {
        await tx.exec(sql)
      }
      await tx.exec(
        `CREATE TABLE IF NOT EXISTS ${this.cat('databases')} (name VARCHAR PRIMARY KEY, prec VARCHAR NOT NULL, vgroups INTEGER NOT NULL, first_vgid INTEGER NOT NULL, options VARCHAR NOT NULL, created_at BIGINT NOT NULL)`,
      )
      await tx.exec(
        `CREATE TABLE IF NOT EXISTS ${this.cat('stables')} (db VARCHAR NOT NULL, name VARCHAR NOT NULL, columns VARCHAR NOT NULL, tags VARCHAR NOT NULL, created_at BIGINT NOT NULL, comment VARCHAR, PRIMARY KEY (db, name))`,
      )
      await tx.exec(
        `CREATE TABLE IF NOT EXISTS ${this.cat('tables')} (db VARCHAR NOT NULL, name VARCHAR NOT NULL, kind VARCHAR NOT NULL, tid INTEGER NOT NULL, stable VARCHAR, tags VARCHAR, columns VARCHAR, ttl INTEGER NOT NULL, created_at BIGINT NOT NULL, comment VARCHAR, PRIMARY KEY (db, name))`,
      )
      await tx.exec(
        `CREATE TABLE IF NOT EXISTS ${this.cat('users')} (name VARCHAR PRIMARY KEY, hash VARCHAR NOT NULL, is_super BOOLEAN NOT NULL, enabled BOOLEAN NOT NULL, sysinfo BOOLEAN NOT NULL, createdb BOOLEAN NOT NULL, created_at BIGINT NOT NULL)`,
      )
      await tx.exec(
        `CREATE TABLE IF NOT EXISTS ${this.cat('privileges')} (usr VARCHAR NOT NULL, db VARCHAR NOT NULL, privilege VARCHAR NOT NULL, created_at BIGINT NOT NULL, PRIMARY KEY (usr, db, privilege))`,
      )
      // catalogs written before databases had owners: those databases are root's (NULL reads as root)
      await tx.exec(`ALTER TABLE ${this.cat('databases')} ADD COLUMN IF NOT EXISTS owner VARCHAR`)
      // catalogs written before super tables could share tables: every one has tables of its own (NULL)
      await tx.exec(`ALTER TABLE ${this.cat('stables')} ADD COLUMN IF NOT EXISTS layout VARCHAR`)
    })
    // the root user exists before the catalog counts as loaded: no request may see it missing;
    // a given --auth.rootPassword replaces a different stored one (root-password.ts)
    const hash = await hashPassword(root.rootPassword)
    let applied = false
    await this.mutex.run(() =>
      inTx(async () => {
        await this.load()
        const stored = this.users.get('root')
        if (!stored) {
          const u: UserRecord = { name: 'root', hash, super: true, enable: true, sysinfo: true, createdb: true, createdAt: Date.now() }
          await this.engine.exec(
            `INSERT INTO ${this.cat('users')} (name, hash, is_super, enabled, sysinfo, createdb, created_at) VALUES ('root', ${this.s(hash)}, TRUE, TRUE, TRUE, TRUE, ${u.createdAt})`,
          )
          this.users.set('root', u)
        } else if (await rootPasswordDiffers(root, stored.hash)) {
          await this.engine.exec(`UPDATE ${this.cat('users')} SET hash = ${this.s(hash)} WHERE name = 'root'`)
          this.users.set('root', { ...stored, hash })
          this.authCache.delete('root')
          // running replicas re-read the user (they would accept the old password until then)
          await this.hooks.notifyCatalogChange?.('catalog')
          applied = true
        }
      }),
    )
    if (applied) {
      root.onRootPasswordApplied?.()
    }
    this.isLoaded = true
    this.loadError = undefined
    for (const w of this.loadWaiters.splice(0)) {
      w.resolve()
    }
  }

  protected async load(): Promise<void> {
    const dbs = new Map<string, DatabaseInfo>()
    for (const r of await this.engine.query(
      `SELECT ${DATABASES_SELECT} FROM ${this.cat('databases')}`,
    )) {
      const info = rowToDb(r)
      dbs.set(info.name, info)
    }
    const stables = new VersionedMap<Map<string, StableInfo>>(this.changed)
    for (const r of await this.engine.query(
      `SELECT ${STABLES_SELECT} FROM ${this.cat('stables')}`,
    )) {
      const info = rowToStable(r)
      mapOf(stables, info.db).set(info.name, info)
    }
    const tables = new VersionedMap<Map<string, TableInfo>>(this.changed)
    const nextTid = new Map<string, number>()
    for (const r of await this.engine.query(
      `SELECT db, name, kind, tid, stable, tags, columns, ttl, created_at, comment FROM ${this.cat('tables')}`,
    )) {
      const info = rowToTable(r)
      mapOf(tables, info.db).set(info.name, info)
      const key = info.kind === 'child' ? childTidKey(info.db, stables.get(info.db)?.get(info.stable as string), info.stable as string) : `${info.db}\u0000`
      nextTid.set(key, Math.max(nextTid.get(key) ?? 1, info.tid + 1))
    }
    const users = new Map<string, UserRecord>()
    for (const r of await this.engine.query(
      `SELECT name, hash, is_super, enabled, sysinfo, createdb, created_at FROM ${this.cat('users')}`,
    )) {
      const u = rowToUser(r)
      users.set(u.name, u)
    }
    const privileges = (await this.engine.query(`SELECT usr, db, privilege, created_at FROM ${this.cat('privileges')}`)).map(rowToPrivilege)
    this.dbs = dbs
    this.setGrants(privileges)
    this.stables = stables
    this.tables = tables
    this.changed()
    this.tagIndexes.clear()
    this.shapes.clear()
    const routes = this.engine.routes
    if (routes !== undefined) {
      routes.clear()
      for (const byName of stables.values()) {
        for (const st of byName.values()) {
          this.routeShared(st)
        }
      }
    }
    this.nextTid = nextTid
    this.users = users
    // no clear of authCache: its entries are checked against each user's stored hash and enable
    // flag, so a reload (every NOTIFY from another replica) keeps the logins that are still valid
  }

  async refresh(): Promise<void> {
    // embedded DuckDB has a single writer: this process; a shared server may have others
    if (this.shared() && this.isLoaded) {
      await this.mutex.run(() => this.load())
    }
  }
}
