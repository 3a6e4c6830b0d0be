import { Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { DuckDBEngine } from '../storage/duckdb/engine.js'
import { createStorageGroupCommitMetrics, createStorageMemoryMetrics, createStoragePoolMetrics, createStorageUpMetric, createStorageWalMetrics } from './storage-metrics.js'
import type { PoolStats } from './storage-metrics.js'

describe('createStoragePoolMetrics', () => {
  it('reads the pool at scrape time', async () => {
    const registry = new Registry()
    const stats: PoolStats = { total: 0, idle: 0, waiting: 0 }
    expect(createStoragePoolMetrics(registry, { poolStats: () => ({ ...stats }) })).toBe(true)

    Object.assign(stats, { total: 5, idle: 2, waiting: 3 })
    let text = await registry.metrics()
    expect(text).toContain('db_adapter_storage_pool_connections{state="total"} 5')
    expect(text).toContain('db_adapter_storage_pool_connections{state="idle"} 2')
    expect(text).toContain('db_adapter_storage_pool_connections{state="in_use"} 3')
    expect(text).toContain('db_adapter_storage_pool_waiting 3')

    Object.assign(stats, { total: 1, idle: 1, waiting: 0 })
    text = await registry.metrics()
    expect(text).toContain('db_adapter_storage_pool_connections{state="in_use"} 0')
    expect(text).toContain('db_adapter_storage_pool_waiting 0')
  })

  it('registers nothing for an engine without pool stats', async () => {
    const registry = new Registry()
    expect(createStoragePoolMetrics(registry, { dialect: { name: 'duckdb' } })).toBe(false)
    expect(await registry.metrics()).not.toContain('db_adapter_storage_pool')
  })
})

describe('createStorageWalMetrics', () => {
  it('reads the WAL size and the checkpoint totals at scrape time', async () => {
    const registry = new Registry()
    const stats = { walBytes: 100, done: 0, failed: 0 }
    expect(createStorageWalMetrics(registry, { checkpointStats: () => ({ ...stats }) })).toBe(true)
    let text = await registry.metrics()
    expect(text).toContain('db_adapter_storage_wal_bytes 100')
    expect(text).toContain('db_adapter_storage_checkpoints_total{result="done"} 0')
    Object.assign(stats, { walBytes: 7, done: 3, failed: 1 })
    text = await registry.metrics()
    expect(text).toContain('db_adapter_storage_wal_bytes 7')
    expect(text).toContain('db_adapter_storage_checkpoints_total{result="done"} 3')
    expect(text).toContain('db_adapter_storage_checkpoints_total{result="failed"} 1')
  })

  it('registers nothing without a WAL to report', async () => {
    const registry = new Registry()
    expect(createStorageWalMetrics(registry, { checkpointStats: () => undefined })).toBe(false)
    expect(createStorageWalMetrics(registry, { poolStats: () => ({ total: 1, idle: 1, waiting: 0 }) })).toBe(false)
    expect(await registry.metrics()).not.toContain('db_adapter_storage_wal')
  })
})

describe('createStorageGroupCommitMetrics', () => {
  it('reads the group commits and the writes they carried at scrape time', async () => {
    const registry = new Registry()
    const stats = { groups: 0, members: 0 }
    expect(createStorageGroupCommitMetrics(registry, { groupCommitStats: () => ({ ...stats }) })).toBe(true)
    expect(await registry.metrics()).toContain('db_adapter_storage_group_commits_total 0')
    Object.assign(stats, { groups: 4, members: 9 })
    const text = await registry.metrics()
    expect(text).toContain('db_adapter_storage_group_commits_total 4')
    expect(text).toContain('db_adapter_storage_group_commit_writes_total 9')
  })

  it('counts the DuckDB engine\'s own, and registers nothing for an engine without them', async () => {
    const engine = await DuckDBEngine.open(':memory:')
    try {
      await engine.exec('CREATE SCHEMA td_gm')
      await engine.exec('CREATE TABLE td_gm.t (_tid INTEGER, ts BIGINT, v DOUBLE)')
      const registry = new Registry()
      expect(createStorageGroupCommitMetrics(registry, engine)).toBe(true)
      const n = await engine.appendColumns([{
        db: 'gm', table: 't', columns: ['ts', 'v'], count: 2,
        tids: Int32Array.of(1), starts: Int32Array.of(0, 2), ts: BigInt64Array.of(1n, 2n),
        values: [Float64Array.of(0.5, 1.5)], valid: [undefined], first: [1n], last: [2n],
      }])
      expect(n).toBe(2)
      const text = await registry.metrics()
      expect(text).toContain('db_adapter_storage_group_commits_total 1')
      expect(text).toContain('db_adapter_storage_group_commit_writes_total 1')
    } finally {
      await engine.close()
    }
    expect(createStorageGroupCommitMetrics(new Registry(), { poolStats: () => ({ total: 1, idle: 1, waiting: 0 }) })).toBe(false)
  })
})

describe('createStorageMemoryMetrics', () => {
  it("reads a real DuckDB's buffer pool and memory_limit at scrape time; nothing for PostgreSQL-like engines", async () => {
    const engine = await DuckDBEngine.open(':memory:', { memoryLimitBytes: 40 * 2 ** 20 })
    try {
      const registry = new Registry()
      expect(createStorageMemoryMetrics(registry, engine)).toBe(true)
      const before = await registry.metrics()
      expect(before).toContain(`db_adapter_storage_memory_bytes{kind="limit"} ${40 * 2 ** 20}`)
      await engine.exec('CREATE TABLE t AS SELECT i, i * 2.5 AS v FROM range(2000000) r(i)')
      const used = Number(/db_adapter_storage_memory_bytes\{kind="used"\} (\d+)/.exec(await registry.metrics())?.[1])
      // two million BIGINT + DOUBLE rows held in the in-memory database's pool
      expect(used).toBeGreaterThan(16 * 2 ** 20)
    } finally {
      await engine.close()
    }
    const other = new Registry()
    expect(createStorageMemoryMetrics(other, { dialect: { name: 'postgres' } })).toBe(false)
    expect(await other.metrics()).not.toContain('db_adapter_storage_memory')
  })
})

describe('db_adapter_storage_up', () => {
  const value = async (healthy?: () => Promise<boolean>, fatal?: () => Promise<string | undefined>): Promise<number> => {
    const registry = new Registry()
    createStorageUpMetric(registry, healthy, fatal)
    const text = await registry.metrics()
    return Number(/^db_adapter_storage_up (\S+)$/m.exec(text)?.[1])
  }

  it('is 1 while the backend answers, 0 when it does not or failed for good, read at each scrape', async () => {
    expect(await value(async () => true, async () => undefined)).toBe(1)
    expect(await value(undefined, undefined)).toBe(1)
    expect(await value(async () => false, async () => undefined)).toBe(0)
    expect(await value(async () => true, async () => 'database invalidated')).toBe(0)
    let up = true
    const registry = new Registry()
    createStorageUpMetric(registry, async () => up, undefined)
    expect(await registry.metrics()).toMatch(/^db_adapter_storage_up 1$/m)
    up = false
    expect(await registry.metrics()).toMatch(/^db_adapter_storage_up 0$/m)
  })
})
