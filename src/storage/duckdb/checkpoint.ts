import { statSync } from 'node:fs'
import type { DuckDBConnection } from '@duckdb/node-api'
import type { Mutex } from '../../mutex.js'

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
/** DuckDB's own threshold, out of the way of the engine's (not infinite: a fallback should ours stop) */
export const DUCKDB_CHECKPOINT_THRESHOLD = '1GiB'
/**
 * A plain CHECKPOINT gives up when it cannot take DuckDB's checkpoint lock at once (open reads
 * did not stop it in DuckDB 1.5; a write on another connection would); past this many times
 * the engine's threshold the engine uses FORCE CHECKPOINT, which waits for the lock instead
 */
const FORCE_CHECKPOINT_FACTOR = 4

/** The engine's checkpoints of a file database, on its write connection between writes. */
export class Checkpointer {
  /** the running checkpoint (see CHECKPOINT_WAL_BYTES), if any */
  private checkpointing: Promise<void> | undefined
  private readonly checkpoints = { done: 0, failed: 0 }
  /** tables written since the last checkpoint began (see CHECKPOINT_TABLES) */
  private readonly touched = new Set<string>()
  /** tables created (DDL statements) since the last checkpoint began */
  private created = 0
  /** a write failed for want of pool memory: checkpoint now, whatever the bars say */
  private urgent = false

  constructor(
    private readonly writeLock: Mutex,
    private readonly writeConn: DuckDBConnection,
    /** the WAL of a file database (undefined in memory) */
    private readonly walPath: string | undefined,
    private readonly checkpointWalBytes: number,
    /** the engine is closed: no more checkpoints */
    private readonly isClosed: () => boolean,
    /** a checkpoint failed: the reason, for the log (failures are otherwise only counted) */
    private readonly onFailure?: (what: string, err: unknown) => void,
  ) {}

  /** A table was created (or altered): enough of them make a checkpoint due. */
  noteCreated(): void {
    this.created++
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

  /**
   * Starts a checkpoint on the write connection, after the writes queued before it, once the
   * WAL has grown past the threshold or enough tables were created or written (CHECKPOINT_TABLES). One that fails is tried again after a later write.
   * Writers do not wait for it.
   */
  checkpointIfDue(): void {
    if (this.walPath === undefined || this.checkpointing !== undefined || this.isClosed()) {
      return
    }
    const size = this.walBytes()
    if (!this.urgent && size < this.checkpointWalBytes && this.touched.size < CHECKPOINT_TABLES && this.created < CHECKPOINT_NEW_TABLES) {
      return
    }
    const sql = size >= FORCE_CHECKPOINT_FACTOR * this.checkpointWalBytes ? 'FORCE CHECKPOINT' : 'CHECKPOINT'
    this.urgent = false
    this.checkpointing = this.writeLock
      .run(async () => {
        if (!this.isClosed()) {
          // writes queued behind this checkpoint count towards the next one
          const touched = [...this.touched]
          const created = this.created
          this.touched.clear()
          this.created = 0
          try {
            await this.writeConn.run(sql)
          } catch (err) {
            this.noteTables(touched)
            this.created += created
            // a full pool stays full until a checkpoint gets through: keep trying on each write
            this.urgent ||= /(failed to|could not) (allocate|pin)/.test(String(err))
            throw err
          }
          this.checkpoints.done++
        }
      })
      .catch((err: unknown) => {
        // e.g. the checkpoint lock was taken: a later write tries again (FORCE once the WAL is large)
        this.checkpoints.failed++
        this.onFailure?.(`${sql} failed (WAL ${size} bytes; tried again after a later write)`, err)
      })
      .finally(() => {
        this.checkpointing = undefined
      })
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
  checkpointStats(): { walBytes: number; done: number; failed: number } | undefined {
    return this.walPath === undefined ? undefined : { walBytes: this.walBytes(), ...this.checkpoints }
  }
}
