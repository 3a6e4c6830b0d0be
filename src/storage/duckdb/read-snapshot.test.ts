/**
 * A read is planned and executed in one transaction. DuckDB 1.5 plans with the table statistics
 * of the moment; when a prepare and its execution ran in transactions of their own, rows committed
 * between the two came back sorted by garbage keys (a timestamp of 256 for every row), or were
 * filtered or joined out (DuckDB issues 23704 and 24182). Found by the receivers' fuzz tests: a
 * SELECT racing the first write into a new table.
 */
import { DuckDBInstance } from '@duckdb/node-api'
import { describe, expect, it } from 'vitest'
import { DuckDBEngine } from './engine.js'

const LATE = [1700000000000000000n, 1700000001000000000n]

async function rows(engine: DuckDBEngine, sql: string): Promise<unknown[][]> {
  const out: unknown[][] = []
  for await (const chunk of engine.stream(sql)) {
    out.push(...chunk)
  }
  return out
}

describe('reads see one snapshot from plan to last row', () => {
  it('DuckDB: a prepare and an execution in one transaction agree, in two they do not', async () => {
    const db = await DuckDBInstance.create(':memory:')
    const writer = await db.connect()
    const reader = await db.connect()
    try {
      const run = async (oneTx: boolean): Promise<unknown[][]> => {
        await writer.run('CREATE OR REPLACE TABLE t (_tid INTEGER, ts BIGINT)')
        await writer.run('INSERT INTO t VALUES (1, 5)')
        if (oneTx) {
          await reader.run('BEGIN TRANSACTION')
        }
        const prepared = await reader.prepare('SELECT ts FROM t ORDER BY _tid, ts')
        await writer.run(`INSERT INTO t VALUES (1, ${LATE[0]}), (1, ${LATE[1]})`)
        const got = (await prepared.runAndReadAll()).getRows()
        if (oneTx) {
          await reader.run('ROLLBACK')
        }
        return got
      }
      // one transaction: the snapshot began at the prepare, before the insert
      expect(await run(true)).toEqual([[5n]])
      // two: the new rows are seen, sorted by keys narrowed to the range stored at the prepare
      const apart = await run(false)
      expect(apart).toHaveLength(3)
      expect(apart.slice(1)).not.toEqual([[LATE[0]], [LATE[1]]])
    } finally {
      writer.closeSync()
      reader.closeSync()
      db.closeSync()
    }
  })

  it('the engine: reads racing the first writes into new tables answer what was stored', async () => {
    const engine = await DuckDBEngine.open(':memory:')
    try {
      await engine.exec('CREATE SCHEMA td_r')
      const wrong: string[] = []
      for (let i = 0; i < 150; i++) {
        await engine.exec(`CREATE TABLE td_r.m${i} (_tid INTEGER, ts BIGINT, v DOUBLE)`)
        await engine.exec(`INSERT INTO td_r.m${i} VALUES (1, 5, 0.5)`)
        const write = engine.exec(`INSERT INTO td_r.m${i} VALUES (1, ${LATE[0]}, 1.5), (1, ${LATE[1]}, 2.5)`)
        let seen: unknown[][] = []
        for (let k = 0; k < 50 && seen.length < 3; k++) {
          seen = await rows(engine, `SELECT ts, v FROM td_r.m${i} ORDER BY _tid, ts`)
          if (seen.length === 3 && JSON.stringify(seen.map((r) => String(r[0]))) !== JSON.stringify(['5', ...LATE.map(String)])) {
            wrong.push(`m${i}: ${seen.map((r) => String(r[0])).join(' ')}`)
          }
        }
        await write
      }
      expect(wrong).toEqual([])
      // the pooled connections hold no transaction: a checkpoint after an UPDATE goes through
      await engine.exec('UPDATE td_r.m0 SET v = 1')
      await engine.exec('CHECKPOINT')
    } finally {
      await engine.close()
    }
  })
})
