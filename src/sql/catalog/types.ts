import type { AppConfig } from '../../config/types.js'
import type { ColumnDef, DatabaseInfo, DbPrivilege, Precision, PrivilegeInfo, StableInfo, TableInfo, TagValue, UserInfo } from '../../storage/td-types.js'
import type { Engine } from '../../storage/types.js'

/** Children by tag value: `_tid`s, ascending, whose tag `tag` has one of `keys` (tag-index.ts tagKey form). */
export interface TagLookup {
  tids(tag: string, keys: string[]): number[]
}

/** One child table for `Catalog.createChildTables`. */
export interface ChildTableSpec {
  name: string
  stable: string
  tags: Record<string, TagValue>
  ttl?: number
  comment?: string
}

/**
 * The catalog: databases, super tables, tables, users. Persisted in the engine's catalog schema
 * and cached in memory; every mutation goes through here so the physical tables and the catalog
 * never disagree. Names passed in are already normalised (unquoted identifiers lower-cased by the
 * parser). Methods throw `TdError` with TDengine codes (897 db exists, 904 db missing, 864/866
 * stable exists/missing, 1539 table exists, 9731 table missing, 848/849 user exists/missing ...).
 */
export interface Catalog {
  readonly engine: Engine
  /**
   * Changes whenever a super table or table is added, replaced or removed, or a child's tags
   * change: a name looked up while it is unchanged still names the same object (the columnar lane
   * keeps resolved child tables on this, SeriesTargets; the tag indexes follow it).
   */
  readonly version: number

  // databases
  listDatabases(): DatabaseInfo[]
  getDatabase(name: string): DatabaseInfo | undefined
  /** options: lower-case option name -> value as written (numbers, strings, 'KEEP' lists as text) */
  createDatabase(
    name: string,
    options: { precision?: Precision; vgroups?: number; [k: string]: unknown },
    ifNotExists: boolean,
    /** who creates it: the owner, who may drop and alter it and read and write it without grants (default root) */
    owner?: string,
  ): Promise<void>
  dropDatabase(name: string, ifExists: boolean): Promise<void>

  // super tables
  listStables(db: string): StableInfo[]
  getStable(db: string, name: string): StableInfo | undefined
  createStable(
    db: string,
    name: string,
    columns: ColumnDef[],
    tags: ColumnDef[],
    ifNotExists: boolean,
    comment?: string,
  ): Promise<void>
  dropStable(db: string, name: string, ifExists: boolean): Promise<void>
  addStableColumn(db: string, stable: string, col: ColumnDef, isTag: boolean): Promise<void>
  /** several columns or tags in one transaction: all are added or none */
  addStableColumns(db: string, stable: string, cols: ColumnDef[], isTag: boolean): Promise<void>
  dropStableColumn(db: string, stable: string, name: string, isTag: boolean): Promise<void>
  /** widen a VARCHAR/NCHAR column or tag (never shrinks) */
  widenColumn(db: string, table: string, name: string, length: number): Promise<void>

  // child and normal tables
  listTables(db: string): TableInfo[]
  getTable(db: string, name: string): TableInfo | undefined
  /** how many super tables and tables (child and normal) database `db` holds, without listing them */
  tableCounts(db: string): { stables: number; tables: number }
  /**
   * The children of super table `stable` by tag value (tag-index.ts), for the planner's
   * `tag = literal` filters; undefined when the super table does not exist. Optional: a catalog
   * without it keeps the tag join.
   */
  tagIndex?(db: string, stable: string): TagLookup | undefined
  /** creates a child table; returns existing info when ifNotExists and it exists */
  createChildTable(
    db: string,
    name: string,
    stable: string,
    tags: Record<string, TagValue>,
    ifNotExists: boolean,
    ttl?: number,
    comment?: string,
  ): Promise<TableInfo>
  /**
   * Creates many children in one transaction (one statement per 500 rows), all or none; returns
   * one info per spec in order (existing ones when ifNotExists). Much faster than a loop of
   * createChildTable when an INSERT or a schemaless batch auto-creates many tables.
   */
  createChildTables?(db: string, tables: ChildTableSpec[], ifNotExists: boolean): Promise<TableInfo[]>
  createNormalTable(
    db: string,
    name: string,
    columns: ColumnDef[],
    ifNotExists: boolean,
    ttl?: number,
    comment?: string,
  ): Promise<TableInfo>
  dropTable(db: string, name: string, ifExists: boolean): Promise<void>
  setTags(db: string, child: string, tags: Record<string, TagValue>): Promise<void>
  addTableColumn(db: string, table: string, col: ColumnDef): Promise<void>
  dropTableColumn(db: string, table: string, name: string): Promise<void>
  /** RENAME TAG of a super table (isTag) or RENAME COLUMN of a normal table */
  renameColumn(db: string, table: string, from: string, to: string, isTag: boolean): Promise<void>
  /** COMMENT of a super table or table */
  setComment(db: string, name: string, comment: string): Promise<void>
  /** ALTER DATABASE: merges options (lower-case name -> value) into the stored ones */
  alterDatabase(name: string, options: Record<string, string | number>): Promise<void>

  // users (passwords hashed with scrypt, never stored or logged in clear)
  listUsers(): UserInfo[]
  /** one user by name (every request's privilege check asks: no list is built) */
  getUser(name: string): UserInfo | undefined
  createUser(name: string, password: string, opts?: Partial<UserInfo>): Promise<void>
  alterUserPassword(name: string, password: string): Promise<void>
  alterUser(name: string, opts: Partial<UserInfo>): Promise<void>
  dropUser(name: string): Promise<void>
  /**
   * true when the user exists, is enabled and the password matches. Verified credentials are
   * cached (credential-cache.ts); a miss runs scrypt in the process's bounded queue, in turns fair
   * across `client`s (an address, a receiver), and throws QueueFullError when that queue is full.
   */
  verifyUser(name: string, password: string, client?: string): Promise<boolean>
  /** true when verifyUser would answer true from its cache, without any work */
  isVerified(name: string, password: string): boolean

  // privileges on databases (GRANT / REVOKE); the rules that apply them are in access.ts
  listPrivileges(): PrivilegeInfo[]
  /** what `user` was granted on `db`, nothing more (ownership and super users are access.ts' business) */
  granted(user: string, db: string): { read: boolean; write: boolean }
  grant(user: string, db: string, privileges: DbPrivilege[]): Promise<void>
  revoke(user: string, db: string, privileges: DbPrivilege[]): Promise<void>

  /** re-read the catalog from storage when another replica changed it (no-op on embedded storage) */
  refresh(): Promise<void>
}

/** A catalog that may still be loading: `loaded()` is false until the first successful load. */
export interface LoadableCatalog extends Catalog {
  loaded(): boolean
  /** resolves once loaded (or rejects when closed first) */
  whenLoaded(): Promise<void>
  /** re-read the catalog when a lookup missed, at most once per `MISS_REFRESH_MS`; true when it re-read */
  refreshOnMiss(): Promise<boolean>
  /** stop background retries and listeners */
  close(): void
}

/**
 * An opened backend with its catalog. On PostgreSQL the catalog may still be loading (the
 * database was down at start): until it is, catalog calls throw StorageUnavailableError (503).
 */
export interface Storage {
  engine: Engine
  catalog: Catalog
  close(): Promise<void>
  /**
   * true when requests can be served now: the catalog is loaded and the backend answers
   * (readiness, `/-/ping?action=query`). Optional for hand-built Storage objects in tests.
   */
  healthy?(): Promise<boolean>
}

export interface StorageOptions {
  rootPassword: string
  /** the operator set `rootPassword` (--auth.rootPassword given): a different stored one is replaced (root-password.ts) */
  rootPasswordGiven?: boolean
  /** called when the stored root password was replaced by the given one */
  onRootPasswordApplied?: () => void
  pool?: AppConfig['pool']
  /** DuckDB memory_limit, bytes (src/monitor/memory-budget.ts) */
  memoryLimitBytes?: number
  /** the engine's background work that failed (DuckDB checkpoints), for the log */
  onBackgroundFailure?: (what: string, err: unknown) => void
}
