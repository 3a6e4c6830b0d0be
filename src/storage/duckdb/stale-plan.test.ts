/**
 * Every read is prepared, then executed in a transaction of its own: rows committed between the
 * two must be read as stored. DuckDB 1.5 planned with the statistics of the moment of PREPARE
 * (an ORDER BY's keys narrowed to the range then stored, filters proved empty), so a SELECT racing
 * the first write into a table answered timestamps such as 256 (found by the receivers' fuzz tests).
 */
import { DuckDBInstance } from '@duckdb/node-api'
import { describe, expect, it } from 'vitest'
import { DuckDBEngine, STALE_PLAN_OPTIMIZERS } from './engine.js'

const LATE = [1700000000000000000n, 1700000001000000000n]

async function preparedAcrossInsert(settings: Record<string, string>, sql: string): Promise<unknown[][]> {
  const db = await DuckDBInstance.create(':memory:', settings)
  const writer = await db.connect()
  const reader = await db.connect()
  try {
    await writer.run('CREATE TABLE t (_tid INTEGER, ts BIGINT, v DOUBLE)')
    await writer.run('INSERT INTO t VALUES (1, 5, 0.5)')
    const prepared = await reader.prepare(sql)
    await writer.run(`INSERT INTO t VALUES (1, ${LATE[0]}, 1.5), (1, ${LATE[1]}, 2.5)`)
    return (await prepared.runAndReadAll()).getRows()
  } finally {
    writer.closeSync()
    reader.closeSync()
    db.closeSync()
  }
}

describe('a read prepared before rows are committed and executed after', () => {
  const settings = { disabled_optimizers: STALE_PLAN_OPTIMIZERS }

  it('sorts the rows as stored', async () => {
    expect(await preparedAcrossInsert(settings, 'SELECT ts, v FROM t ORDER BY _tid, ts')).toEqual([
      [5n, 0.5],
      [LATE[0], 1.5],
      [LATE[1], 2.5],
    ])
  })

  it('filters the new rows in, alone and in a join', async () => {
    expect(await preparedAcrossInsert(settings, 'SELECT count(*) FROM t WHERE ts > 100')).toEqual([[2n]])
    expect(await preparedAcrossInsert(settings, 'SELECT count(*) FROM t a JOIN t b ON a.ts = b.ts')).toEqual([[3n]])
  })

  it('without the setting DuckDB gets them wrong (when this fails, DuckDB has the fix and the setting can go)', async () => {
    expect(await preparedAcrossInsert({}, 'SELECT count(*) FROM t WHERE ts > 100')).toEqual([[0n]])
  })

  it('is how the engine opens DuckDB', async () => {
    const engine = await DuckDBEngine.open(':memory:')
    try {
      expect(await engine.query("SELECT current_setting('disabled_optimizers')")).toEqual([[STALE_PLAN_OPTIMIZERS]])
    } finally {
      await engine.close()
    }
  })
})
