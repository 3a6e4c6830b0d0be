/**
 * @module
 * The memory the adapter may use and how it is shared out (issue 33's budget). The limit is the
 * smaller of the physical memory and the cgroup's limit when one is set: the kernel kills at the
 * cgroup's limit whatever `monitor.incgroup` says the gate measures. Out of it:
 * - storage: DuckDB's `memory_limit` (its default, 80% of the HOST's memory, ignores the cgroup);
 * - work: bytes reserved by requests in flight (bodies being parsed, results being produced),
 *   src/monitor/work-budget.ts.
 * The rest is the process itself (code, V8 heap, sockets) and the gate's headroom.
 */
import { totalmem } from 'node:os'
import { locateCgroup, readCgroupMemory } from './cgroup.js'

const MiB = 2 ** 20

export interface MemoryLimit {
  bytes: number
  source: 'cgroup' | 'physical'
}

/** The memory this process can use before the kernel steps in. */
export function detectMemoryLimit(root = '/', physical = totalmem()): MemoryLimit {
  try {
    const loc = locateCgroup(root)
    const limit = loc === undefined ? null : readCgroupMemory(loc).limit
    if (limit !== null && limit < physical) {
      return { bytes: limit, source: 'cgroup' }
    }
  } catch {
    // unreadable cgroup files: the physical memory is all we know
  }
  return { bytes: physical, source: 'physical' }
}

export interface BudgetShares {
  /** DuckDB memory_limit, bytes */
  storageBytes: number
  /** what requests in flight may reserve at once, bytes */
  workBytes: number
}

/**
 * Default shares of `limit`: a file database gets 35% (it evicts to its file past that); an
 * in-memory one holds its data in that pool, so it gets DuckDB's own 80%, of the real limit. Work
 * gets a quarter. `storage`/`work` given (> 0) win. Floors keep a tiny limit usable.
 * Measured in a 256 MiB cgroup under 4 writers and 3 readers of select *: at 25% DuckDB failed
 * an allocation inside an append, left a row group inconsistent, and its next checkpoint
 * invalidated the database (liveness then fails: Engine.fatalError); at 50% the kernel killed
 * the process before the gate could shed load; 35% had neither.
 */
export function budgetShares(limit: number, opts: { inMemory: boolean; storage?: number; work?: number }): BudgetShares {
  const storageBytes = opts.storage !== undefined && opts.storage > 0
    ? opts.storage
    : Math.max(32 * MiB, Math.floor(limit * (opts.inMemory ? 0.8 : 0.35)))
  const workBytes = opts.work !== undefined && opts.work > 0 ? opts.work : Math.max(16 * MiB, Math.floor(limit * 0.25))
  return { storageBytes, workBytes }
}

/**
 * What one streamed query result may hold at once: 45% of the work budget (two run side by side
 * in the smallest budgets, with room left for the bodies of writes), at most 48 MiB.
 */
export function queryShare(workBytes: number): number {
  return Math.min(Math.floor(workBytes * 0.45), 48 * MiB)
}
