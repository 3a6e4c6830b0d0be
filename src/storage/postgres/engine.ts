import { AsyncLocalStorage } from 'node:async_hooks'
import { createHash, randomUUID } from 'node:crypto'
import { availableParallelism } from 'node:os'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import pg from 'pg'
import type { ClientConfig, CustomTypesConfig, PoolClient, QueryResult } from 'pg'
import { from as copyFrom } from 'pg-copy-streams'
import Cursor from 'pg-cursor'
import type { AppConfig } from '../../config/types.js'
import { StorageUnavailableError } from '../errors.js'
import type { Engine, QueryOptions, RowBatch, RowChunk } from '../types.js'
import { copyLine } from './copy-text.js'
import { postgresDialect } from './dialect.js'
import type { PostgresDialect } from './dialect.js'
import { groupBatches, type WriteGroup } from '../write-groups.js'

export interface PostgresEngineOptions {
  /** pool.maxConnect (0 = automatic: 2 x CPUs, at least 4), pool.maxIdle (0 = maxConnect), pool.idleTimeout ms (0 = never) */
  pool?: AppConfig['pool']
  /** bound on waiting for a pooled connection (busy pool or unreachable server); default 5000 ms */
  acquireTimeoutMs?: number
  /** bound on `healthy()`; default 2000 ms */
  healthTimeoutMs?: number
  /**
   * COPY straight into the target first and fall back to staging + upsert only when a key
   * already exists (default true). false always stages; kept for tests and measurements.
   */
  optimisticCopy?: boolean
  /** application_name shown in pg_stat_activity; default `db-adapter` */
  applicationName?: string
}

/** NOTIFY channel for catalog changes between replicas. */
export const CATALOG_CHANNEL = 'db_adapter_catalog'

/** A catalog change seen on the NOTIFY channel. */
export interface CatalogChange {
  /** what `notifyCatalogChange(payload)` sent ('' on resync) */
  payload: string
  /** sent by this engine (its own cache is already current) */
  fromSelf: boolean
  /**
   * the listener (re)connected: notifications may have been missed while it was not listening,
   * so re-read everything. Also fired once when listening starts.
   */
  resync: boolean
}

// ---- value conversion -------------------------------------------------------------------------

const OID_INT8 = 20
const OID_FLOAT4 = 700
const OID_NUMERIC = 1700

/** numeric holds unsigned bigint (exact integer -> bigint); fractional results (avg) -> number */
function parseNumeric(s: string): bigint | number {
  return /^-?\d+$/.test(s) ? BigInt(s) : Number(s)
}

const TEXT_PARSERS = new Map<number, (s: string) => unknown>([
  [OID_INT8, (s) => BigInt(s)],
  [OID_NUMERIC, parseNumeric],
  // REAL is stored as float32: hand back the float32 value itself, as DuckDB does, not the
  // shortest decimal PostgreSQL prints for it
  [OID_FLOAT4, (s) => Math.fround(Number.parseFloat(s))],
])

/**
 * Engine contract values: BIGINT and NUMERIC(20,0) (unsigned bigint) -> bigint, SMALLINT/INTEGER
 * -> number, REAL/DOUBLE -> number, text -> string, boolean -> boolean.
 */
export const pgTypes: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    const p = format === 'binary' ? undefined : TEXT_PARSERS.get(oid)
    return p ?? pg.types.getTypeParser(oid, format)
  }) as CustomTypesConfig['getTypeParser'],
}

// ---- errors -----------------------------------------------------------------------------------

const CONNECTION_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'EAI_AGAIN',
])

/** SQLSTATEs meaning "the server cannot serve us right now" rather than "your SQL is wrong". */
function isUnavailableSqlState(code: string): boolean {
  return (
    code.startsWith('08') || // connection exception
    code === '57P01' || // admin_shutdown
    code === '57P02' || // crash_shutdown
    code === '57P03' || // cannot_connect_now (starting up / recovering)
    code === '53300' // too_many_connections
  )
}

export function isConnectionError(err: unknown): boolean {
  if (err instanceof StorageUnavailableError) {
    return true
  }
  if (!(err instanceof Error)) {
    return false
  }
  const code = (err as { code?: unknown }).code
  if (typeof code === 'string' && (CONNECTION_ERRNOS.has(code) || isUnavailableSqlState(code))) {
    return true
  }
  return /Connection terminated|not queryable|timeout exceeded when trying to connect|Connection ended|Client was closed/i.test(
    err.message,
  )
}

function sqlState(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : undefined
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('query aborted')
}

function noop(): void {}

/** A stable 64-bit advisory lock id for a text key (same on every replica and version). */
export function advisoryLockId(key: string): bigint {
  return createHash('sha256').update(key, 'utf8').digest().readBigInt64BE(0)
}

// ---- write grouping ---------------------------------------------------------------------------


/**
 * The group's rows as COPY lines, keeping only the last row per key: PostgreSQL refuses to
 * update one row twice in a single INSERT ... ON CONFLICT, and a plain COPY would fail on the
 * duplicate anyway. Returns the number of input rows too (what writeRows reports).
 */
function groupLines(g: WriteGroup): { lines: string[]; input: number } {
  if (!mayHaveDuplicates(g)) {
    // common case (each batch in time order, one batch per table): no key bookkeeping
    const lines: string[] = []
    for (const b of g.batches) {
      const prefix = g.child ? String(b.tid) : undefined
      for (const row of b.rows) {
        lines.push(copyLine(row, prefix))
      }
    }
    return { lines, input: lines.length }
  }
  let input = 0
  const lines: string[] = []
  const index = new Map<string, number>()
  for (const b of g.batches) {
    const prefix = g.child ? String(b.tid) : undefined
    for (const row of b.rows) {
      input++
      const ts = row[0]
      const key = prefix === undefined ? String(ts) : `${prefix}|${String(ts)}`
      const line = copyLine(row, prefix)
      const at = index.get(key)
      if (at === undefined) {
        index.set(key, lines.length)
        lines.push(line)
      } else {
        // last write wins; the position of the first occurrence is as good as any
        lines[at] = line
      }
    }
  }
  return { lines, input }
}

/** false when every batch has strictly increasing timestamps and no table appears twice */
function mayHaveDuplicates(g: WriteGroup): boolean {
  const tables = new Set<number | undefined>()
  for (const b of g.batches) {
    if (tables.has(b.tid)) {
      return true
    }
    tables.add(b.tid)
    let prev: unknown
    for (const row of b.rows) {
      const ts = row[0]
      if ((typeof ts !== 'bigint' && typeof ts !== 'number') || (prev !== undefined && !((prev as bigint) < ts))) {
        return true
      }
      prev = ts
    }
  }
  return false
}

/** COPY input in ~64 KiB pieces: one string per row would cost a stream write each. */
function* chunkLines(lines: string[]): Generator<string> {
  let buf = ''
  for (const l of lines) {
    buf += l
    if (buf.length >= 65_536) {
      yield buf
      buf = ''
    }
  }
  if (buf.length > 0) {
    yield buf
  }
}

// ---- LISTEN/NOTIFY ----------------------------------------------------------------------------

/** One dedicated connection that LISTENs on the catalog channel and reconnects by itself. */
class CatalogListener {
  private client: pg.Client | undefined
  private timer: NodeJS.Timeout | undefined
  private stopped = false
  private backoffMs = 250

  constructor(
    private readonly config: ClientConfig,
    private readonly emit: (payload: string, resync: boolean) => void,
  ) {}

  start(): void {
    void this.connect()
  }

  private async connect(): Promise<void> {
    if (this.stopped) {
      return
    }
    const c = new pg.Client(this.config)
    const lost = (): void => {
      this.lost(c)
    }
    c.on('error', lost)
    c.on('end', lost)
    c.on('notification', (m) => {
      if (m.channel === CATALOG_CHANNEL) {
        this.emit(m.payload ?? '', false)
      }
    })
    try {
      await c.connect()
      await c.query(`LISTEN ${CATALOG_CHANNEL}`)
    } catch {
      c.removeListener('end', lost)
      c.end().catch(noop)
      this.schedule()
      return
    }
    if (this.stopped) {
      c.end().catch(noop)
      return
    }
    this.client = c
    this.backoffMs = 250
    // anything may have changed while nobody was listening
    this.emit('', true)
  }

  private lost(c: pg.Client): void {
    if (this.client !== c) {
      return
    }
    this.client = undefined
    c.end().catch(noop)
    this.schedule()
  }

  private schedule(): void {
    if (this.stopped || this.timer) {
      return
    }
    this.timer = setTimeout(() => {
      this.timer = undefined
      void this.connect()
    }, this.backoffMs)
    this.timer.unref()
    this.backoffMs = Math.min(this.backoffMs * 2, 5_000)
  }

  async stop(): Promise<void> {
    this.stopped = true
    if (this.timer) {
      clearTimeout(this.timer)
      this.timer = undefined
    }
    const c = this.client
    this.client = undefined
    if (c) {
      await c.end().catch(noop)
    }
  }
}

// ---- engine -----------------------------------------------------------------------------------

interface TxContext {
  client: PoolClient
  depth: number
}

async function closeCursor(cursor: Cursor, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  try {
    return await Promise.race([
      cursor.close().then(
        () => true,
        () => false,
      ),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), ms)
      }),
    ])
  } finally {
    clearTimeout(timer)
  }
}

function affectedRows(r: QueryResult | QueryResult[]): number {
  if (Array.isArray(r)) {
    return r.reduce((n, x) => n + (x.rowCount ?? 0), 0)
  }
  return r.rowCount ?? 0
}

function lastRows(r: QueryResult | QueryResult[]): unknown[][] {
  const res = Array.isArray(r) ? (r.findLast((x) => Array.isArray(x.rows) && x.fields.length > 0) ?? r[r.length - 1]) : r
  return (res?.rows ?? []) as unknown[][]
}

/**
 * PostgreSQL behind the `Engine` contract.
 *
 * Every call borrows a connection from a bounded pool (pool.maxConnect), waiting at most
 * `acquireTimeoutMs`; a busy pool or an unreachable server then fails with
 * StorageUnavailableError (503), never an unbounded wait. Nothing connects at open: a server
 * that is down at start only makes calls fail until it is back, and the pool reconnects by
 * itself. Inside `transaction(fn)`, calls on this engine (not only on `tx`) run on the
 * transaction's connection via AsyncLocalStorage, like the DuckDB engine.
 */
export class PostgresEngine implements Engine {
  readonly dialect: PostgresDialect = postgresDialect
  readonly maxConnections: number
  readonly maxIdle: number
  readonly acquireTimeoutMs: number
  private readonly healthTimeoutMs: number
  private readonly optimisticCopy: boolean
  private readonly clientConfig: ClientConfig
  private readonly pool: pg.Pool
  private readonly txStore = new AsyncLocalStorage<TxContext>()
  /** host:port/db for messages (never the password) */
  private readonly where: string
  /** identifies this engine's own notifications */
  private readonly instanceId = randomUUID()
  private readonly recentConflicts = new Map<string, number>()
  private readonly catalogListeners = new Set<(e: CatalogChange) => void>()
  private listener: CatalogListener | undefined
  private stagingSeq = 0
  private closed = false

  constructor(url: string, opts: PostgresEngineOptions = {}) {
    const p = opts.pool
    this.maxConnections = p && p.maxConnect > 0 ? p.maxConnect : Math.max(4, 2 * availableParallelism())
    this.maxIdle = p && p.maxIdle > 0 ? Math.min(p.maxIdle, this.maxConnections) : this.maxConnections
    this.acquireTimeoutMs = opts.acquireTimeoutMs ?? 5_000
    this.healthTimeoutMs = opts.healthTimeoutMs ?? 2_000
    this.optimisticCopy = opts.optimisticCopy ?? true
    this.where = describeUrl(url)
    this.clientConfig = {
      connectionString: libpqSslModes(url),
      application_name: opts.applicationName ?? 'db-adapter',
      connectionTimeoutMillis: this.acquireTimeoutMs,
      // notice dead peers on idle pooled connections instead of on the next request
      keepAlive: true,
      types: pgTypes,
    }
    this.pool = new pg.Pool({
      ...this.clientConfig,
      max: this.maxConnections,
      // 0 = idle connections are never closed for being idle
      idleTimeoutMillis: p && p.idleTimeout > 0 ? p.idleTimeout : 0,
      // bounds both a fresh connect and the wait for a busy pool
      connectionTimeoutMillis: this.acquireTimeoutMs,
    })
    // Idle connections die when the server restarts; the pool drops them and reports here.
    // Without a listener that report would crash the process.
    this.pool.on('error', noop)
    this.pool.on('connect', (c) => {
      // a checked-out client has no pool listener; its query fails with the error anyway
      c.on('error', noop)
    })
  }

  private assertOpen(): void {
    if (this.closed) {
      throw new Error('storage engine is closed')
    }
  }

  /** Borrow a connection within the acquire bound, or fail with StorageUnavailableError. */
  private async acquire(): Promise<PoolClient> {
    this.assertOpen()
    try {
      return await this.pool.connect()
    } catch (err) {
      throw this.unavailable(err)
    }
  }

  private release(c: PoolClient, err?: unknown): void {
    // broken connections are discarded; above pool.maxIdle, spare connections are closed
    // instead of kept (only when nobody waits for one)
    const broken = err !== undefined && isConnectionError(err)
    const spare = this.pool.waitingCount === 0 && this.pool.idleCount >= this.maxIdle
    c.release(broken ? (err as Error) : spare ? true : undefined)
  }

  private unavailable(err: unknown): StorageUnavailableError {
    if (err instanceof StorageUnavailableError) {
      return err
    }
    const msg = err instanceof Error ? err.message : String(err)
    if (/timeout exceeded when trying to connect/i.test(msg)) {
      const busy = this.pool.totalCount - this.pool.idleCount
      return new StorageUnavailableError(
        `PostgreSQL ${this.where}: no connection within ${this.acquireTimeoutMs} ms ` +
          `(${busy} of pool.maxConnect=${this.maxConnections} in use, ${this.pool.waitingCount} waiting, or the server does not answer)`,
        { cause: err },
      )
    }
    const code = (err as { code?: unknown } | null)?.code
    return new StorageUnavailableError(
      `PostgreSQL ${this.where} unavailable: ${msg}${typeof code === 'string' ? ` (${code})` : ''}`,
      { cause: err },
    )
  }

  /** Runs fn on the transaction's connection, or on a pooled one. */
  private async withClient<T>(fn: (c: PoolClient) => Promise<T>): Promise<T> {
    this.assertOpen()
    const tx = this.txStore.getStore()
    if (tx) {
      try {
        return await fn(tx.client)
      } catch (err) {
        throw isConnectionError(err) ? this.unavailable(err) : err
      }
    }
    const c = await this.acquire()
    let failure: unknown
    try {
      return await fn(c)
    } catch (err) {
      failure = err
      throw isConnectionError(err) ? this.unavailable(err) : err
    } finally {
      this.release(c, failure)
    }
  }

  /** Cancels the statement running on `c` when the signal fires; returns the unsubscribe function. */
  private watchAbort(c: PoolClient, signal?: AbortSignal): () => void {
    if (!signal) {
      return noop
    }
    if (signal.aborted) {
      throw abortError(signal)
    }
    const pid = (c as unknown as { processID?: number }).processID
    const onAbort = (): void => {
      if (pid !== undefined) {
        void this.cancelBackend(pid)
      }
    }
    signal.addEventListener('abort', onAbort, { once: true })
    return () => signal.removeEventListener('abort', onAbort)
  }

  /** pg_cancel_backend from a separate short-lived connection (the pool may be exhausted). */
  private async cancelBackend(pid: number): Promise<void> {
    const c = new pg.Client(this.clientConfig)
    c.on('error', noop)
    try {
      await c.connect()
      await c.query(`SELECT pg_cancel_backend(${pid})`)
    } catch {
      // the statement may have finished, or the server is gone; nothing to cancel then
    } finally {
      await c.end().catch(noop)
    }
  }

  private async run<T>(sql: string, opts: QueryOptions | undefined, fn: (c: PoolClient) => Promise<T>): Promise<T> {
    return this.withClient(async (c) => {
      const stop = this.watchAbort(c, opts?.signal)
      try {
        return await fn(c)
      } catch (err) {
        if (opts?.signal?.aborted && sqlState(err) === '57014') {
          throw abortError(opts.signal)
        }
        throw err
      } finally {
        stop()
      }
    })
  }

  async exec(sql: string, opts?: QueryOptions): Promise<number> {
    return this.run(sql, opts, async (c) => affectedRows(await c.query(sql)))
  }

  async query(sql: string, opts?: QueryOptions): Promise<unknown[][]> {
    return this.run(sql, opts, async (c) => lastRows(await c.query({ text: sql, rowMode: 'array' })))
  }

  /** Server-side cursor: at most `chunkRows` rows are in memory per chunk. */
  async *stream(sql: string, opts?: QueryOptions): AsyncIterable<RowChunk> {
    this.assertOpen()
    const size = Math.max(1, opts?.chunkRows ?? 4096)
    if (opts?.signal?.aborted) {
      // before borrowing a connection: nothing to run, nothing to give back
      throw abortError(opts.signal)
    }
    const tx = this.txStore.getStore()
    const c = tx ? tx.client : await this.acquire()
    let failure: unknown
    let stop = noop
    const cursor = c.query(new Cursor<unknown[]>(sql, undefined, { rowMode: 'array', types: pgTypes }))
    try {
      stop = this.watchAbort(c, opts?.signal)
      for (;;) {
        if (opts?.signal?.aborted) {
          throw abortError(opts.signal)
        }
        let rows: unknown[][]
        try {
          rows = await cursor.read(size)
        } catch (err) {
          if (opts?.signal?.aborted && sqlState(err) === '57014') {
            throw abortError(opts.signal)
          }
          throw isConnectionError(err) ? this.unavailable(err) : err
        }
        if (rows.length === 0) {
          break
        }
        yield rows
        if (rows.length < size) {
          break
        }
      }
    } catch (err) {
      failure = err
      throw err
    } finally {
      stop()
      // After a failure the connection's protocol state is unknown (closing the portal may wait
      // forever on a dead socket): discard it. A normal end or an early break closes the portal,
      // within a bound.
      if (failure === undefined && !(await closeCursor(cursor, this.healthTimeoutMs))) {
        failure = new Error('closing the cursor timed out')
      }
      if (!tx) {
        if (failure === undefined) {
          this.release(c)
        } else {
          c.release(failure instanceof Error ? failure : true)
        }
      }
    }
  }

  async transaction<T>(fn: (tx: Engine) => Promise<T>): Promise<T> {
    this.assertOpen()
    const outer = this.txStore.getStore()
    if (outer) {
      // nested: a savepoint, so a failing inner block can be caught without losing the outer one
      const sp = `dba_sp_${outer.depth + 1}`
      await this.withClient((c) => c.query(`SAVEPOINT ${sp}`))
      try {
        const result = await this.txStore.run({ client: outer.client, depth: outer.depth + 1 }, () => fn(this))
        await this.withClient((c) => c.query(`RELEASE SAVEPOINT ${sp}`))
        return result
      } catch (err) {
        await outer.client.query(`ROLLBACK TO SAVEPOINT ${sp}`).catch(noop)
        throw err
      }
    }
    const c = await this.acquire()
    let failure: unknown
    try {
      await c.query('BEGIN')
      const result = await this.txStore.run({ client: c, depth: 0 }, () => fn(this))
      await c.query('COMMIT')
      return result
    } catch (err) {
      failure = err
      await c.query('ROLLBACK').catch(noop)
      throw isConnectionError(err) ? this.unavailable(err) : err
    } finally {
      this.release(c, failure)
    }
  }

  async writeRows(batches: RowBatch[]): Promise<number> {
    this.assertOpen()
    const groups = groupBatches(batches, (db) => this.dialect.schemaName(db))
    if (groups.length === 0) {
      return 0
    }
    if (this.txStore.getStore()) {
      return this.withClient((c) => this.writeGroups(c, groups))
    }
    return this.transaction(() => this.withClient((c) => this.writeGroups(c, groups)))
  }

  /** Inside a transaction on `c`: every group COPYed, with overwrite semantics. */
  private async writeGroups(c: PoolClient, groups: WriteGroup[]): Promise<number> {
    const qi = this.dialect.quoteIdent
    let n = 0
    for (const g of groups) {
      const { lines, input } = groupLines(g)
      n += input
      const cols = g.child ? ['_tid', ...g.columns] : [...g.columns]
      const target = `${qi(g.schema)}.${qi(g.table)}`
      const colList = cols.map(qi).join(', ')
      const conflictKey = `${g.schema}.${g.table}`
      const last = this.recentConflicts.get(conflictKey)
      if (this.optimisticCopy && (last === undefined || Date.now() - last > 10_000)) {
        // Fast path: new keys are the common case. An overwrite of an existing key violates the
        // primary key; only then is this group redone through staging + ON CONFLICT.
        await c.query('SAVEPOINT dba_copy')
        try {
          await pipeline(Readable.from(chunkLines(lines)), c.query(copyFrom(`COPY ${target} (${colList}) FROM STDIN`)))
          await c.query('RELEASE SAVEPOINT dba_copy')
          continue
        } catch (err) {
          if (sqlState(err) !== '23505') {
            throw err
          }
          await c.query('ROLLBACK TO SAVEPOINT dba_copy')
          this.recentConflicts.set(conflictKey, Date.now())
        }
      }
      const keys = g.child ? [cols[0], cols[1]] : [cols[0]]
      const rest = cols.filter((x) => !keys.includes(x))
      const stg = `dba_stg_${++this.stagingSeq}`
      // same column types as the target, whatever DDL another replica ran meanwhile
      await c.query(`CREATE TEMP TABLE ${stg} ON COMMIT DROP AS SELECT ${colList} FROM ${target} WITH NO DATA`)
      await pipeline(Readable.from(chunkLines(lines)), c.query(copyFrom(`COPY ${stg} (${colList}) FROM STDIN`)))
      const conflict = rest.length
        ? `DO UPDATE SET ${rest.map((x) => `${qi(x)} = EXCLUDED.${qi(x)}`).join(', ')}`
        : 'DO NOTHING'
      await c.query(
        `INSERT INTO ${target} (${colList}) SELECT ${colList} FROM ${stg} ON CONFLICT (${keys.map(qi).join(', ')}) ${conflict}`,
      )
      await c.query(`DROP TABLE ${stg}`)
    }
    return n
  }

  async healthy(): Promise<boolean> {
    if (this.closed) {
      return false
    }
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), this.healthTimeoutMs)
    })
    try {
      return await Promise.race([this.ping(), timeout])
    } finally {
      clearTimeout(timer)
    }
  }

  private async ping(): Promise<boolean> {
    try {
      if (this.pool.idleCount === 0 && this.pool.totalCount >= this.maxConnections) {
        // every pooled connection is busy: that says nothing about the server, ask it directly
        const c = new pg.Client({ ...this.clientConfig, connectionTimeoutMillis: this.healthTimeoutMs })
        c.on('error', noop)
        try {
          await c.connect()
          await c.query('SELECT 1')
        } finally {
          await c.end().catch(noop)
        }
        return true
      }
      await this.withClient((c) => c.query('SELECT 1'))
      return true
    } catch {
      return false
    }
  }

  // ---- cross-replica helpers (used by the catalog) ---------------------------------------

  /**
   * Calls `cb` on every catalog change NOTIFYed by any replica (including this one; see
   * `fromSelf`), and with `resync: true` whenever listening (re)starts. Returns the unsubscribe
   * function. The LISTEN connection is opened on first use and reconnects by itself.
   */
  onCatalogChange(cb: (e: CatalogChange) => void): () => void {
    this.assertOpen()
    this.catalogListeners.add(cb)
    if (!this.listener) {
      this.listener = new CatalogListener(this.clientConfig, (raw, resync) => {
        const sep = raw.indexOf(':')
        const sender = sep >= 0 ? raw.slice(0, sep) : ''
        const e: CatalogChange = {
          payload: sep >= 0 ? raw.slice(sep + 1) : raw,
          fromSelf: sender === this.instanceId,
          resync,
        }
        for (const l of this.catalogListeners) {
          try {
            l(e)
          } catch {
            // one listener's failure must not stop the others or the connection
          }
        }
      })
      this.listener.start()
    }
    return () => {
      this.catalogListeners.delete(cb)
    }
  }

  /**
   * NOTIFY the other replicas. Inside a transaction it is delivered at COMMIT (and dropped on
   * ROLLBACK), which is exactly when the change becomes visible.
   */
  async notifyCatalogChange(payload = ''): Promise<void> {
    const s = this.dialect.quoteString(`${this.instanceId}:${payload}`)
    await this.withClient((c) => c.query(`SELECT pg_notify('${CATALOG_CHANNEL}', ${s})`))
  }

  /**
   * Runs `fn` in a transaction holding the cluster-wide advisory lock for `key` (all replicas
   * on this database serialise on it); released at commit or rollback. Inside an existing
   * transaction, the lock is taken on that one.
   */
  async withAdvisoryLock<T>(key: string, fn: (tx: Engine) => Promise<T>): Promise<T> {
    const id = advisoryLockId(key)
    return this.transaction(async (tx) => {
      await this.withClient((c) => c.query(`SELECT pg_advisory_xact_lock(${id.toString()})`))
      return fn(tx)
    })
  }

  /** pool counters, for metrics and tests */
  poolStats(): { total: number; idle: number; waiting: number } {
    return { total: this.pool.totalCount, idle: this.pool.idleCount, waiting: this.pool.waitingCount }
  }

  async close(): Promise<void> {
    if (this.closed) {
      return
    }
    this.closed = true
    this.catalogListeners.clear()
    await this.listener?.stop()
    await this.pool.end()
  }
}

/**
 * `sslmode` as libpq and every PostgreSQL guide mean it: pg reads `require` and `verify-ca` as
 * `verify-full` unless `uselibpqcompat=true` is set, so `?sslmode=require` against a server with
 * a self-signed certificate (the usual managed or in-cluster PostgreSQL) failed. The URL keeps a
 * `uselibpqcompat` the user set. (`prefer` then means TLS without verification; pg cannot fall
 * back to a plain connection as libpq does.)
 */
export function libpqSslModes(url: string): string {
  try {
    const u = new URL(url)
    if (u.searchParams.has('sslmode') && !u.searchParams.has('uselibpqcompat')) {
      u.searchParams.set('uselibpqcompat', 'true')
      return u.toString()
    }
  } catch {
    // pg reports an unparsable URL itself
  }
  return url
}

/** `user@host:port/db` without the password, for error messages and logs. */
function describeUrl(url: string): string {
  try {
    const u = new URL(url)
    const db = u.pathname.replace(/^\//, '') || u.username
    return `${u.hostname}:${u.port || '5432'}/${decodeURIComponent(db)}`
  } catch {
    return '(unparsable storage.url)'
  }
}

/**
 * Opens the PostgreSQL backend for `postgres://` / `postgresql://` URLs (TLS via the usual
 * sslmode parameters). Connects lazily: resolves even when the server is down.
 */
export async function openPostgresEngine(
  url: string,
  opts: { pool?: AppConfig['pool'] } & PostgresEngineOptions = {},
): Promise<PostgresEngine> {
  await Promise.resolve()
  return new PostgresEngine(url, opts)
}
