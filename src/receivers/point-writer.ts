/**
 * @module
 * The write side every receiver shares: points from datagrams or connections are queued and
 * written in batches through the schemaless core into the receiver's database, as its configured
 * user. Agents over UDP get no answer, so this is where losses are made visible: every point
 * ends up counted as written, rejected (bad for the schema) or dropped (queue full, memory gate,
 * unusable credentials), and errors are logged at most once per interval per kind.
 */
import type { Point } from '../ingest/point.js'
import type { Logger } from '../logger.js'
import { ReceiverSink, type ReceiverSinkOptions } from './receiver-sink.js'
import { ThrottledLog } from './receiver-log.js'

// where the other receivers and lifecycle have always found them
export { createReceiverMetrics, ThrottledLog, type ReceiverMetrics } from './receiver-log.js'

export interface PointWriterOptions extends Omit<ReceiverSinkOptions, 'log' | 'precision'> {
  /** points are dropped while everything is paused (the memory gate) */
  allPaused: () => boolean
  logger: Logger
  /** batches that may wait for the writer before new points are dropped */
  maxPendingBatches: number
  /** points per write (default 5000) */
  batchPoints?: number
  /** how long the first queued point waits for others before a write (default 200 ms) */
  lingerMs?: number
  /** wait before retrying a batch that failed on storage trouble (default 1000 ms) */
  retryMs?: number
}

/** The flags every receiver's section has for its writes (`collagent.db`, `statsagent.user`...). */
export type ReceiverSection = Pick<ReceiverSinkOptions, 'db' | 'user' | 'password' | 'ttl'>

/** A receiver's writer from its flag section and the adapter's shared parts. */
export function receiverWriter(
  receiver: string,
  section: ReceiverSection,
  deps: Pick<PointWriterOptions, 'storage' | 'schemaless' | 'allPaused' | 'logger' | 'metrics'>,
  maxPendingBatches: number,
): PointWriter {
  const { db, user, password, ttl } = section
  const { storage, schemaless, allPaused, logger, metrics } = deps
  return new PointWriter({ receiver, db, user, password, ttl, storage, schemaless, allPaused, logger, metrics, maxPendingBatches })
}

export class PointWriter {
  readonly #o: Required<PointWriterOptions>
  readonly #log: ThrottledLog
  #queue: Point[] = []
  #timer: NodeJS.Timeout | undefined
  #running: Promise<void> | undefined
  readonly #sink: ReceiverSink
  #closed = false

  constructor(opts: PointWriterOptions) {
    this.#o = { batchPoints: 5000, lingerMs: 200, retryMs: 1000, ...opts }
    this.#log = new ThrottledLog(opts.logger)
    this.#sink = new ReceiverSink({ ...opts, log: this.#log })
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
    return (await this.#sink.write(batch, batch.length)).outcome
  }
}
