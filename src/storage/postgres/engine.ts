import { AsyncLocalStorage } from 'node:async_hooks'
import { randomUUID } from 'node:crypto'
import pg from 'pg'
import type { PoolClient, QueryResult } from 'pg'
import type { AppConfig } from '../../config/types.js'
import { abortError, StorageUnavailableError } from '../errors.js'
import type { Engine, QueryOptions, RowBatch, RowChunk } from '../types.js'
import { groupBatches } from '../write-groups.js'
import { isConnectionError, noop, sqlState } from './connection-errors.js'
import { Connections } from './connections.js'
import type { ConnectionOptions } from './connections.js'
import { postgresDialect } from './dialect.js'
import type { PostgresDialect } from './dialect.js'
import { advisoryLockId, CATALOG_CHANNEL, CatalogListener } from './replicas.js'
import type { CatalogChange } from './replicas.js'
import { streamCursor } from './stream.js'
import { CopyWriter } from './write-rows.js'

interface PostgresEngineOptions extends ConnectionOptions {
  /** bound on `healthy()`; default 2000 ms */
  healthTimeoutMs?: number
  /**
   * COPY straight into the target first and fall back to staging + upsert only when a key
   * already exists (default true). false always stages; kept for tests and measurements.
   */
  optimisticCopy?: boolean
}

interface TxContext {
  client: PoolClient
  depth: number
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
  private readonly healthTimeoutMs: number
  private readonly connections: Connections
  private readonly copy: CopyWriter
  private readonly txStore = new AsyncLocalStorage<TxContext>()
  /** identifies this engine's own notifications */
  private readonly instanceId = randomUUID()
  private readonly catalogListeners = new Set<(e: CatalogChange) => void>()
  private listener: CatalogListener | undefined
  private closed = false

  constructor(url: string, opts: PostgresEngineOptions = {}) {
    this.healthTimeoutMs = opts.healthTimeoutMs ?? 2_000
    this.connections = new Connections(url, opts)
    this.copy = new CopyWriter(opts.optimisticCopy ?? true)
  }

  private assertOpen(): void {
    if (this.closed) {
      // shutting down: a request that reaches storage now may retry elsewhere (503)
      throw new StorageUnavailableError('storage engine is closed')
    }
  }

  /** Borrow a connection within the acquire bound, or fail with StorageUnavailableError. */
  private async acquire(): Promise<PoolClient> {
    this.assertOpen()
    return this.connections.acquire()
  }

  /** Runs fn on the transaction's connection, or on a pooled one. */
  private async withClient<T>(fn: (c: PoolClient) => Promise<T>): Promise<T> {
    this.assertOpen()
    const tx = this.txStore.getStore()
    if (tx) {
      try {
        return await fn(tx.client)
      } catch (err) {
        throw isConnectionError(err) ? this.connections.unavailable(err) : err
      }
    }
    const c = await this.acquire()
    let failure: unknown
    try {
      return await fn(c)
    } catch (err) {
      failure = err
      throw isConnectionError(err) ? this.connections.unavailable(err) : err
    } finally {
      this.connections.release(c, failure)
    }
  }

  private async run<T>(sql: string, opts: QueryOptions | undefined, fn: (c: PoolClient) => Promise<T>): Promise<T> {
    return this.withClient(async (c) => {
      const stop = this.connections.watchAbort(c, opts?.signal)
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
    yield* streamCursor(this.connections, this.txStore.getStore()?.client, sql, opts, this.healthTimeoutMs)
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
      throw isConnectionError(err) ? this.connections.unavailable(err) : err
    } finally {
      this.connections.release(c, failure)
    }
  }

  async writeRows(batches: RowBatch[]): Promise<number> {
    this.assertOpen()
    const groups = groupBatches(batches, (db) => this.dialect.schemaName(db))
    if (groups.length === 0) {
      return 0
    }
    if (this.txStore.getStore()) {
      return this.withClient((c) => this.copy.writeGroups(c, groups))
    }
    return this.transaction(() => this.withClient((c) => this.copy.writeGroups(c, groups)))
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
      if (this.connections.allBusy()) {
        // every pooled connection is busy: that says nothing about the server, ask it directly
        const c = new pg.Client({ ...this.connections.clientConfig, connectionTimeoutMillis: this.healthTimeoutMs })
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
      this.listener = new CatalogListener(this.connections.clientConfig, (raw, resync) => {
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
    return this.connections.stats()
  }

  async close(): Promise<void> {
    if (this.closed) {
      return
    }
    this.closed = true
    this.catalogListeners.clear()
    await this.listener?.stop()
    await this.connections.end()
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
