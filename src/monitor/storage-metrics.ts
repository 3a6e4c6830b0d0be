/**
 * @module
 * Storage engine pool use on /metrics, read at scrape time (a `collect()` callback, no timer):
 *  - `db_adapter_storage_pool_connections{state="total"|"idle"|"in_use"}`
 *  - `db_adapter_storage_pool_waiting`: callers waiting for a connection.
 *
 * Any engine with a `poolStats()` method reports: PostgreSQL's `pg` pool, DuckDB's read pool.
 * An engine without one registers nothing, so /metrics never shows made-up zeros.
 *
 * A DuckDB file database also reports its write-ahead log (`checkpointStats()`):
 *  - `db_adapter_storage_wal_bytes`: the WAL's size now;
 *  - `db_adapter_storage_checkpoints_total{result="done"|"failed"}`: the engine's checkpoints.
 * and its group commits (`groupCommitStats()`).
 */
import { Counter, Gauge } from 'prom-client'
import type { Registry } from 'prom-client'

export interface PoolStats {
  /** connections open */
  total: number
  /** open and not in use */
  idle: number
  /** callers waiting for a connection */
  waiting: number
}

interface PoolStatsSource {
  poolStats(): PoolStats
}

function hasPoolStats(engine: unknown): engine is PoolStatsSource {
  return typeof (engine as Partial<PoolStatsSource> | null)?.poolStats === 'function'
}

/**
 * Registers the pool gauges for `engine` on `registry`; returns false (and registers nothing)
 * when the engine cannot tell its pool use.
 */
export function createStoragePoolMetrics(registry: Registry, engine: unknown): boolean {
  if (!hasPoolStats(engine)) {
    return false
  }
  const source = engine
  new Gauge({
    name: 'db_adapter_storage_pool_connections',
    help: 'Storage engine connection pool: connections open (total), idle, and in use',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const s = source.poolStats()
      this.set({ state: 'total' }, s.total)
      this.set({ state: 'idle' }, s.idle)
      this.set({ state: 'in_use' }, Math.max(0, s.total - s.idle))
    },
  })
  new Gauge({
    name: 'db_adapter_storage_pool_waiting',
    help: 'Storage engine calls waiting for a pool connection',
    registers: [registry],
    collect() {
      this.set(source.poolStats().waiting)
    },
  })
  return true
}

export interface CheckpointStats {
  walBytes: number
  done: number
  failed: number
  /** reads cancelled because they held back a checkpoint that could not wait */
  readsCancelled?: number
}

interface CheckpointStatsSource {
  checkpointStats(): CheckpointStats | undefined
}

/**
 * Registers the WAL and checkpoint metrics for `engine` on `registry`; false (nothing
 * registered) for an engine without a WAL of its own to report (PostgreSQL, DuckDB in memory).
 */
export function createStorageWalMetrics(registry: Registry, engine: unknown): boolean {
  const source = engine as Partial<CheckpointStatsSource> | null
  if (typeof source?.checkpointStats !== 'function' || source.checkpointStats() === undefined) {
    return false
  }
  const read = (): CheckpointStats => (source as CheckpointStatsSource).checkpointStats() ?? { walBytes: 0, done: 0, failed: 0 }
  new Gauge({
    name: 'db_adapter_storage_wal_bytes',
    help: 'Size of the embedded database write-ahead log; the adapter checkpoints it past 16 MiB',
    registers: [registry],
    collect() {
      this.set(read().walBytes)
    },
  })
  new Counter({
    name: 'db_adapter_storage_checkpoints_total',
    help: 'Checkpoints of the embedded database write-ahead log by the adapter, done or failed (retried after a later write)',
    labelNames: ['result'],
    registers: [registry],
    collect() {
      const s = read()
      // the engine keeps the totals: the counter shows them as they are
      this.reset()
      this.inc({ result: 'done' }, s.done)
      this.inc({ result: 'failed' }, s.failed)
    },
  })
  engineTotal(registry, 'db_adapter_storage_reads_cancelled_total',
    'Queries of the embedded database the adapter cancelled because they held back a checkpoint that could not wait (write-ahead log or memory nearly full)',
    () => read().readsCancelled ?? 0)
  return true
}

/** A counter whose total the engine keeps: shown as it is at scrape time. */
function engineTotal(registry: Registry, name: string, help: string, total: () => number): void {
  new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      this.reset()
      this.inc(total())
    },
  })
}

interface GroupCommitStatsSource {
  groupCommitStats(): { groups: number; members: number }
}

/**
 * `db_adapter_storage_group_commits_total` and `db_adapter_storage_group_commit_writes_total`:
 * commits of grouped column appends and the writes they carried (DuckDB's group commit). Their
 * ratio is the writes a commit served: 1 while writes do not overlap. False for other engines.
 */
export function createStorageGroupCommitMetrics(registry: Registry, engine: unknown): boolean {
  const source = engine as Partial<GroupCommitStatsSource> | null
  if (typeof source?.groupCommitStats !== 'function') {
    return false
  }
  const read = (source as GroupCommitStatsSource).groupCommitStats.bind(source)
  engineTotal(registry, 'db_adapter_storage_group_commits_total',
    'Commits of the embedded database that carried grouped column writes (line protocol lane, remote write)',
    () => read().groups)
  engineTotal(registry, 'db_adapter_storage_group_commit_writes_total',
    'Column writes committed in those commits; divided by db_adapter_storage_group_commits_total, the writes a commit served',
    () => read().members)
  return true
}

interface MemoryStatsSource {
  /** bytes the engine's buffer pool holds now and its limit; undefined when it cannot tell */
  memoryStats(): Promise<{ usedBytes: number; limitBytes: number } | undefined>
}

/**
 * `db_adapter_storage_memory_bytes{kind="used"|"limit"}`: DuckDB's buffer pool against its
 * memory_limit (derived from the memory budget), read at scrape time. The embedded database's
 * share of the process's memory, which the gate's percentage alone does not show. False (nothing
 * registered) for an engine without one (PostgreSQL: the server's memory is not the adapter's).
 */
export function createStorageMemoryMetrics(registry: Registry, engine: unknown): boolean {
  const source = engine as Partial<MemoryStatsSource> | null
  if (typeof source?.memoryStats !== 'function') {
    return false
  }
  const read = (source as MemoryStatsSource).memoryStats.bind(source)
  new Gauge({
    name: 'db_adapter_storage_memory_bytes',
    help: 'Embedded database buffer pool: bytes used, and its memory_limit',
    labelNames: ['kind'],
    registers: [registry],
    async collect() {
      const s = await read()
      if (s !== undefined) {
        this.set({ kind: 'used' }, s.usedBytes)
        this.set({ kind: 'limit' }, s.limitBytes)
      }
    },
  })
  return true
}

/**
 * `db_adapter_storage_up`: 1 while the backend answers (the readiness check of
 * `/-/ping?action=query`) and has not failed for good, else 0; read at scrape time. The alert on
 * an unreachable PostgreSQL (or an invalidated DuckDB) watches it.
 */
export function createStorageUpMetric(
  registry: Registry,
  healthy: (() => Promise<boolean>) | undefined,
  fatal: (() => Promise<string | undefined>) | undefined,
): Gauge {
  return new Gauge({
    name: 'db_adapter_storage_up',
    help: 'whether the storage backend answers: 1 yes, 0 unreachable or failed for good',
    registers: [registry],
    async collect() {
      const up = (healthy === undefined || (await healthy())) && (fatal === undefined || (await fatal()) === undefined)
      this.set(up ? 1 : 0)
    },
  })
}
