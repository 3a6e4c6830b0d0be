/**
 * A file database is checkpointed by the engine, after writes, once its WAL passes the threshold,
 * instead of by DuckDB inside a commit (which, for a one-flush append, is the main thread's
 * closeSync).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { CHECKPOINT_NEW_TABLES, CHECKPOINT_WAL_BYTES, newTablesBar } from './checkpoint.js'
import { DuckDBEngine } from './engine.js'

const dir = mkdtempSync(join(tmpdir(), 'db-adapter-checkpoint-'))

afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

const walSize = (file: string): number => {
  try {
    return statSync(`${file}.wal`).size
  } catch {
    return 0
  }
}

/** `n` one-flush appends of 2000 rows each to td_c.t, continuing at `from` */
async function append(engine: DuckDBEngine, from: number, n: number): Promise<number> {
  for (let k = 0; k < n; k++) {
    const rows = Array.from({ length: 2000 }, (_, i) => [BigInt(from + i), (from + i) / 3])
    await engine.writeRows([{ db: 'c', table: 't', tid: 1, columns: ['ts', 'v'], rows }])
    from += 2000
  }
  return from
}

async function until(cond: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms
  while (!cond() && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 20))
  }
  return cond()
}

describe('DuckDB checkpoints', () => {
  it('are taken by the engine between writes once the WAL passes its threshold, and keep every row', async () => {
    const file = join(dir, 'a.duckdb')
    const threshold = 256 * 1024
    let engine = await DuckDBEngine.open(file, { checkpointWalBytes: threshold })
    await engine.exec('CREATE SCHEMA td_c')
    await engine.exec('CREATE TABLE td_c.t (_tid INTEGER, ts BIGINT, v DOUBLE)')
    let next = await append(engine, 0, 2)
    const small = walSize(file)
    expect(small).toBeGreaterThan(0)
    expect(small).toBeLessThan(threshold)
    // DuckDB alone would not checkpoint below its own 16 MiB; the WAL shrinking shows the engine did
    let peak = small
    for (let k = 0; k < 40 && !(peak >= threshold && walSize(file) < threshold); k++) {
      next = await append(engine, next, 1)
      peak = Math.max(peak, walSize(file))
    }
    expect(peak).toBeGreaterThanOrEqual(threshold)
    expect(await until(() => walSize(file) < threshold, 5000)).toBe(true)
    expect(engine.checkpointStats()?.done).toBeGreaterThanOrEqual(1)
    expect(engine.checkpointStats()?.walBytes).toBe(walSize(file))
    expect(await engine.query('SELECT count(*), sum(ts) FROM td_c.t')).toEqual([[BigInt(next), BigInt((next * (next - 1)) / 2)]])
    await engine.close()

    engine = await DuckDBEngine.open(file, { checkpointWalBytes: threshold })
    try {
      expect(await engine.query('SELECT count(*) FROM td_c.t')).toEqual([[BigInt(next)]])
    } finally {
      await engine.close()
    }
  })

  it('are taken once many tables were created, so that new super tables fit under a memory_limit', async () => {
    // one row in each of 500 table pairs: DuckDB keeps such rows in buffers it cannot evict until
    // a checkpoint; under 48 MB they failed with "could not allocate block" before the engine
    // checkpointed by the number of tables created (the WAL stays far below its threshold)
    const file = join(dir, 'tables.duckdb')
    const engine = await DuckDBEngine.open(file)
    try {
      await engine.exec("SET memory_limit = '48MB'")
      await engine.exec('CREATE SCHEMA td_m')
      const pairs = 500
      for (let i = 0; i < pairs; i++) {
        await engine.exec(`CREATE TABLE td_m.m${i} (_tid INTEGER NOT NULL, ts BIGINT, v DOUBLE)`)
        await engine.exec(`CREATE TABLE "td_m"."m${i}$tags" (_tid INTEGER, tbname VARCHAR NOT NULL, h VARCHAR)`)
        await engine.insertRows('td_m', `m${i}$tags`, ['_tid', 'tbname', 'h'], [[1, `t_${i}`, 'a']])
        await engine.writeRows([{ db: 'm', table: `m${i}`, tid: 1, columns: ['ts', 'v'], rows: [[1700000000000n, i]] }])
      }
      expect(walSize(file)).toBeLessThan(CHECKPOINT_WAL_BYTES)
      expect(engine.checkpointStats()?.done).toBeGreaterThanOrEqual(Math.floor((pairs * 2) / CHECKPOINT_NEW_TABLES) - 1)
      const [[tables, rows]] = await engine.query(
        `SELECT count(*), sum(estimated_size) FROM duckdb_tables() WHERE schema_name = 'td_m'`,
      )
      expect([tables, rows]).toEqual([BigInt(pairs * 2), BigInt(pairs * 2)])
      expect(await engine.query('SELECT sum(v) FROM td_m.m499')).toEqual([[499]])
    } finally {
      await engine.close()
    }
  })

  it('are taken once writes have gone quiet with a megabyte or more in the WAL, and not while they go on', async () => {
    const file = join(dir, 'idle.duckdb')
    const engine = await DuckDBEngine.open(file, { checkpointIdleMs: 600 })
    try {
      await engine.exec('CREATE SCHEMA td_c')
      await engine.exec('CREATE TABLE td_c.t (_tid INTEGER, ts BIGINT, v DOUBLE)')
      let next = 0
      // writes closer together than the idle time: no checkpoint, far below the 16 MiB threshold
      while (walSize(file) < 1024 * 1024) {
        next = await append(engine, next, 1)
        await new Promise((r) => setTimeout(r, 100))
      }
      expect(engine.checkpointStats()?.done).toBe(0)
      expect(await until(() => engine.checkpointStats()?.done === 1, 5000)).toBe(true)
      expect(walSize(file)).toBeLessThan(1024 * 1024)
      expect(await engine.query('SELECT count(*) FROM td_c.t')).toEqual([[BigInt(next)]])
      // a small WAL is left for the next writes
      next = await append(engine, next, 1)
      await new Promise((r) => setTimeout(r, 1500))
      expect(engine.checkpointStats()?.done).toBe(1)
    } finally {
      await engine.close()
    }
  })

  it('wait for more new tables the more the file holds, within a fifth of the pool', async () => {
    expect(newTablesBar(0, 2 ** 30)).toBe(CHECKPOINT_NEW_TABLES)
    expect(newTablesBar(4000, 2 ** 30)).toBe(1000)
    // 48 MB of pool: a fifth of it holds ~153 new tables' rows, under the fixed bar
    expect(newTablesBar(4000, 48 * 2 ** 20)).toBe(CHECKPOINT_NEW_TABLES)
    const file = join(dir, 'many.duckdb')
    let engine = await DuckDBEngine.open(file, { memoryLimitBytes: 2 ** 30 })
    await engine.exec('CREATE SCHEMA td_n')
    for (let i = 0; i < 1400; i++) {
      await engine.exec(`CREATE TABLE td_n.a${i} (_tid INTEGER, ts BIGINT)`)
    }
    await engine.close()
    // reopened: 1,400 tables counted, so 300 more make no checkpoint due (the fixed bar would)
    engine = await DuckDBEngine.open(file, { memoryLimitBytes: 2 ** 30 })
    try {
      for (let i = 0; i < 300; i++) {
        await engine.exec(`CREATE TABLE td_n.b${i} (_tid INTEGER, ts BIGINT)`)
        await engine.writeRows([{ db: 'n', table: `b${i}`, tid: 1, columns: ['ts'], rows: [[1700000000000n]] }])
      }
      expect(engine.checkpointStats()?.done).toBe(0)
      for (let i = 300; i < 500; i++) {
        await engine.exec(`CREATE TABLE td_n.b${i} (_tid INTEGER, ts BIGINT)`)
        await engine.writeRows([{ db: 'n', table: `b${i}`, tid: 1, columns: ['ts'], rows: [[1700000000000n]] }])
      }
      expect(await until(() => (engine.checkpointStats()?.done ?? 0) >= 1, 5000)).toBe(true)
      expect(await engine.query('SELECT count(*) FROM duckdb_tables() WHERE schema_name = \'td_n\'')).toEqual([[1900n]])
    } finally {
      await engine.close()
    }
  })

  it('leave in-memory databases alone', async () => {
    const engine = await DuckDBEngine.open(':memory:', { checkpointWalBytes: 1 })
    try {
      await engine.exec('CREATE SCHEMA td_c')
      await engine.exec('CREATE TABLE td_c.t (_tid INTEGER, ts BIGINT, v DOUBLE)')
      const next = await append(engine, 0, 3)
      expect(await engine.query('SELECT count(*) FROM td_c.t')).toEqual([[BigInt(next)]])
      expect(engine.checkpointStats()).toBeUndefined()
    } finally {
      await engine.close()
    }
  })
})
