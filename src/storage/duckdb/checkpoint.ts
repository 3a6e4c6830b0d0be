import { statSync } from 'node:fs'
import type { DuckDBConnection } from '@duckdb/node-api'
import type { Mutex } from '../../mutex.js'
import type { OpenReads } from './open-reads.js'

/**
 * DuckDB checkpoints by itself when a commit finds the WAL past `checkpoint_threshold` (16 MiB),
 * inside that commit. A one-flush append commits in the appender's closeSync on the main thread,
 * so a checkpoint there blocked the event loop (probes and queries waited). The engine turns
 * that off and checkpoints on its own, asynchronously, on the write connection between writes.
 */
export const CHECKPOINT_WAL_BYTES = 16 * 1024 * 1024
/**
 * Tables created, and tables written, since the last checkpoint from which the engine checkpoints.
 * DuckDB holds each table's rows appended since a checkpoint in buffers of its own (~60 KiB a
 * table even for one row) that memory_limit cannot evict: 1,000 new super tables under a 128 MB
 * limit failed with "could not allocate block" while the WAL was far below its threshold. Writes
 * to existing tables count with a higher bar: at 256, writes spread over 500 super tables
 * checkpointed every time and took 3.5-5.6 times as long (bench/README.md).
 */
export const CHECKPOINT_NEW_TABLES = 256
export const CHECKPOINT_TABLES = 2048
/** what a new table's rows hold in DuckDB's pool until a checkpoint, at most (see above) */
const NEW_TABLE_POOL_BYTES = 64 * 1024

/**
 * Tables created since the last checkpoint that make one due. DuckDB's CHECKPOINT costs more the
 * more tables the file holds (200 ms at 1,000, 400-600 ms from 2,500 on, raw DuckDB the same), so
 * a fixed bar made creating super tables slow down with their number; past 1,024 tables the bar is
 * a quarter of them, as long as their unevictable rows stay under a fifth of the pool.
 */
export function newTablesBar(tables: number, poolBytes: number): number {
  return Math.max(CHECKPOINT_NEW_TABLES, Math.min(Math.floor(tables / 4), Math.floor((poolBytes * 0.2) / NEW_TABLE_POOL_BYTES)))
}
/** DuckDB's own threshold, out of the way of the engine's (not infinite: a fallback should ours stop) */
export const DUCKDB_CHECKPOINT_THRESHOLD = '1GiB'
/**
 * Past this many times the engine's threshold a checkpoint no longer waits for the reads that
 * hold it back (see OpenReads): they are cancelled. The engine never uses FORCE CHECKPOINT: it
 * waits for the same reads, but inside DuckDB, under the engine's write lock (every write
 * waited, without bound when a read had been left unfinished), and spinning on a worker thread.
 */
const CANCEL_READS_FACTOR = 4
/** DuckDB's buffer pool this full (fraction of memory_limit) makes a checkpoint due, and ... */
export const POOL_CHECKPOINT_FRACTION = 0.6
/** ... this full makes it cancel the reads that hold it back */
const POOL_CANCEL_FRACTION = 0.75
/** after a checkpoint failed for DuckDB's lock anyway, the next waits this long */
const LOCKED_RETRY_MS = 1000
/** a checkpoint held back anew this many times gives up (a later write starts it again) */
const MAX_ROUNDS = 4
/** how often a checkpoint held back by reads looks again at the WAL and the pool */
const PIN_POLL_MS = 200
/**
 * Writes quiet this long with at least IDLE_WAL_BYTES in the WAL: checkpoint anyway. Rows still
 * in the WAL made a TSBS query ~30% slower (bench/README.md) and a restart replays them.
 */
export const CHECKPOINT_IDLE_MS = 5000
const IDLE_WAL_BYTES = 1024 * 1024

/** what the engine's checkpoints did since start (/metrics and the log) */
interface CheckpointCounts {
  done: number
  failed: number
  /** reads cancelled because they held back a checkpoint that could not wait */
  readsCancelled: number
}

/** The engine's checkpoints of a file database, on its write connection between writes. */
export class Checkpointer {
  /** the running checkpoint (see CHECKPOINT_WAL_BYTES), if any */
  private checkpointing: Promise<void> | undefined
  private readonly checkpoints: CheckpointCounts = { done: 0, failed: 0, readsCancelled: 0 }
  /** tables written since the last checkpoint began (see CHECKPOINT_TABLES) */
  private readonly touched = new Set<string>()
  /** tables created (DDL statements) since the last checkpoint began */
  private created = 0
  /** tables in the database: counted at open (setTableCount), then each DDL statement counts as one */
  private tables = 0
  /** a write failed for want of pool memory: checkpoint now, whatever the bars say */
  private urgent = false
  /** DuckDB's pool use, as a fraction of its limit, at the engine's last look */
  private poolFraction = 0
  /** no checkpoint before this time (ms): one was held back by something the engine does not track */
  private notBefore = 0
  /** when the last write ended (ms), and the timer that looks for writes gone quiet */
  private lastWrite = 0
  private idleTimer: NodeJS.Timeout | undefined

  constructor(
    private readonly writeLock: Mutex,
    private readonly writeConn: DuckDBConnection,
    /** the WAL of a file database (undefined in memory) */
    private readonly walPath: string | undefined,
    /** WAL sizes: from which a checkpoint is due, and overdue when the pool is nearly full (pool-watch.ts) */
    private readonly walBars: { due: number; overdue: number },
    /** the engine is closed: no more checkpoints */
    private readonly isClosed: () => boolean,
    /** the reads on the pool's connections (a checkpoint waits for those that hold it back) */
    private readonly reads: OpenReads,
    /** DuckDB's memory_limit in bytes (see newTablesBar) */
    private readonly poolBytes: number,
    /** a checkpoint failed, or reads were cancelled for one: the reason, for the log (otherwise only counted) */
    private readonly onFailure?: (what: string, err: unknown) => void,
    /** see CHECKPOINT_IDLE_MS (tests: shorter) */
    private readonly idleMs = CHECKPOINT_IDLE_MS,
  ) {}

  /** A table was created (or altered): enough of them make a checkpoint due. */
  noteCreated(): void {
    this.created++
    this.tables++
  }

  /** The tables the database holds at open (see newTablesBar). */
  setTableCount(n: number): void {
    this.tables = n
  }

  /** Tables that got rows: enough of them make a checkpoint due. */
  noteTables(keys: Iterable<string>): void {
    if (this.walPath === undefined) {
      return
    }
    for (const k of keys) {
      if (this.touched.size >= CHECKPOINT_TABLES) {
        return
      }
      this.touched.add(k)
    }
  }

  /**
   * A write failed because DuckDB's pool was full. Rows appended since the last checkpoint cannot
   * be evicted until one runs, so without it every later commit fails the same way.
   */
  memoryFull(): void {
    if (this.walPath !== undefined) {
      this.urgent = true
    }
  }

  /** DuckDB's pool use as a fraction of memory_limit (the engine samples it before writes). */
  notePool(fraction: number): void {
    this.poolFraction = fraction
  }

  /**
   * Starts a checkpoint once the WAL has grown past the threshold, enough tables were created or
   * written (CHECKPOINT_TABLES), or the pool is filling up with something to checkpoint. It
   * first waits, outside the write lock, for the reads that would make it fail (OpenReads), then
   * runs on the write connection after the writes queued before it. Writers do not wait for it.
   */
  checkpointIfDue(): void {
    if (this.walPath === undefined || this.isClosed()) {
      return
    }
    this.lastWrite = Date.now()
    this.idleTimer ??= setTimeout(() => this.whenIdle(), this.idleMs).unref()
    if (this.checkpointing !== undefined || Date.now() < this.notBefore) {
      return
    }
    const size = this.walBytes()
    // new tables' rows fill the pool while their WAL records stay small
    const poolFilling = this.poolFraction >= POOL_CHECKPOINT_FRACTION && (size >= this.walBars.due / 16 || this.created > 0)
    if (!this.urgent && !poolFilling && size < this.walBars.due && this.touched.size < CHECKPOINT_TABLES && this.created < newTablesBar(this.tables, this.poolBytes)) {
      return
    }
    this.start()
  }

  /** The idle timer: writes quiet for idleMs with something worth a checkpoint in the WAL. */
  private whenIdle(): void {
    this.idleTimer = undefined
    if (this.isClosed()) {
      return
    }
    const quiet = Date.now() - this.lastWrite
    if (quiet < this.idleMs) {
      this.idleTimer = setTimeout(() => this.whenIdle(), this.idleMs - quiet).unref()
      return
    }
    if (this.checkpointing === undefined && Date.now() >= this.notBefore && this.walBytes() >= IDLE_WAL_BYTES) {
      this.start()
    }
  }

  private start(): void {
    this.checkpointing = this.checkpoint()
      .catch((err: unknown) => {
        // e.g. the pool was full: a later write tries again
        this.checkpoints.failed++
        this.onFailure?.(`CHECKPOINT failed (WAL ${this.walBytes()} bytes; tried again after a later write)`, err)
      })
      .finally(() => {
        this.checkpointing = undefined
      })
  }

  /**
   * The checkpoint cannot wait for the reads that hold it back: a write failed for want of memory,
   * the WAL is far past its threshold, or overdue with the pool nearly full (what was written
   * since the last checkpoint is then what an append may fail to find room for; writes are
   * refused a little further, pool-watch.ts).
   */
  private mustNotWait(): boolean {
    const size = this.walBytes()
    return this.urgent || size >= CANCEL_READS_FACTOR * this.walBars.due ||
      (this.poolFraction >= POOL_CANCEL_FRACTION && size >= this.walBars.overdue)
  }

  private async checkpoint(): Promise<void> {
    // a write queued before the checkpoint may pin reads anew (a schema change, an overwrite):
    // the checkpoint then waits again rather than fail; after a few rounds a later write starts over
    for (let round = 1; round <= MAX_ROUNDS; round++) {
      await this.unpinned()
      if (await this.writeLock.run(() => this.checkpointLocked())) {
        return
      }
    }
  }

  /** Until no read holds the checkpoint back: waits for them, or cancels them when it must not wait. */
  private async unpinned(): Promise<void> {
    // writes go on while the reads that hold the checkpoint back finish
    while (this.reads.pinned() && !this.isClosed()) {
      if (this.mustNotWait()) {
        await this.cancelPinning()
        break
      }
      let timer: NodeJS.Timeout | undefined
      await Promise.race([
        this.reads.whenUnpinned(),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, PIN_POLL_MS)
        }),
      ])
      clearTimeout(timer)
    }
  }

  private async cancelPinning(): Promise<void> {
    const n = await this.reads.cancelPinning()
    this.checkpoints.readsCancelled += n
    this.onFailure?.(`cancelled ${n} read(s) open since a schema change or update, which held back a due checkpoint (WAL ${this.walBytes()} bytes, pool ${Math.round(this.poolFraction * 100)}% full)`, undefined)
  }

  /**
   * Under the write lock: false when a write queued before it pinned reads anew and the
   * checkpoint may wait (cancelled here, where no write can pin more, when it must not).
   */
  private async checkpointLocked(): Promise<boolean> {
    if (this.isClosed()) {
      return true
    }
    if (this.reads.pinned()) {
      if (!this.mustNotWait()) {
        return false
      }
      await this.cancelPinning()
    }
    this.urgent = false
    // writes queued behind this checkpoint count towards the next one
    const touched = [...this.touched]
    const created = this.created
    this.touched.clear()
    this.created = 0
    try {
      await this.writeConn.run('CHECKPOINT')
    } catch (err) {
      this.noteTables(touched)
      this.created += created
      if (/other write transactions active/.test(String(err))) {
        // held back by a commit the engine did not see as pinning: wait for every read open now,
        // and a moment in any case (not a failure after every write)
        this.reads.pinAll()
        this.notBefore = Date.now() + LOCKED_RETRY_MS
      }
      // a full pool stays full until a checkpoint gets through: keep trying on each write
      this.urgent ||= /(failed to|could not) (allocate|pin)/.test(String(err))
      throw err
    }
    this.checkpoints.done++
    return true
  }

  /** the WAL's size in bytes (0 in memory, or when there is none) */
  private walBytes(): number {
    if (this.walPath === undefined) {
      return 0
    }
    try {
      return statSync(this.walPath).size
    } catch {
      return 0
    }
  }

  /** the WAL and the engine's checkpoints since start (/metrics); undefined in memory */
  checkpointStats(): ({ walBytes: number } & CheckpointCounts) | undefined {
    return this.walPath === undefined ? undefined : { walBytes: this.walBytes(), ...this.checkpoints }
  }
}
