/**
 * Column appends to a file database commit on DuckDB's thread pool (AsyncCommits) while the
 * next write appends: each write is acknowledged only once committed, other writes wait for the
 * commits in flight (a rewrite must see the rows it overwrites, DDL and checkpoints must not
 * conflict with them), and everything survives a reopen.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { ColumnBatch } from '../types.js'
import { DuckDBEngine } from './engine.js'

const dir = mkdtempSync(join(tmpdir(), 'db-adapter-async-commit-'))

afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

/** `n` rows of child `tid` at timestamps from, from+1, ... with value `v` */
function batch(tid: number, from: number, n: number, v: number): ColumnBatch {
  return {
    db: 'a',
    table: 't',
    columns: ['ts', 'v'],
    count: n,
    tids: Int32Array.of(tid),
    starts: Int32Array.of(0, n),
    ts: BigInt64Array.from({ length: n }, (_, i) => BigInt(from + i)),
    values: [new Float64Array(n).fill(v)],
    valid: [undefined],
  }
}

async function open(name: string, opts: { checkpointWalBytes?: number } = {}): Promise<DuckDBEngine> {
  const engine = await DuckDBEngine.open(join(dir, name), opts)
  await engine.exec('CREATE SCHEMA IF NOT EXISTS td_a')
  await engine.exec('CREATE TABLE IF NOT EXISTS td_a.t (_tid INTEGER, ts BIGINT, v DOUBLE)')
  return engine
}

describe('DuckDB column appends with asynchronous commits', () => {
  it('acknowledge concurrent writes once their rows are visible, and keep them all across a reopen', async () => {
    let engine = await open('many.duckdb')
    const writes = Array.from({ length: 40 }, (_, k) =>
      engine.appendColumns([batch(1 + (k % 4), k * 1000, 1000, k)]).then(async (n) => {
        // visible to a reader at once: the acknowledgement came after the COMMIT
        const seen = await engine.query(`SELECT count(*) FROM td_a.t WHERE _tid = ${1 + (k % 4)} AND ts >= ${k * 1000} AND ts < ${k * 1000 + 1000}`)
        return [n, seen[0][0]]
      }),
    )
    expect(await Promise.all(writes)).toEqual(Array.from({ length: 40 }, () => [1000, 1000n]))
    expect(await engine.query('SELECT count(*), count(DISTINCT (_tid, ts)) FROM td_a.t')).toEqual([[40_000n, 40_000n]])
    await engine.close()
    engine = await open('many.duckdb')
    try {
      expect(await engine.query('SELECT count(*), sum(v) FROM td_a.t')).toEqual([[40_000n, 1000 * ((39 * 40) / 2)]])
    } finally {
      await engine.close()
    }
  })

  it('let a rewrite sent while they commit overwrite their rows instead of duplicating them', async () => {
    const engine = await open('rewrite.duckdb')
    try {
      // a large append commits for a while; the small rewrite is ready to run long before
      const n = 300_000
      for (let round = 0; round < 3; round++) {
        const from = round * n
        const appended = engine.appendColumns([batch(1, from, n, 1)])
        // same keys, not awaited before: the rows path stages them and must find the appended rows
        const rows = Array.from({ length: 10 }, (_, i) => [BigInt(from + i), 2])
        const rewritten = engine.writeRows([{ db: 'a', table: 't', tid: 1, columns: ['ts', 'v'], rows }])
        expect(await Promise.all([appended, rewritten])).toEqual([n, 10])
      }
      expect(await engine.query('SELECT count(*), count(*) FILTER (v = 2) FROM td_a.t')).toEqual([[3n * BigInt(n), 30n]])
    } finally {
      await engine.close()
    }
  })

  it('let DDL run between them', async () => {
    const engine = await open('ddl.duckdb')
    try {
      const first = engine.appendColumns([batch(1, 0, 1000, 1)])
      const altered = engine.exec('ALTER TABLE td_a.t ADD COLUMN w DOUBLE')
      const second = engine.appendColumns([batch(2, 0, 1000, 2)])
      expect(await Promise.all([first, altered, second])).toEqual([1000, 0, 1000])
      expect(await engine.query('SELECT _tid, count(*), count(w) FROM td_a.t GROUP BY _tid ORDER BY _tid')).toEqual([
        [1, 1000n, 0n],
        [2, 1000n, 0n],
      ])
    } finally {
      await engine.close()
    }
  })

  it('are checkpointed once the WAL passes the threshold', async () => {
    const file = join(dir, 'wal.duckdb')
    const threshold = 256 * 1024
    const engine = await open('wal.duckdb', { checkpointWalBytes: threshold })
    const walSize = (): number => {
      try {
        return statSync(`${file}.wal`).size
      } catch {
        return 0
      }
    }
    try {
      let peak = 0
      let k = 0
      for (; k < 200 && engine.checkpointStats()?.done === 0; k++) {
        // two at a time, so that one commits while the other appends
        await Promise.all([engine.appendColumns([batch(1, 2 * k * 2000, 2000, k)]), engine.appendColumns([batch(2, 2 * k * 2000, 2000, k)])])
        peak = Math.max(peak, walSize())
      }
      expect(peak).toBeGreaterThanOrEqual(threshold)
      const end = Date.now() + 5000
      while (walSize() >= threshold && Date.now() < end) {
        await new Promise((r) => setTimeout(r, 20))
      }
      expect(walSize()).toBeLessThan(threshold)
      expect(await engine.query('SELECT count(*) FROM td_a.t')).toEqual([[BigInt(k * 4000)]])
    } finally {
      await engine.close()
    }
  })
})
