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

/** Samples DuckDB's buffer pool use before writes. */
export class PoolWatch {
  private sampledAt = 0
  private used = 0

  constructor(
    private readonly limitBytes: number,
    /** see overdueWalBytes */
    private readonly overdueBytes: number,
  ) {}

  /** The pool's use as a fraction of its limit, sampled on `conn` at most every SAMPLE_MS. */
  async fraction(conn: DuckDBConnection): Promise<number> {
    if (!(this.limitBytes > 0)) {
      return 0
    }
    if (Date.now() - this.sampledAt >= SAMPLE_MS) {
      try {
        const r = await conn.run('SELECT sum(memory_usage_bytes)::DOUBLE FROM duckdb_memory()')
        this.used = Number((await r.getRows())[0][0] ?? 0)
      } catch {
        // too full even to answer (or closing): count it as full
        this.used = this.limitBytes
      }
      this.sampledAt = Date.now()
    }
    return this.used / this.limitBytes
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
