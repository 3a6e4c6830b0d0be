import { Mutex } from '../../mutex.js'
import { StorageUnavailableError } from '../../storage/errors.js'
import type { Dialect } from '../../storage/dialect.js'
import type { ColumnDef, DatabaseInfo, DbPrivilege, PrivilegeInfo, StableInfo, TableInfo } from '../../storage/td-types.js'
import type { Engine } from '../../storage/types.js'
import { TD, TdError, dbNotExist } from '../../td-error.js'
import type { UserRecord } from './row-codecs.js'
import { VersionedMap } from './versioned-map.js'
import { CredentialCache } from './credential-cache.js'
import { TagIndexes } from './tag-index.js'
import { physicalOf, SharedShapes } from './shared-tables.js'

/**
 * The persisted, in-memory-cached catalog. Written only with `Engine` + `Dialect` so it runs
 * unchanged on every backend; every mutation runs under one in-process mutex and in one engine
 * transaction (physical DDL + catalog rows commit together), so concurrent "create if not
 * exists" calls from two requests are race-free.
 *
 * On a database shared by several replicas (PostgreSQL: the engine has `withAdvisoryLock`), a
 * mutation also holds the cluster-wide advisory lock `catalog` for its transaction, re-reads the
 * catalog rows it depends on inside that lock (another replica may have created or dropped them
 * a moment ago), and NOTIFYs the other replicas at commit; they re-read the catalog.
 */

/**
 * Optional hooks of a backend shared by several replicas (the PostgreSQL engine has them:
 * LISTEN/NOTIFY). Embedded engines have none; duck-typed so `Engine` stays minimal.
 */
export interface ReplicaHooks {
  onCatalogChange?(cb: (e: { fromSelf: boolean; resync: boolean }) => void): () => void
  notifyCatalogChange?(payload?: string): Promise<void>
  withAdvisoryLock?<T>(key: string, fn: (tx: Engine) => Promise<T>): Promise<T>
}

/** advisory lock key every replica takes for catalog mutations */
export const CATALOG_LOCK = 'catalog'

/**
 * What every part of the catalog shares: the cached entries, the load state, the mutex every
 * mutation runs under, and the SQL text helpers. The parts build on it, one class each: loading
 * (LoadingCatalog) -> replica sync (ReplicaSyncedCatalog) -> super-table DDL (StableDdl) -> table
 * DDL (TableDdl) -> lookups and users (SqlCatalog, the class that is opened).
 */
export abstract class CatalogState {
  protected readonly d: Dialect
  protected changes = 0
  protected readonly changed = (): void => {
    this.changes++
  }
  protected dbs = new Map<string, DatabaseInfo>()
  /** db -> stable name -> info */
  protected stables: Map<string, Map<string, StableInfo>> = new VersionedMap(this.changed)
  /** db -> table name -> info */
  protected tables: Map<string, Map<string, TableInfo>> = new VersionedMap(this.changed)
  protected users = new Map<string, UserRecord>()
  /** `${user}\0${db}` -> granted privileges on that database */
  protected grants = new Map<string, Map<DbPrivilege, PrivilegeInfo>>()
  /** `${db}\0${stable}` -> next child tid; `${db}\0` -> next normal-table tid */
  protected nextTid = new Map<string, number>()
  /** the shared tables of each database's super tables (shared-tables.ts) */
  protected readonly shapes = new SharedShapes(
    (db) => this.stables.get(db)?.values() ?? [],
    (st) => this.shapeOf(st),
  )
  /** tag value -> children, per super table filtered by tag (tag-index.ts); follows `version` */
  protected tagIndexes = new TagIndexes()
  /** credentials verified a moment ago (credential-cache.ts) */
  protected authCache = new CredentialCache()
  /** every mutation, load and refresh runs under it (every backend) */
  protected readonly mutex = new Mutex()
  protected isLoaded = false
  protected loadError: unknown
  protected readonly hooks: Engine & ReplicaHooks

  constructor(readonly engine: Engine) {
    this.d = engine.dialect
    this.hooks = engine as Engine & ReplicaHooks
  }

  get version(): number {
    return this.changes
  }

  /** Every public read and write goes through this until the catalog is loaded. */
  protected ready(): void {
    if (!this.isLoaded) {
      const why = this.loadError instanceof Error ? `: ${this.loadError.message}` : ''
      throw new StorageUnavailableError(`storage unavailable, the catalog is not loaded yet${why}`, {
        cause: this.loadError,
      })
    }
  }

  /** a database several processes may change (the engine takes advisory locks) */
  protected shared(): boolean {
    return typeof this.hooks.withAdvisoryLock === 'function'
  }

  // ---- helpers -------------------------------------------------------------------------------

  protected cat(table: string): string {
    return `${this.d.quoteIdent(this.d.catalogSchema)}.${this.d.quoteIdent(table)}`
  }

  protected phys(db: string, table: string): string {
    return `${this.d.quoteIdent(this.d.schemaName(db))}.${this.d.quoteIdent(table)}`
  }

  protected s(v: string): string {
    return this.d.quoteString(v)
  }

  /** `(...)` of a catalog row's text, integers and NULLs, as a VALUES list item */
  protected rowLiteral(row: Array<string | number | null>): string {
    return `(${row.map((v) => (v === null ? 'NULL' : typeof v === 'string' ? this.s(v) : String(v))).join(', ')})`
  }

  protected requireDb(db: string): DatabaseInfo {
    this.ready()
    const info = this.dbs.get(db)
    if (!info) {
      throw dbNotExist(db)
    }
    return info
  }

  protected requireStable(db: string, name: string): StableInfo {
    this.requireDb(db)
    const st = this.stables.get(db)?.get(name)
    if (!st) {
      throw new TdError(TD.MND_STB_NOT_EXIST, 'STable not exist')
    }
    return st
  }

  listPrivileges(): PrivilegeInfo[] {
    this.ready()
    return [...this.grants.values()].flatMap((m) => [...m.values()])
  }

  /** the cache of privilege rows, rebuilt from the catalog's `privileges` table */
  protected setGrants(rows: PrivilegeInfo[]): void {
    const grants = new Map<string, Map<DbPrivilege, PrivilegeInfo>>()
    for (const p of rows) {
      const key = `${p.user}\u0000${p.db}`
      let m = grants.get(key)
      if (m === undefined) {
        m = new Map()
        grants.set(key, m)
      }
      m.set(p.privilege, p)
    }
    this.grants = grants
  }

  /** the physical column lists of a super table's data and tags: its shape (shared-tables.ts) */
  protected shapeOf = (st: StableInfo): [string, string] => [this.colDefsSql(st.columns), this.colDefsSql(st.tags)]

  /** the engine's routes for a shared super table's two views (none for tables of its own) */
  protected routeShared(st: StableInfo): void {
    const routes = this.engine.routes
    if (routes !== undefined && st.shared !== undefined) {
      const schema = this.d.schemaName(st.db)
      routes.set(schema, st.name, { table: st.shared.data, stid: st.shared.stid })
      routes.set(schema, `${st.name}$tags`, { table: st.shared.tags, stid: st.shared.stid })
    }
  }

  protected unrouteShared(st: StableInfo): void {
    const routes = this.engine.routes
    if (routes !== undefined && st.shared !== undefined) {
      const schema = this.d.schemaName(st.db)
      routes.delete(schema, st.name)
      routes.delete(schema, `${st.name}$tags`)
    }
  }

  /** the physical table holding a super table's data (`tags` false) or tags, and the condition choosing its rows there */
  protected physOf(st: StableInfo, tags: boolean): { table: string; rows: string } {
    return physicalOf(this.d, st, tags)
  }

  protected allocTid(key: string): number {
    const tid = this.nextTid.get(key) ?? 1
    this.nextTid.set(key, tid + 1)
    return tid
  }

  protected colDefsSql(cols: ColumnDef[]): string {
    return cols.map((c) => `${this.d.quoteIdent(c.name)} ${this.d.columnType(c)}`).join(', ')
  }
}
