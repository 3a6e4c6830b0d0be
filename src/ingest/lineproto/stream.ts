/**
 * @module
 * The line-protocol stream layer: a body (bytes, a pooled lease, or a Node Readable such as a
 * socket) in, a WriteResult out. It chooses who parses (the parse workers when there are any,
 * else this thread a slice at a time) and where the rows go: the columnar lane
 * (schemaless/columnar.ts) for bodies of known series, else the schemaless core's row path.
 * parse.ts stays pure; transports (the HTTP route, the receivers) call `write` / `writeFrom`.
 */
import type { Readable } from 'node:stream'
import { BodyLease } from '../body-pool.js'
import type { LaneMiss, Schemaless, WriteOptions, WriteResult } from '../types.js'
import { Mutex } from '../../mutex.js'
import { readAll } from '../read-all.js'
import { LineProtoParser } from './parse.js'
import { parsedHere, type LineProtoWorkers } from './worker-pool.js'

/**
 * Writes of a stream being parsed or written now, and whether writes have been overlapping
 * lately: a client sending back to back on two connections has moments with one write in
 * flight, and those writes are still part of a concurrent load. A body gets a parse share on the
 * main thread (slices for the lane, points for the row path) only when its write runs alone.
 */
export class WriteLoad {
  /** how long after two writes last overlapped a write counts as concurrent */
  static readonly OVERLAP_MS = 1000
  private count = 0
  private overlappedAt = -Infinity

  constructor(private readonly clock: () => number = () => performance.now()) {}

  /** Counts a write in; true when it runs alone (no other write now nor lately). */
  start(): boolean {
    this.count++
    const now = this.clock()
    if (this.count > 1) {
      this.overlappedAt = now
      return false
    }
    return now - this.overlappedAt > WriteLoad.OVERLAP_MS
  }

  end(): void {
    this.count--
  }
}

/**
 * Which databases' writes try the columnar lane (schemaless/columnar.ts). After a body the lane
 * could not take (a string field, a new column, a bad line ...), the next SKIP_AFTER_MISS writes
 * to that database take the row path directly instead of waiting for every slice first. A body
 * of series without tables yet does not count: the row path creates them, and the next body of
 * those series takes the lane.
 */
class ColumnarLanes {
  private static readonly SKIP_AFTER_MISS = 8
  private static readonly MAX_DATABASES = 1000
  private readonly skip = new Map<string, number>()

  /**
   * Lane writes reach the engine in the order their bodies were read. The lane appends a body
   * only when its rows are newer than each child's stored ones, and an agent's concurrent bodies
   * are in time order: a body that overtook the one before it would send that one, and the
   * SKIP_AFTER_MISS writes after it, down the row path.
   */
  readonly order = new Mutex()

  want(db: string): boolean {
    const left = this.skip.get(db)
    if (left === undefined) {
      return true
    }
    if (left <= 1) {
      this.skip.delete(db)
    } else {
      this.skip.set(db, left - 1)
    }
    return false
  }

  missed(db: string): void {
    if (this.skip.size >= ColumnarLanes.MAX_DATABASES) {
      this.skip.clear()
    }
    this.skip.set(db, ColumnarLanes.SKIP_AFTER_MISS)
  }
}

export interface LineProtoStreamOptions {
  schemaless: Schemaless
  /** parse bodies on these worker threads (else on this thread) */
  workers?: LineProtoWorkers
  /** lineproto.columnarLane: false sends every body down the row path */
  columnarLane: boolean
}

export class LineProtoStream {
  // each parse() call runs to its end without awaiting, so one reused parser serves every
  // write of this stream even when their slices interleave
  private readonly parser = new LineProtoParser()
  private readonly writing = new WriteLoad()
  private readonly lanes = new ColumnarLanes()

  constructor(private readonly opts: LineProtoStreamOptions) {}

  /** Parses and writes one body into `db`. The caller keeps (and releases) its lease. */
  async write(db: string, body: BodyLease | Buffer, opts: WriteOptions): Promise<WriteResult> {
    const lease = Buffer.isBuffer(body) ? new BodyLease(body) : body
    const alone = this.writing.start()
    try {
      return await this.writeBody(lease, db, opts, alone)
    } finally {
      this.writing.end()
    }
  }

  /** `write` of everything `from` gives until it ends (past `limit` bytes it fails; 0: no cap). */
  async writeFrom(db: string, from: Readable, opts: WriteOptions, limit: number): Promise<WriteResult> {
    return this.write(db, await readAll(from, limit), opts)
  }

  /**
   * Parses and writes a body: by the workers when there are workers, through the columnar lane
   * when it can take the body, else as points (the main thread parsing a share of a large body,
   * as slices for the lane or as points, when no other write runs); without workers here, a
   * slice at a time.
   */
  private async writeBody(read: BodyLease, db: string, opts: WriteOptions, alone: boolean): Promise<WriteResult> {
    const { schemaless, workers } = this.opts
    if (workers === undefined) {
      return schemaless.write(db, parsedHere(read.bytes, this.parser).source(), opts)
    }
    // The workers parse whole bodies for the lane, which halves the main thread's work per
    // point; a write alone takes the lane too, the main thread encoding the first part of a
    // large lone body into slices itself. (PostgreSQL has no columnar lane: Schemaless.columnar)
    const lanes = this.lanes
    const lane = this.opts.columnarLane && schemaless.columnar && lanes.want(db)
    const parsed = workers.parse(read.bytes, alone ? (lane ? 'slices' : 'points') : 'none', read)
    if (lane) {
      const place = lanes.order.reserve()
      let written: WriteResult | LaneMiss | undefined
      try {
        // (no slices: a worker failed and a part is parsed here instead)
        const slices = await parsed.allSlices()
        await place.turn
        written = slices === undefined ? undefined : await schemaless.writeColumnar(db, slices, opts)
      } finally {
        place.release()
      }
      if (typeof written === 'object') {
        return written
      }
      if (written === 'body') {
        lanes.missed(db)
      }
    }
    return schemaless.write(db, parsed.source(), opts)
  }
}
