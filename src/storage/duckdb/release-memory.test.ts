/**
 * After a burst of queries DuckDB keeps its buffer pool and its allocator's cache: on a file
 * database, releaseMemory gives them back (the memory gate calls it when it pauses), and the
 * database answers as before.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { DuckDBEngine } from './engine.js'

const dir = mkdtempSync(join(tmpdir(), 'db-adapter-release-'))

afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

const rssMiB = (): number => process.memoryUsage().rss / 1048576

describe('DuckDBEngine.releaseMemory', () => {
  it('gives back what a burst of aggregates left behind, keeps the memory limit, and the data', async () => {
    const engine = await DuckDBEngine.open(join(dir, 'burst.duckdb'))
    try {
      await engine.exec('CREATE TABLE t AS SELECT range AS id, random() AS v, (range % 1000)::INT AS g FROM range(10000000)')
      await engine.exec('CHECKPOINT')
      const limit = await engine.query(`SELECT current_setting('memory_limit')`)
      const before = rssMiB()
      for (let i = 0; i < 3; i++) {
        await engine.query('SELECT g, avg(v), count(DISTINCT id) FROM t GROUP BY g')
      }
      const burst = rssMiB()
      await engine.releaseMemory()
      const after = rssMiB()
      // the burst costs hundreds of MiB (about 700 on the first run here); most of it comes back
      expect(burst - before, `rss before ${before}, after the burst ${burst}`).toBeGreaterThan(200)
      expect(burst - after, `rss after the burst ${burst}, after release ${after}`).toBeGreaterThan((burst - before) / 2)
      expect(await engine.query(`SELECT current_setting('memory_limit')`)).toEqual(limit)
      expect(await engine.query('SELECT count(*) FROM t')).toEqual([[10000000n]])
    } finally {
      await engine.close()
    }
  })

  it('runs jemalloc\'s background thread, so what DuckDB frees goes back idle, without a gate pause', async () => {
    // measured in a 400 MiB cgroup after the overload test's burst: without it ~100 MiB of freed
    // pages stayed until DuckDB's threads allocated again (13 MiB in the buffer pool); with it they
    // went back within seconds (test/e2e/cgroup-overload.test.ts prints the split at rest)
    const engine = await DuckDBEngine.open(join(dir, 'idle.duckdb'))
    try {
      expect(await engine.query(`SELECT current_setting('allocator_background_threads')`)).toEqual([[true]])
    } finally {
      await engine.close()
    }
  })

  it('runs under the memory limit it was opened with, and releaseMemory restores that one', async () => {
    const engine = await DuckDBEngine.open(join(dir, 'limited.duckdb'), { memoryLimitBytes: 96 * 2 ** 20 })
    try {
      const setting = async (): Promise<unknown> => (await engine.query(`SELECT current_setting('memory_limit')`))[0][0]
      expect(await setting()).toBe('96.0 MiB')
      await engine.exec('CREATE TABLE t AS SELECT range AS id FROM range(1000000)')
      await engine.releaseMemory()
      expect(await setting()).toBe('96.0 MiB')
    } finally {
      await engine.close()
    }
  })

  it('does nothing on an in-memory database (its data would have to spill)', async () => {
    const engine = await DuckDBEngine.open(':memory:')
    try {
      const limit = await engine.query(`SELECT current_setting('memory_limit')`)
      await engine.releaseMemory()
      expect(await engine.query(`SELECT current_setting('memory_limit')`)).toEqual(limit)
    } finally {
      await engine.close()
    }
  })
})
