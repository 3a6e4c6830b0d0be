/**
 * @module
 * The write side every receiver shares: points from datagrams or connections are queued and
 * written in batches through the schemaless core into the receiver's database, as its configured
 * user. Agents over UDP get no answer, so this is where losses are made visible: every point
 * ends up counted as written, rejected (bad for the schema) or dropped (queue full, memory gate,
 * unusable credentials), and errors are logged at most once per interval per kind.
 */
import type { Counter, Registry } from 'prom-client'
import { Counter as PromCounter } from 'prom-client'
import type { Point } from '../ingest/point.js'
import type { Schemaless } from '../ingest/types.js'
import type { Logger } from '../logger.js'
import { TdError } from '../td-error.js'
import { isStorageUnavailable } from '../storage/errors.js'
import type { Storage } from '../sql/catalog/types.js'
import { requireIngest } from '../sql/catalog/access.js'

export interface ReceiverMetrics {
  /** datagrams, connections' lines or scrapes: accepted | malformed | dropped */
  packets: Counter<'receiver' | 'result'>
  /** points: written | rejected | dropped */
  points: Counter<'receiver' | 'result'>
}

export function createReceiverMetrics(registry: Registry): ReceiverMetrics {
  return {
    packets: new PromCounter({
      name: 'db_adapter_receiver_packets_total',
      help: 'Datagrams (or lines, scrapes) a receiver got, by result: accepted, malformed (could not be decoded, wholly or partly), dropped (memory gate or full queue)',
      labelNames: ['receiver', 'result'],
      registers: [registry],
    }),
    points: new PromCounter({
      name: 'db_adapter_receiver_points_total',
      help: 'Points a receiver decoded, by result: written, rejected (refused by the schema, e.g. a type conflict), dropped (memory gate, full queue, bad credentials, storage errors)',
      labelNames: ['receiver', 'result'],
      registers: [registry],
    }),
  }
}

/** Logs a kind of error at most once per interval, with how many were held back meanwhile. */
export class ThrottledLog {
  readonly #last = new Map<string, { at: number; held: number }>()
  constructor(
    private readonly logger: Logger,
    private readonly intervalMs = 10_000,
  ) {}

  error(kind: string, fields: Record<string, unknown>, message: string): void {
    const now = Date.now()
    const seen = this.#last.get(kind)
    if (seen !== undefined && now - seen.at < this.intervalMs) {
      seen.held++
      return
    }
    this.#last.set(kind, { at: now, held: 0 })
    this.logger.error({ ...fields, ...(seen !== undefined && seen.held > 0 ? { suppressedSinceLast: seen.held } : {}) }, message)
  }
}

export interface PointWriterOptions {
  /** metrics label and log prefix, the flag prefix (`collagent`) */
  receiver: string
  db: string
  user: string
  password: string
  /** days to live of the child tables created; 0 = none */
  ttl: number
  storage: Storage
  schemaless: Schemaless
  /** points are dropped while everything is paused (the memory gate) */
  allPaused: () => boolean
  logger: Logger
  metrics: ReceiverMetrics
  /** batches that may wait for the writer before new points are dropped */
  maxPendingBatches: number
  /** points per write (default 5000) */
  batchPoints?: number
  /** how long the first queued point waits for others before a write (default 200 ms) */
  lingerMs?: number
  /** wait before retrying a batch that failed on storage trouble (default 1000 ms) */
  retryMs?: number
}

export class PointWriter {
  readonly #o: Required<PointWriterOptions>
  readonly #log: ThrottledLog
  #queue: Point[] = []
  #timer: NodeJS.Timeout | undefined
  #running: Promise<void> | undefined
  #dbReady = false
  #closed = false

  constructor(opts: PointWriterOptions) {
    this.#o = { batchPoints: 5000, lingerMs: 200, retryMs: 1000, ...opts }
    this.#log = new ThrottledLog(opts.logger)
  }

  /** Queues points; false when they were dropped (paused, queue full or closed). */
  add(points: Point[]): boolean {
    if (points.length === 0) {
      return true
    }
    const o = this.#o
    const full = this.#queue.length + points.length > o.batchPoints * o.maxPendingBatches
    if (this.#closed || o.allPaused() || full) {
      o.metrics.points.inc({ receiver: o.receiver, result: 'dropped' }, points.length)
      if (full && !this.#closed) {
        this.#log.error('queue', { receiver: o.receiver, queued: this.#queue.length }, `${o.receiver}: write queue full (${o.receiver}.worker x 5000 points), dropping points`)
      }
      return false
    }
    for (const p of points) {
      this.#queue.push(p)
    }
    if (this.#queue.length >= o.batchPoints) {
      this.#kick()
    } else {
      this.#timer ??= setTimeout(() => this.#kick(), o.lingerMs)
    }
    return true
  }

  /** Writes everything queued (retrying storage trouble while not closed). */
  async flush(): Promise<void> {
    this.#kick()
    while (this.#running !== undefined) {
      await this.#running
    }
  }

  /** Writes what is queued once more (no retries), then drops anything that still could not go. */
  async close(): Promise<void> {
    this.#closed = true
    await this.flush()
    if (this.#queue.length > 0) {
      this.#o.metrics.points.inc({ receiver: this.#o.receiver, result: 'dropped' }, this.#queue.length)
      this.#queue = []
    }
  }

  #kick(): void {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer)
      this.#timer = undefined
    }
    this.#running ??= this.#drain().finally(() => {
      this.#running = undefined
    })
  }

  async #drain(): Promise<void> {
    const o = this.#o
    while (this.#queue.length > 0) {
      const batch = this.#queue.slice(0, o.batchPoints)
      const outcome = await this.#write(batch)
      if (outcome === 'retry' && !this.#closed) {
        await new Promise((r) => setTimeout(r, o.retryMs))
        continue
      }
      this.#queue = this.#queue.slice(batch.length)
      if (outcome === 'retry') {
        o.metrics.points.inc({ receiver: o.receiver, result: 'dropped' }, batch.length)
      }
    }
  }

  /** 'done' when the batch is accounted for (written, rejected or dropped), 'retry' on storage trouble. */
  async #write(batch: Point[]): Promise<'done' | 'retry'> {
    const o = this.#o
    const { catalog } = o.storage
    try {
      if (!(await catalog.verifyUser(o.user, o.password, `receiver:${o.receiver}`))) {
        o.metrics.points.inc({ receiver: o.receiver, result: 'dropped' }, batch.length)
        this.#log.error('auth', { receiver: o.receiver, user: o.user }, `${o.receiver}: user "${o.user}" cannot log in; check ${o.receiver}.user and ${o.receiver}.password`)
        return 'done'
      }
      // the same rules as every write path: WRITE on the database, or CREATEDB while it is missing
      requireIngest(catalog, o.user, o.db, true)
      if (!this.#dbReady) {
        // the receiver's database is its own: created on first use, like the original's
        await catalog.createDatabase(o.db, { precision: 'ns' }, true, o.user)
        this.#dbReady = true
      }
      const r = await o.schemaless.write(o.db, batch, { user: o.user, precision: 'ns', ...(o.ttl > 0 ? { ttl: o.ttl } : {}) })
      o.metrics.points.inc({ receiver: o.receiver, result: 'written' }, r.written)
      if (r.rejected > 0) {
        o.metrics.points.inc({ receiver: o.receiver, result: 'rejected' }, r.rejected)
        this.#log.error('rejected', { receiver: o.receiver, db: o.db, rejected: r.rejected, first: r.errors[0]?.message }, `${o.receiver}: points rejected by the schema of database "${o.db}"`)
      }
      return 'done'
    } catch (err) {
      if (isStorageUnavailable(err)) {
        this.#log.error('storage', { receiver: o.receiver, err: err.message }, `${o.receiver}: storage unavailable, retrying`)
        return 'retry'
      }
      // not transient (a bad database name, a clash with an existing table): retrying cannot help
      o.metrics.points.inc({ receiver: o.receiver, result: 'dropped' }, batch.length)
      const detail = err instanceof TdError ? { code: err.code, desc: err.desc } : { err }
      this.#log.error('write', { receiver: o.receiver, db: o.db, ...detail }, `${o.receiver}: write into "${o.db}" failed`)
      return 'done'
    }
  }
}
