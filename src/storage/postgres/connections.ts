import { availableParallelism } from 'node:os'
import pg from 'pg'
import type { ClientConfig, PoolClient } from 'pg'
import type { AppConfig } from '../../config/types.js'
import { abortError, StorageUnavailableError } from '../errors.js'
import { isConnectionError, noop } from './connection-errors.js'
import { pgTypes } from './type-parsers.js'

/** What the connections are made of (part of PostgresEngineOptions). */
export interface ConnectionOptions {
  /** pool.maxConnect (0 = automatic: 2 x CPUs, at least 4), pool.maxIdle (0 = maxConnect), pool.idleTimeout ms (0 = never) */
  pool?: AppConfig['pool']
  /** bound on waiting for a pooled connection (busy pool or unreachable server); default 5000 ms */
  acquireTimeoutMs?: number
  /** application_name shown in pg_stat_activity; default `db-adapter` */
  applicationName?: string
  /** --storage.memoryLimit when given: shared out as work_mem over the pool's connections */
  memoryLimitBytes?: number
}

/**
 * work_mem for each pooled connection so that a sort or hash in every connection at once stays
 * within `memoryLimitBytes`; undefined leaves the server's setting. In kB, PostgreSQL's unit and
 * floor (64 kB).
 */
export function workMemKb(memoryLimitBytes: number | undefined, connections: number): number | undefined {
  if (memoryLimitBytes === undefined || memoryLimitBytes <= 0) {
    return undefined
  }
  return Math.max(64, Math.floor(memoryLimitBytes / Math.max(1, connections) / 1024))
}

/**
 * The engine's connections: a bounded `pg` pool whose busy or unreachable server turns into
 * StorageUnavailableError within `acquireTimeoutMs`, and short-lived connections of their own
 * (cancelling a statement, a health probe, LISTEN) made with the same `clientConfig`.
 */
export class Connections {
  private readonly maxConnections: number
  private readonly maxIdle: number
  private readonly acquireTimeoutMs: number
  readonly clientConfig: ClientConfig
  /** work_mem set on every connection, kB; undefined: the server's */
  readonly workMemKb: number | undefined
  private readonly pool: pg.Pool
  /** host:port/db for messages (never the password) */
  private readonly where: string

  constructor(url: string, opts: ConnectionOptions) {
    const p = opts.pool
    this.maxConnections = p && p.maxConnect > 0 ? p.maxConnect : Math.max(4, 2 * availableParallelism())
    this.maxIdle = p && p.maxIdle > 0 ? Math.min(p.maxIdle, this.maxConnections) : this.maxConnections
    this.acquireTimeoutMs = opts.acquireTimeoutMs ?? 5_000
    this.where = describeUrl(url)
    this.workMemKb = workMemKb(opts.memoryLimitBytes, this.maxConnections)
    this.clientConfig = {
      // an `options` parameter in the URL takes precedence (pg parses the string over the object)
      ...(this.workMemKb !== undefined ? { options: `-c work_mem=${this.workMemKb}kB` } : {}),
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

  /** Borrow a connection within the acquire bound, or fail with StorageUnavailableError. */
  async acquire(): Promise<PoolClient> {
    try {
      return await this.pool.connect()
    } catch (err) {
      throw this.unavailable(err)
    }
  }

  release(c: PoolClient, err?: unknown): void {
    // broken connections are discarded; above pool.maxIdle, spare connections are closed
    // instead of kept (only when nobody waits for one)
    const broken = err !== undefined && isConnectionError(err)
    const spare = this.pool.waitingCount === 0 && this.pool.idleCount >= this.maxIdle
    c.release(broken ? (err as Error) : spare ? true : undefined)
  }

  unavailable(err: unknown): StorageUnavailableError {
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

  /** Cancels the statement running on `c` when the signal fires; returns the unsubscribe function. */
  watchAbort(c: PoolClient, signal?: AbortSignal): () => void {
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

  /** every pooled connection is busy */
  allBusy(): boolean {
    return this.pool.idleCount === 0 && this.pool.totalCount >= this.maxConnections
  }

  stats(): { total: number; idle: number; waiting: number } {
    return { total: this.pool.totalCount, idle: this.pool.idleCount, waiting: this.pool.waitingCount }
  }

  async end(): Promise<void> {
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
