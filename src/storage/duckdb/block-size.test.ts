/**
 * New database files get 64 KiB blocks (a quarter of the buffer pool a checkpointed table holds);
 * a file keeps the block size it was made with, so files of DuckDB's default 256 KiB keep opening,
 * reading and writing as before.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DuckDBInstance } from '@duckdb/node-api'
import { afterAll, describe, expect, it } from 'vitest'
import { DuckDBEngine } from './engine.js'

const dir = mkdtempSync(join(tmpdir(), 'db-adapter-block-size-'))

afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

async function blockSize(engine: DuckDBEngine): Promise<number> {
  const [[size]] = await engine.query('SELECT block_size FROM pragma_database_size() WHERE database_name = current_database()')
  return Number(size)
}

describe('DuckDB block size', () => {
  it('is 64 KiB for a new file, and stays so on reopening', async () => {
    const file = join(dir, 'new.duckdb')
    let engine = await DuckDBEngine.open(file)
    try {
      expect(await blockSize(engine)).toBe(65536)
      await engine.exec('CREATE SCHEMA td_n')
      await engine.exec('CREATE TABLE td_n.t (_tid INTEGER, ts BIGINT, v DOUBLE)')
      await engine.writeRows([{ db: 'n', table: 't', tid: 1, columns: ['ts', 'v'], rows: [[1n, 1.5]] }])
    } finally {
      await engine.close()
    }
    engine = await DuckDBEngine.open(file)
    try {
      expect(await blockSize(engine)).toBe(65536)
      expect(await engine.query('SELECT ts, v FROM td_n.t')).toEqual([[1n, 1.5]])
    } finally {
      await engine.close()
    }
  })

  it('of an existing file made with 256 KiB blocks is kept: it opens, reads and takes writes', async () => {
    const file = join(dir, 'old.duckdb')
    const old = await DuckDBInstance.create(file)
    const c = await old.connect()
    await c.run('CREATE SCHEMA td_o')
    await c.run('CREATE TABLE td_o.t (_tid INTEGER, ts BIGINT, v DOUBLE)')
    await c.run('INSERT INTO td_o.t SELECT 1, i, i / 2 FROM range(100000) r(i)')
    await c.run('CHECKPOINT')
    c.closeSync()
    old.closeSync()

    const engine = await DuckDBEngine.open(file)
    try {
      expect(await blockSize(engine)).toBe(262144)
      await engine.writeRows([{ db: 'o', table: 't', tid: 1, columns: ['ts', 'v'], rows: [[100000n, 7]] }])
      await engine.exec('CHECKPOINT')
      expect(await engine.query('SELECT count(*), max(ts) FROM td_o.t')).toEqual([[100001n, 100000n]])
      expect(await blockSize(engine)).toBe(262144)
    } finally {
      await engine.close()
    }
  })
})
