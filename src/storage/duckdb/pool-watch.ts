import type { DuckDBConnection } from '@duckdb/node-api'
import { StorageUnavailableError } from '../errors.js'

/**
 * DuckDB's buffer pool this full (fraction of memory_limit), with a checkpoint overdue, refuses
 * new writes. An append that failed for want of memory inside its commit ("failed to pin block
 * ... (88.9 MiB/89.0 MiB used)") left a row group inconsistent, and DuckDB's next checkpoint
 * then invalidated the whole database ("Corrupted in-memory column ... misaligned count"); a 503
 * lets the client retry once a checkpoint has run. A full pool alone is no reason: large sorts
 * fill it and spill on demand (3 readers of a 1M-row table kept 89 MiB 100% used while appends
 * went through); the appends failed once checkpoints had been held back and the rows written
 * since the last one had grown.
 */
export const POOL_SHED_FRACTION = 0.9
/** a sample of the pool's use is reused for this long (writes come by the hundred a second) */
const SAMPLE_MS = 100

/**
 * The WAL size (what was written since the last checkpoint) from which, with the pool nearly
 * full, a checkpoint is overdue: the engine's threshold, or an eighth of a small pool.
 */
export function overdueWalBytes(checkpointWalBytes: number, limitBytes: number): number {
  return limitBytes > 0 ? Math.min(checkpointWalBytes, limitBytes / 8) : checkpointWalBytes
}

/**
 * A pool this full at the last sample makes a write wait for a fresh one; below it the last sample
 * serves while the next is taken beside the write (a sample took ~3 ms under the write lock, every
 * 100 ms: 0.27 ms a remote-write body on average, bench/README.md)
 */
const AWAIT_FRACTION = 0.5

/** Samples DuckDB's buffer pool use before writes, on a connection of its own. */
export class PoolWatch {
  private sampledAt = 0
  private used = 0
  private sampling: Promise<void> | undefined
  private conn: DuckDBConnection | undefined

  constructor(
    private readonly limitBytes: number,
    /** see overdueWalBytes */
    private readonly overdueBytes: number,
    /** a connection for the samples, made on first use */
    private readonly connect: () => Promise<DuckDBConnection>,
  ) {}

  /** The pool's use as a fraction of its limit, sampled at most every SAMPLE_MS. */
  async fraction(): Promise<number> {
    if (!(this.limitBytes > 0)) {
      return 0
    }
    if (Date.now() - this.sampledAt >= SAMPLE_MS) {
      const fresh = this.sample()
      if (this.sampledAt === 0 || this.used / this.limitBytes >= AWAIT_FRACTION) {
        await fresh
      }
    }
    return this.used / this.limitBytes
  }

  private sample(): Promise<void> {
    this.sampling ??= (async () => {
      try {
        this.conn ??= await this.connect()
        const r = await this.conn.run('SELECT sum(memory_usage_bytes)::DOUBLE FROM duckdb_memory()')
        this.used = Number((await r.getRows())[0][0] ?? 0)
      } catch {
        // too full even to answer (or closing): count it as full
        this.used = this.limitBytes
      }
      this.sampledAt = Date.now()
    })().finally(() => {
      this.sampling = undefined
    })
    return this.sampling
  }

  /** Waits for a sample under way, then closes the connection. */
  async close(): Promise<void> {
    await this.sampling
    this.conn?.closeSync()
    this.conn = undefined
  }

  /**
   * Refuses a write (503) when the pool is past POOL_SHED_FRACTION (`fraction` from fraction())
   * while a checkpoint is overdue (overdueWalBytes).
   */
  admit(fraction: number, walBytes: number): void {
    if (fraction >= POOL_SHED_FRACTION && walBytes >= this.overdueBytes) {
      const mib = (b: number): string => (b / 2 ** 20).toFixed(1)
      throw new StorageUnavailableError(
        `storage memory nearly full (${mib(this.used)} of ${mib(this.limitBytes)} MiB used): write refused until a checkpoint has run`,
      )
    }
  }
}
