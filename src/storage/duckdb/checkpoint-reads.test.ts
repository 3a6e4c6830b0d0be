/**
 * A schema change (or an UPDATE) committed while a read is open keeps DuckDB's checkpoint lock
 * until that read ends (open-reads.ts): the engine's checkpoints wait for such reads instead of
 * failing, end results their consumer left unfinished, and cancel the reads only when the WAL
 * cannot wait.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { DuckDBEngine } from './engine.js'

const dir = mkdtempSync(join(tmpdir(), 'db-adapter-checkpoint-reads-'))

afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

const THRESHOLD = 64 * 1024

async function setup(name: string): Promise<DuckDBEngine> {
  const engine = await DuckDBEngine.open(join(dir, `${name}.duckdb`), { checkpointWalBytes: THRESHOLD })
  await engine.exec('CREATE SCHEMA td_r')
  await engine.exec('CREATE TABLE td_r.big AS SELECT range AS ts, range / 7 AS v FROM range(200000)')
  await engine.exec('CREATE TABLE td_r.t (_tid INTEGER, ts BIGINT, v DOUBLE)')
  await engine.exec('CHECKPOINT')
  return engine
}

/** appends while `more()` says so, at most `max` times */
async function writeWhile(engine: DuckDBEngine, from: number, more: () => boolean, max: number): Promise<number> {
  for (let k = 0; k < max && more(); k++) {
    const rows = Array.from({ length: 2000 }, (_, i) => [BigInt(from + i), i / 3])
    await engine.writeRows([{ db: 'r', table: 't', tid: 1, columns: ['ts', 'v'], rows }])
    from += 2000
    await new Promise((r) => setTimeout(r, 5))
  }
  return from
}

describe('DuckDB checkpoints and open reads', () => {
  it('wait for a read open at a schema change instead of failing, and run once it ends', async () => {
    const engine = await setup('wait')
    try {
      const it = engine.stream('SELECT * FROM td_r.big', { chunkRows: 1000 })[Symbol.asyncIterator]()
      expect((await it.next()).done).toBe(false)
      await engine.exec('CREATE TABLE td_r.later (a INTEGER)')
      // past the threshold but short of the bar at which the read would be cancelled (4 times it)
      const wal = (): number => engine.checkpointStats()?.walBytes ?? 0
      let next = await writeWhile(engine, 0, () => wal() < 2 * THRESHOLD, 30)
      expect(wal()).toBeGreaterThanOrEqual(2 * THRESHOLD)
      expect(wal()).toBeLessThan(4 * THRESHOLD)
      expect(engine.checkpointStats()).toMatchObject({ done: 0, failed: 0 })
      let rows = 1000
      for (let r = await it.next(); !r.done; r = await it.next()) {
        rows += r.value.length
      }
      expect(rows).toBe(200000)
      next = await writeWhile(engine, next, () => engine.checkpointStats()?.done === 0, 50)
      expect(engine.checkpointStats()).toMatchObject({ done: 1, failed: 0, readsCancelled: 0 })
      expect(next).toBeGreaterThan(0)
    } finally {
      await engine.close()
    }
  })

  it('do not wait for a result its consumer left unfinished', async () => {
    const engine = await setup('left')
    try {
      for await (const chunk of engine.stream('SELECT * FROM td_r.big', { chunkRows: 1000 })) {
        expect(chunk.length).toBe(1000)
        // the consumer stops early (a row limit, a client gone): its transaction must end with it
        break
      }
      await engine.exec('CREATE TABLE td_r.later (a INTEGER)')
      await writeWhile(engine, 0, () => engine.checkpointStats()?.done === 0, 50)
      expect(engine.checkpointStats()).toMatchObject({ done: 1, failed: 0, readsCancelled: 0 })
    } finally {
      await engine.close()
    }
  })

  it('cancel the read that holds them back once the WAL is far past its threshold', async () => {
    const engine = await setup('cancel')
    try {
      const it = engine.stream('SELECT * FROM td_r.big', { chunkRows: 1000 })[Symbol.asyncIterator]()
      expect((await it.next()).done).toBe(false)
      await engine.exec('ALTER TABLE td_r.t ADD COLUMN w DOUBLE')
      await writeWhile(engine, 0, () => engine.checkpointStats()?.done === 0, 200)
      expect(engine.checkpointStats()).toMatchObject({ done: 1, failed: 0, readsCancelled: 1 })
      // the consumer learns that its result is not whole
      await expect((async () => {
        for (let r = await it.next(); !r.done; r = await it.next()) {
          // draining
        }
      })()).rejects.toThrow(/query cancelled: the storage had to checkpoint/)
      const [[n]] = await engine.query('SELECT count(*) FROM td_r.t')
      expect(Number(n)).toBeGreaterThan(0)
    } finally {
      await engine.close()
    }
  })
})
