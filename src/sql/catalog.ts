import { randomBytes, scrypt as scryptCb, timingSafeEqual, createHash } from 'node:crypto'
import type { Catalog, ChildTableSpec } from './catalog-types.js'
import { TD, TdError, dbNotExist, tableNotExist } from '../td-error.js'
import { durationTicks } from './time.js'
import { ownedString } from '../owned-string.js'
import { StorageUnavailableError, isStorageUnavailable } from '../storage/errors.js'
import type { Engine } from '../storage/types.js'
import type { Dialect } from '../storage/dialect.js'
import type {
  ColumnDef,
  DatabaseInfo,
  Precision,
  StableInfo,
  TableInfo,
  TagValue,
  UserInfo,
} from '../storage/td-types.js'

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

/** Defaults shown by ins_databases / SHOW CREATE DATABASE when an option is not given. */
export const DEFAULT_DB_OPTIONS: Readonly<Record<string, string | number>> = {
  vgroups: 2,
  replica: 1,
  strict: 'off',
  duration: '10d',
  keep: '3650d,3650d,3650d',
  buffer: 256,
  pagesize: 4,
  pages: 256,
  minrows: 100,
  maxrows: 4096,
  comp: 2,
  precision: 'ms',
  single_stable: 0,
  cachemodel: 'none',
  cachesize: 1,
  wal_level: 1,
  wal_fsync_period: 3000,
  wal_retention_period: 3600,
  wal_retention_size: 0,
  stt_trigger: 1,
  table_prefix: 0,
  table_suffix: 0,
  tsdb_pagesize: 4,
  keep_time_offset: 0,
}

const PRECISIONS: readonly Precision[] = ['ms', 'us', 'ns']
const AUTH_CACHE_MS = 60_000
const SCRYPT_N = 16384
const SCRYPT_R = 8
const SCRYPT_P = 1
const SCRYPT_LEN = 32

function scrypt(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCb(password, salt, SCRYPT_LEN, { N: n, r, p, maxmem: 64 * 1024 * 1024 }, (err, key) => {
      if (err) {
        reject(err)
      } else {
        resolve(key)
      }
    })
  })
}

async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16)
  const key = await scrypt(password, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P)
  return `scrypt$${SCRYPT_N}$${SCRYPT_R}$${SCRYPT_P}$${salt.toString('base64')}$${key.toString('base64')}`
}

async function checkPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$')
  if (parts.length !== 6 || parts[0] !== 'scrypt') {
    return false
  }
  const [, n, r, p, salt, hash] = parts
  const expected = Buffer.from(hash, 'base64')
  const key = await scrypt(password, Buffer.from(salt, 'base64'), Number(n), Number(r), Number(p))
  return key.length === expected.length && timingSafeEqual(key, expected)
}

function sha256(s: string): Buffer {
  return createHash('sha256').update(s).digest()
}

/** Tag values as JSON text: bigint and JSON-tag objects get a wrapper so they round-trip. */
function encodeTags(tags: Record<string, TagValue>): string {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(tags)) {
    if (typeof v === 'bigint') {
      out[k] = { b: v.toString() }
    } else if (v !== null && typeof v === 'object') {
      out[k] = { j: v }
    } else {
      out[k] = v
    }
  }
  return JSON.stringify(out)
}

function decodeTags(text: string): Record<string, TagValue> {
  const raw = JSON.parse(text) as Record<string, unknown>
  const out: Record<string, TagValue> = {}
  for (const [k, v] of Object.entries(raw)) {
    if (v !== null && typeof v === 'object') {
      const o = v as { b?: string; j?: Record<string, unknown> }
      out[k] = o.b !== undefined ? BigInt(o.b) : (o.j ?? null)
    } else {
      out[k] = v as TagValue
    }
  }
  return out
}

/** the columns of the catalog's `tables` table, in its order (rows for it are built in this order) */
const TABLES_COLUMNS = ['db', 'name', 'kind', 'tid', 'stable', 'tags', 'columns', 'ttl', 'created_at', 'comment']

/** tag types stored as text (VARCHAR in every dialect) */
function isTextTag(col: ColumnDef): boolean {
  return col.type === 'VARCHAR' || col.type === 'NCHAR' || col.type === 'JSON'
}

/** A text tag's (isTextTag) stored value. */
function textTag(col: ColumnDef, v: TagValue | undefined): string | null {
  if (v === null || v === undefined) {
    return null
  }
  if (col.type === 'JSON') {
    return typeof v === 'string' ? v : JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x))
  }
  return typeof v === 'object' ? JSON.stringify(v) : String(v)
}

/** SQL literal of a tag value for the `$tags` physical table. */
function tagLiteral(d: Dialect, col: ColumnDef, v: TagValue | undefined): string {
  if (v === null || v === undefined) {
    return 'NULL'
  }
  switch (col.type) {
    case 'JSON':
    case 'VARCHAR':
    case 'NCHAR':
      return d.quoteString(textTag(col, v) as string)
    case 'BOOL':
      return v === true || v === 1 || v === 'true' ? 'TRUE' : 'FALSE'
    case 'FLOAT':
    case 'DOUBLE': {
      const n = Number(v)
      if (!Number.isFinite(n)) {
        throw new TdError(TD.PAR_WRONG_VALUE_TYPE, `Invalid value for tag ${col.name}`)
      }
      return `CAST(${String(n)} AS ${d.columnType(col)})`
    }
    default: {
      // integers and TIMESTAMP ticks: exact text, never through a float
      const s = typeof v === 'bigint' ? v.toString() : typeof v === 'number' ? String(Math.trunc(v)) : String(v)
      if (!/^-?\d+$/.test(s)) {
        throw new TdError(TD.PAR_WRONG_VALUE_TYPE, `Invalid value for tag ${col.name}`)
      }
      return `CAST(${s} AS ${d.columnType(col)})`
    }
  }
}

function optionValue(v: unknown): string | number {
  if (typeof v === 'number' || typeof v === 'string') {
    return v
  }
  if (typeof v === 'bigint') {
    return Number(v)
  }
  if (Array.isArray(v)) {
    return v.map(String).join(',')
  }
  return String(v)
}

interface UserRecord extends UserInfo {
  hash: string
}

/**
 * Optional hooks of a backend shared by several replicas (the PostgreSQL engine has them:
 * LISTEN/NOTIFY). Embedded engines have none; duck-typed so `Engine` stays minimal.
 */
interface ReplicaHooks {
  onCatalogChange?(cb: (e: { fromSelf: boolean; resync: boolean }) => void): () => void
  notifyCatalogChange?(payload?: string): Promise<void>
  withAdvisoryLock?<T>(key: string, fn: (tx: Engine) => Promise<T>): Promise<T>
}

/** Optional dialect hook (PostgreSQL: hypertable where TimescaleDB is installed). */
interface DataTableHook {
  afterCreateDataTable?(schema: string, table: string, tsCol: string, chunkTicks?: bigint | number): string[]
}

/** advisory lock key every replica takes for catalog mutations */
const CATALOG_LOCK = 'catalog'

export interface OpenCatalogOptions {
  rootPassword: string
  /**
   * When the catalog cannot be read because storage is unavailable: resolve anyway with a catalog
   * that keeps retrying in the background and answers StorageUnavailableError until loaded
   * (default false: reject). Errors other than unavailability always reject.
   */
  lazy?: boolean
  /** first retry delay in ms when lazy (doubles up to 5 s); default 250 */
  retryMs?: number
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

export async function openCatalog(engine: Engine, opts: OpenCatalogOptions): Promise<LoadableCatalog> {
  const c = new SqlCatalog(engine)
  const hooks = engine as Engine & ReplicaHooks
  if (typeof hooks.onCatalogChange === 'function') {
    // another replica changed the catalog (or we may have missed changes): re-read it
    c.unsubscribe = hooks.onCatalogChange((e) => {
      if ((!e.fromSelf || e.resync) && c.loaded()) {
        c.refreshSoon()
      }
    })
  }
  try {
    await c.init(opts.rootPassword)
  } catch (err) {
    if (!opts.lazy || !isStorageUnavailable(err)) {
      c.close()
      throw err
    }
    c.retryInit(opts.rootPassword, err, opts.retryMs ?? 250)
  }
  return c
}

const MISS_REFRESH_MS = 250

class SqlCatalog implements LoadableCatalog {
  private readonly d: Dialect
  private changes = 0
  private readonly changed = (): void => {
    this.changes++
  }
  private dbs = new Map<string, DatabaseInfo>()
  /** db -> stable name -> info */
  private stables: Map<string, Map<string, StableInfo>> = new VersionedMap(this.changed)
  /** db -> table name -> info */
  private tables: Map<string, Map<string, TableInfo>> = new VersionedMap(this.changed)
  private users = new Map<string, UserRecord>()
  /** `${db}\0${stable}` -> next child tid; `${db}\0` -> next normal-table tid */
  private nextTid = new Map<string, number>()
  private authCache = new Map<string, { digest: Buffer; until: number }>()
  private lock: Promise<void> = Promise.resolve()
  private isLoaded = false
  private loadError: unknown
  private closed = false
  private retryTimer: NodeJS.Timeout | undefined
  private readonly loadWaiters: Array<{ resolve: () => void; reject: (e: unknown) => void }> = []
  private lastMissRefresh = 0
  private missRefresh: Promise<boolean> | undefined
  unsubscribe: (() => void) | undefined
  private readonly hooks: Engine & ReplicaHooks

  constructor(readonly engine: Engine) {
    this.d = engine.dialect
    this.hooks = engine as Engine & ReplicaHooks
  }

  loaded(): boolean {
    return this.isLoaded
  }

  get version(): number {
    return this.changes
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
  retryInit(rootPassword: string, firstError: unknown, delayMs: number): void {
    this.loadError = firstError
    const attempt = (delay: number): void => {
      if (this.closed) {
        return
      }
      this.retryTimer = setTimeout(() => {
        this.init(rootPassword).then(
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

  /** Every public read and write goes through this until the catalog is loaded. */
  private ready(): void {
    if (!this.isLoaded) {
      const why = this.loadError instanceof Error ? `: ${this.loadError.message}` : ''
      throw new StorageUnavailableError(`storage unavailable, the catalog is not loaded yet${why}`, {
        cause: this.loadError,
      })
    }
  }

  private refreshing = false
  private refreshAgain = false

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

  /** a database several processes may change (the engine takes advisory locks) */
  private shared(): boolean {
    return typeof this.hooks.withAdvisoryLock === 'function'
  }

  // ---- helpers -------------------------------------------------------------------------------

  private cat(table: string): string {
    return `${this.d.quoteIdent(this.d.catalogSchema)}.${this.d.quoteIdent(table)}`
  }

  private phys(db: string, table: string): string {
    return `${this.d.quoteIdent(this.d.schemaName(db))}.${this.d.quoteIdent(table)}`
  }

  private s(v: string): string {
    return this.d.quoteString(v)
  }

  /** `(...)` of a catalog row's text, integers and NULLs, as a VALUES list item */
  private rowLiteral(row: Array<string | number | null>): string {
    return `(${row.map((v) => (v === null ? 'NULL' : typeof v === 'string' ? this.s(v) : String(v))).join(', ')})`
  }

  /** Runs fn under the in-process mutex (every backend). */
  private async serial<T>(fn: () => Promise<T>): Promise<T> {
    let release!: () => void
    const next = new Promise<void>((r) => {
      release = r
    })
    const prev = this.lock
    this.lock = prev.then(() => next)
    await prev
    try {
      return await fn()
    } finally {
      release()
    }
  }

  /**
   * A catalog mutation. On a shared database: inside one transaction holding the `catalog`
   * advisory lock, `sync` first re-reads the rows the mutation depends on (so existence checks
   * see what other replicas committed), then `fn`, then a NOTIFY delivered at commit.
   */
  private async mutate<T>(fn: () => Promise<T>, sync?: () => Promise<void>): Promise<T> {
    this.ready()
    return this.serial(async () => {
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

  private async syncDatabases(): Promise<void> {
    const rows = await this.engine.query(
      `SELECT name, prec, vgroups, first_vgid, options, created_at FROM ${this.cat('databases')}`,
    )
    const seen = new Set<string>()
    for (const r of rows) {
      const info = rowToDb(r)
      seen.add(info.name)
      const cur = this.dbs.get(info.name)
      if (!cur || cur.createdAt !== info.createdAt) {
        // new, or dropped and re-created elsewhere: nothing cached under it is valid
        this.forgetDb(info.name)
        this.dbs.set(info.name, info)
      }
    }
    for (const name of [...this.dbs.keys()]) {
      if (!seen.has(name)) {
        this.forgetDb(name)
      }
    }
  }

  private forgetDb(name: string): void {
    this.dbs.delete(name)
    this.stables.delete(name)
    this.tables.delete(name)
    for (const k of [...this.nextTid.keys()]) {
      if (k.startsWith(`${name}\u0000`)) {
        this.nextTid.delete(k)
      }
    }
  }

  private async syncStables(db: string, names: string[]): Promise<void> {
    const uniq = [...new Set(names)]
    if (uniq.length === 0) {
      return
    }
    const found = new Map<string, StableInfo>()
    for (const part of slices(uniq, INSERT_ROWS_PER_STATEMENT)) {
      for (const r of await this.engine.query(
        `SELECT db, name, columns, tags, created_at, comment FROM ${this.cat('stables')} WHERE db = ${this.s(db)} AND name IN (${part.map((n) => this.s(n)).join(', ')})`,
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

  private forgetChildren(db: string, stable: string): void {
    const tbls = this.tables.get(db)
    if (tbls) {
      for (const [k, t] of tbls) {
        if (t.kind === 'child' && t.stable === stable) {
          tbls.delete(k)
        }
      }
    }
    this.nextTid.delete(`${db}\u0000${stable}`)
  }

  private async syncTables(db: string, names: string[]): Promise<void> {
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
  private async syncTid(db: string, stable: string | undefined): Promise<void> {
    const where =
      stable === undefined ? `kind = 'normal'` : `kind = 'child' AND stable = ${this.s(stable)}`
    const [[max]] = await this.engine.query(
      `SELECT max(tid) FROM ${this.cat('tables')} WHERE db = ${this.s(db)} AND ${where}`,
    )
    const key = stable === undefined ? `${db}\u0000` : `${db}\u0000${stable}`
    this.nextTid.set(key, max === null || max === undefined ? 1 : Number(max) + 1)
  }

  private async syncUser(name: string): Promise<void> {
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

  /** db row, the named stables and tables: what most table-level mutations depend on */
  private syncNames(db: string, names: string[], stables: string[] = names): () => Promise<void> {
    return async () => {
      await this.syncDatabases()
      if (this.dbs.has(db)) {
        await this.syncStables(db, stables)
        await this.syncTables(db, names)
      }
    }
  }

  /** runs the dialect's post-create statements (hypertable) in the creating transaction */
  private async afterCreateDataTable(tx: Engine, db: string, table: string, tsCol: string): Promise<void> {
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

  async init(rootPassword: string): Promise<void> {
    const cs = this.d.quoteIdent(this.d.catalogSchema)
    const lock = this.hooks.withAdvisoryLock
    // CREATE ... IF NOT EXISTS is not race-free between processes on PostgreSQL (two replicas
    // starting together can both insert into pg_namespace): the catalog lock serialises them
    const inTx = <T>(fn: (tx: Engine) => Promise<T>): Promise<T> =>
      typeof lock === 'function' ? lock.call(this.engine, CATALOG_LOCK, fn) as Promise<T> : this.engine.transaction(fn)
    await inTx(async (tx) => {
      await tx.exec(`CREATE SCHEMA IF NOT EXISTS ${cs}`)
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
    })
    // the root user exists before the catalog counts as loaded: no request may see it missing
    const hash = await hashPassword(rootPassword)
    await this.serial(() =>
      inTx(async () => {
        await this.load()
        if (!this.users.has('root')) {
          const u: UserRecord = { name: 'root', hash, super: true, enable: true, sysinfo: true, createdb: true, createdAt: Date.now() }
          await this.engine.exec(
            `INSERT INTO ${this.cat('users')} (name, hash, is_super, enabled, sysinfo, createdb, created_at) VALUES ('root', ${this.s(hash)}, TRUE, TRUE, TRUE, TRUE, ${u.createdAt})`,
          )
          this.users.set('root', u)
        }
      }),
    )
    this.isLoaded = true
    this.loadError = undefined
    for (const w of this.loadWaiters.splice(0)) {
      w.resolve()
    }
  }

  private async load(): Promise<void> {
    const dbs = new Map<string, DatabaseInfo>()
    for (const r of await this.engine.query(
      `SELECT name, prec, vgroups, first_vgid, options, created_at FROM ${this.cat('databases')}`,
    )) {
      const info = rowToDb(r)
      dbs.set(info.name, info)
    }
    const stables = new VersionedMap<Map<string, StableInfo>>(this.changed)
    for (const r of await this.engine.query(
      `SELECT db, name, columns, tags, created_at, comment FROM ${this.cat('stables')}`,
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
      const key = info.kind === 'child' ? `${info.db}\u0000${info.stable}` : `${info.db}\u0000`
      nextTid.set(key, Math.max(nextTid.get(key) ?? 1, info.tid + 1))
    }
    const users = new Map<string, UserRecord>()
    for (const r of await this.engine.query(
      `SELECT name, hash, is_super, enabled, sysinfo, createdb, created_at FROM ${this.cat('users')}`,
    )) {
      const u = rowToUser(r)
      users.set(u.name, u)
    }
    this.dbs = dbs
    this.stables = stables
    this.tables = tables
    this.changed()
    this.nextTid = nextTid
    this.users = users
    this.authCache.clear()
  }

  async refresh(): Promise<void> {
    // embedded DuckDB has a single writer: this process; a shared server may have others
    if (this.shared() && this.isLoaded) {
      await this.serial(() => this.load())
    }
  }

  private requireDb(db: string): DatabaseInfo {
    this.ready()
    const info = this.dbs.get(db)
    if (!info) {
      throw dbNotExist(db)
    }
    return info
  }

  private requireStable(db: string, name: string): StableInfo {
    this.requireDb(db)
    const st = this.stables.get(db)?.get(name)
    if (!st) {
      throw new TdError(TD.MND_STB_NOT_EXIST, 'STable not exist')
    }
    return st
  }

  private allocTid(key: string): number {
    const tid = this.nextTid.get(key) ?? 1
    this.nextTid.set(key, tid + 1)
    return tid
  }

  private colDefsSql(cols: ColumnDef[]): string {
    return cols.map((c) => `${this.d.quoteIdent(c.name)} ${this.d.columnType(c)}`).join(', ')
  }

  // ---- databases -----------------------------------------------------------------------------

  listDatabases(): DatabaseInfo[] {
    this.ready()
    return [...this.dbs.values()]
  }

  getDatabase(name: string): DatabaseInfo | undefined {
    this.ready()
    return this.dbs.get(name)
  }

  async createDatabase(
    name: string,
    options: { precision?: Precision; vgroups?: number; [k: string]: unknown },
    ifNotExists: boolean,
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
      }
      await this.engine.transaction(async (tx) => {
        await tx.exec(`CREATE SCHEMA IF NOT EXISTS ${this.d.quoteIdent(this.d.schemaName(name))}`)
        await tx.exec(
          `INSERT INTO ${this.cat('databases')} (name, prec, vgroups, first_vgid, options, created_at) VALUES (${this.s(name)}, ${this.s(precision)}, ${vgroups}, ${info.firstVgId}, ${this.s(JSON.stringify(opts))}, ${info.createdAt})`,
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
      })
      this.forgetDb(name)
    }, () => this.syncDatabases())
  }

  // ---- super tables --------------------------------------------------------------------------

  listStables(db: string): StableInfo[] {
    this.ready()
    return [...(this.stables.get(db)?.values() ?? [])]
  }

  getStable(db: string, name: string): StableInfo | undefined {
    this.ready()
    return this.stables.get(db)?.get(name)
  }

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
      const ts = this.d.quoteIdent(columns[0].name)
      await this.engine.transaction(async (tx) => {
        await tx.exec(
          `CREATE TABLE ${this.phys(db, name)} (${this.d.quoteIdent('_tid')} INTEGER NOT NULL, ${this.colDefsSql(columns)}${this.d.dataTableKey([this.d.quoteIdent('_tid'), ts])})`,
        )
        await this.afterCreateDataTable(tx, db, name, columns[0].name)
        await tx.exec(
          `CREATE TABLE ${this.phys(db, `${name}$tags`)} (${this.d.quoteIdent('_tid')} INTEGER PRIMARY KEY, ${this.d.quoteIdent('tbname')} VARCHAR NOT NULL${tags.length ? `, ${this.colDefsSql(tags)}` : ''})`,
        )
        await tx.exec(
          `INSERT INTO ${this.cat('stables')} (db, name, columns, tags, created_at, comment) VALUES (${this.s(db)}, ${this.s(name)}, ${this.s(JSON.stringify(info.columns))}, ${this.s(JSON.stringify(info.tags))}, ${info.createdAt}, ${comment === undefined ? 'NULL' : this.s(comment)})`,
        )
      })
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

  private async dropStableLocked(db: string, name: string): Promise<void> {
    await this.engine.transaction(async (tx) => {
      await tx.exec(`DROP TABLE IF EXISTS ${this.phys(db, `${name}$tags`)}`)
      await tx.exec(`DROP TABLE IF EXISTS ${this.phys(db, name)}`)
      await tx.exec(
        `DELETE FROM ${this.cat('tables')} WHERE db = ${this.s(db)} AND kind = 'child' AND stable = ${this.s(name)}`,
      )
      await tx.exec(`DELETE FROM ${this.cat('stables')} WHERE db = ${this.s(db)} AND name = ${this.s(name)}`)
    })
    this.stables.get(db)?.delete(name)
    const tbls = this.tables.get(db)
    if (tbls) {
      for (const [k, t] of tbls) {
        if (t.kind === 'child' && t.stable === name) {
          tbls.delete(k)
        }
      }
    }
    this.nextTid.delete(`${db}\u0000${name}`)
  }

  private async saveStable(tx: Engine, st: StableInfo): Promise<void> {
    await tx.exec(
      `UPDATE ${this.cat('stables')} SET columns = ${this.s(JSON.stringify(st.columns))}, tags = ${this.s(JSON.stringify(st.tags))} WHERE db = ${this.s(st.db)} AND name = ${this.s(st.name)}`,
    )
  }

  async addStableColumn(db: string, stable: string, col: ColumnDef, isTag: boolean): Promise<void> {
    await this.mutate(async () => {
      const st = this.requireStable(db, stable)
      if (st.tags.some((c) => c.name === col.name)) {
        throw new TdError(TD.MND_TAG_ALREADY_EXIST, 'Tag already exists')
      }
      if (st.columns.some((c) => c.name === col.name)) {
        throw new TdError(TD.MND_COLUMN_ALREADY_EXIST, 'Column already exists')
      }
      const [added] = ownedColumns([col])
      const next: StableInfo = isTag ? { ...st, tags: [...st.tags, added] } : { ...st, columns: [...st.columns, added] }
      const target = isTag ? `${stable}$tags` : stable
      await this.engine.transaction(async (tx) => {
        await tx.exec(`ALTER TABLE ${this.phys(db, target)} ADD COLUMN ${this.colDefsSql([col])}`)
        await this.saveStable(tx, next)
      })
      mapOf(this.stables, db).set(stable, next)
      if (isTag) {
        for (const t of this.tables.get(db)?.values() ?? []) {
          if (t.kind === 'child' && t.stable === stable && t.tags) {
            t.tags[added.name] = null
          }
        }
      }
    }, this.syncNames(db, [], [stable]))
  }

  async dropStableColumn(db: string, stable: string, name: string, isTag: boolean): Promise<void> {
    await this.mutate(async () => {
      const st = this.requireStable(db, stable)
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
  private async rewriteChildTags(
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
      const st = this.stables.get(db)?.get(table)
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

  // ---- child and normal tables ---------------------------------------------------------------

  listTables(db: string): TableInfo[] {
    this.ready()
    return [...(this.tables.get(db)?.values() ?? [])]
  }

  getTable(db: string, name: string): TableInfo | undefined {
    this.ready()
    return this.tables.get(db)?.get(name)
  }

  async createChildTable(
    db: string,
    name: string,
    stable: string,
    tags: Record<string, TagValue>,
    ifNotExists: boolean,
    ttl = 0,
  ): Promise<TableInfo> {
    // fast path without the lock: auto-creating inserts hit existing children most of the time
    const existing = this.tables.get(db)?.get(name)
    if (existing && ifNotExists) {
      return existing
    }
    const [info] = await this.createChildTables(db, [{ name, stable, tags, ttl }], ifNotExists)
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
        pending.set(spec.name, info)
        fresh.push(info)
        out.push(info)
      }
      if (fresh.length === 0) {
        return out
      }
      const saved = new Map<string, number | undefined>()
      for (const info of fresh) {
        const key = `${db}\u0000${info.stable as string}`
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
            const head = `INSERT INTO ${this.phys(db, `${stable}$tags`)} (${[qi('_tid'), qi('tbname'), ...st.tags.map((t) => qi(t.name))].join(', ')}) VALUES `
            for (const part of slices(list, INSERT_ROWS_PER_STATEMENT)) {
              const values = part.map((info) => {
                const vals = st.tags.map((t) => tagLiteral(this.d, t, info.tags?.[t.name]))
                return `(${[String(info.tid), this.s(info.name), ...vals].join(', ')})`
              })
              await tx.exec(head + values.join(', '))
            }
          }
          const rows = fresh.map((info) => [db, info.name, 'child', info.tid, info.stable as string, encodeTags(info.tags ?? {}), null, info.ttl, info.createdAt, null])
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
      const tbls = mapOf(this.tables, db)
      for (const info of fresh) {
        tbls.set(info.name, info)
      }
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
      try {
        await this.engine.transaction(async (tx) => {
          await tx.exec(
            `CREATE TABLE ${this.phys(db, name)} (${this.colDefsSql(columns)}${this.d.dataTableKey([this.d.quoteIdent(columns[0].name)])})`,
          )
          await this.afterCreateDataTable(tx, db, name, columns[0].name)
          await tx.exec(
            `INSERT INTO ${this.cat('tables')} (${TABLES_COLUMNS.join(', ')}) VALUES ${this.rowLiteral([db, name, 'normal', tid, null, null, JSON.stringify(info.columns), ttl, info.createdAt, null])}`,
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
          await tx.exec(`DELETE FROM ${this.phys(db, t.stable as string)} WHERE ${qi('_tid')} = ${t.tid}`)
          await tx.exec(`DELETE FROM ${this.phys(db, `${t.stable as string}$tags`)} WHERE ${qi('_tid')} = ${t.tid}`)
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
      await this.engine.transaction(async (tx) => {
        await tx.exec(
          `UPDATE ${this.phys(db, `${st.name}$tags`)} SET ${sets.join(', ')} WHERE ${this.d.quoteIdent('_tid')} = ${t.tid}`,
        )
        await tx.exec(
          `UPDATE ${this.cat('tables')} SET tags = ${this.s(encodeTags(next))} WHERE db = ${this.s(db)} AND name = ${this.s(child)}`,
        )
      })
      t.tags = next
    }, this.syncNames(db, [child], []))
  }

  private requireNormal(db: string, table: string): TableInfo {
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

  // ---- users ---------------------------------------------------------------------------------

  listUsers(): UserInfo[] {
    this.ready()
    return [...this.users.values()].map(({ hash: _hash, ...u }) => u)
  }

  async createUser(name: string, password: string, opts: Partial<UserInfo> = {}): Promise<void> {
    const hash = await hashPassword(password)
    await this.mutate(async () => {
      if (this.users.has(name)) {
        throw new TdError(TD.MND_USER_ALREADY_EXIST, 'User already exists')
      }
      const u: UserRecord = {
        name,
        hash,
        super: opts.super ?? false,
        enable: opts.enable ?? true,
        sysinfo: opts.sysinfo ?? true,
        createdb: opts.createdb ?? false,
        createdAt: Date.now(),
      }
      await this.engine.exec(
        `INSERT INTO ${this.cat('users')} (name, hash, is_super, enabled, sysinfo, createdb, created_at) VALUES (${this.s(name)}, ${this.s(hash)}, ${u.super}, ${u.enable}, ${u.sysinfo}, ${u.createdb}, ${u.createdAt})`,
      )
      this.users.set(name, u)
    }, () => this.syncUser(name))
  }

  private requireUser(name: string): UserRecord {
    this.ready()
    const u = this.users.get(name)
    if (!u) {
      throw new TdError(TD.MND_USER_NOT_EXIST, 'Invalid user')
    }
    return u
  }

  async alterUserPassword(name: string, password: string): Promise<void> {
    this.requireUser(name)
    const hash = await hashPassword(password)
    await this.mutate(async () => {
      const u = this.requireUser(name)
      await this.engine.exec(`UPDATE ${this.cat('users')} SET hash = ${this.s(hash)} WHERE name = ${this.s(name)}`)
      u.hash = hash
      this.authCache.delete(name)
    }, () => this.syncUser(name))
  }

  async alterUser(name: string, opts: Partial<UserInfo>): Promise<void> {
    await this.mutate(async () => {
      const u = this.requireUser(name)
      const next = { ...u }
      for (const k of ['super', 'enable', 'sysinfo', 'createdb'] as const) {
        if (opts[k] !== undefined) {
          next[k] = Boolean(opts[k])
        }
      }
      await this.engine.exec(
        `UPDATE ${this.cat('users')} SET is_super = ${next.super}, enabled = ${next.enable}, sysinfo = ${next.sysinfo}, createdb = ${next.createdb} WHERE name = ${this.s(name)}`,
      )
      this.users.set(name, next)
      this.authCache.delete(name)
    }, () => this.syncUser(name))
  }

  async dropUser(name: string): Promise<void> {
    await this.mutate(async () => {
      this.requireUser(name)
      if (name === 'root') {
        throw new TdError(TD.MND_NO_RIGHTS, 'Insufficient privilege for operation')
      }
      await this.engine.exec(`DELETE FROM ${this.cat('users')} WHERE name = ${this.s(name)}`)
      this.users.delete(name)
      this.authCache.delete(name)
    }, () => this.syncUser(name))
  }

  async verifyUser(name: string, password: string): Promise<boolean> {
    this.ready()
    const u = this.users.get(name)
    if (!u || !u.enable) {
      return false
    }
    const digest = sha256(password)
    const hit = this.authCache.get(name)
    if (hit && hit.until > Date.now() && timingSafeEqual(hit.digest, digest)) {
      return true
    }
    const hash = u.hash
    const ok = await checkPassword(password, hash)
    // only cache when the user was not changed while scrypt ran
    if (ok && this.users.get(name)?.hash === hash) {
      this.authCache.set(name, { digest, until: Date.now() + AUTH_CACHE_MS })
    }
    return ok
  }
}

/** rows per multi-row INSERT when creating many children at once (keeps SQL text moderate) */
const INSERT_ROWS_PER_STATEMENT = 500

function* slices<T>(list: T[], size: number): Generator<T[]> {
  for (let i = 0; i < list.length; i += size) {
    yield list.slice(i, i + size)
  }
}

/**
 * Catalog entries live as long as the process, longer than the statement or request body their
 * names and tag values were cut from: they keep copies (ownedString), so that no cached name
 * holds a large INSERT or line-protocol body in memory.
 */
function ownedColumns(cols: readonly ColumnDef[]): ColumnDef[] {
  return cols.map((c) => ({ ...c, name: ownedString(c.name) }))
}

function ownedTags(tags: Record<string, TagValue>): Record<string, TagValue> {
  const out: Record<string, TagValue> = {}
  for (const [k, v] of Object.entries(tags)) {
    out[k] = typeof v === 'string' ? ownedString(v) : v
  }
  return out
}

function mapOf<V>(m: Map<string, Map<string, V>>, key: string): Map<string, V> {
  let inner = m.get(key)
  if (!inner) {
    inner = m instanceof VersionedMap ? new VersionedMap<V>(m.changed) : new Map<string, V>()
    m.set(key, inner)
  }
  return inner
}

/**
 * A map of the catalog's super tables or tables (of databases, and per database) that counts every
 * change into Catalog.version, wherever it is made. (A change made in place on an object it holds,
 * a child's tags, is not counted.)
 */
class VersionedMap<V> extends Map<string, V> {
  constructor(readonly changed: () => void) {
    super()
  }

  override set(key: string, value: V): this {
    this.changed()
    return super.set(key, value)
  }

  override delete(key: string): boolean {
    this.changed()
    return super.delete(key)
  }

  override clear(): void {
    this.changed()
    super.clear()
  }
}

function checkDuplicates(cols: ColumnDef[]): void {
  const seen = new Set<string>()
  for (const c of cols) {
    if (seen.has(c.name)) {
      throw new TdError(TD.PAR_DUPLICATED_COLUMN, `Duplicated column names: ${c.name}`)
    }
    seen.add(c.name)
  }
}

function rowToDb(r: unknown[]): DatabaseInfo {
  return {
    name: String(r[0]),
    precision: String(r[1]) as Precision,
    vgroups: Number(r[2]),
    firstVgId: Number(r[3]),
    options: JSON.parse(String(r[4])) as Record<string, string | number>,
    createdAt: Number(r[5]),
  }
}

function rowToStable(r: unknown[]): StableInfo {
  const info: StableInfo = {
    db: String(r[0]),
    name: String(r[1]),
    columns: JSON.parse(String(r[2])) as ColumnDef[],
    tags: JSON.parse(String(r[3])) as ColumnDef[],
    createdAt: Number(r[4]),
  }
  if (r[5] !== null) {
    info.comment = String(r[5])
  }
  return info
}

function rowToTable(r: unknown[]): TableInfo {
  const info: TableInfo = {
    db: String(r[0]),
    name: String(r[1]),
    kind: String(r[2]) as 'child' | 'normal',
    tid: Number(r[3]),
    ttl: Number(r[7]),
    createdAt: Number(r[8]),
  }
  if (info.kind === 'child') {
    info.stable = String(r[4])
    info.tags = r[5] === null ? {} : decodeTags(String(r[5]))
  } else {
    info.columns = JSON.parse(String(r[6])) as ColumnDef[]
  }
  if (r[9] !== null) {
    info.comment = String(r[9])
  }
  return info
}

function rowToUser(r: unknown[]): UserRecord {
  return {
    name: String(r[0]),
    hash: String(r[1]),
    super: Boolean(r[2]),
    enable: Boolean(r[3]),
    sysinfo: Boolean(r[4]),
    createdb: Boolean(r[5]),
    createdAt: Number(r[6]),
  }
}

/**
 * DURATION option (e.g. `10d`, `1440m`, `24h`; a bare number is days, as TDengine reads it) as ticks
 * of the database precision, for the hypertable chunk interval; undefined when unparsable.
 */
export function chunkIntervalTicks(duration: string | number | undefined, precision: Precision): bigint | undefined {
  const m = /^\s*(\d+)\s*([mhd]?)\s*$/i.exec(String(duration ?? ''))
  if (!m) {
    return undefined
  }
  const ticks = durationTicks(Number(m[1]), m[2] || 'd', precision)
  return ticks > 0n ? ticks : undefined
}
