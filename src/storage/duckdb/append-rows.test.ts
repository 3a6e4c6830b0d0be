/**
 * writeRows' appends put every physical column type into DuckDB exactly, NULLs included, across
 * data-chunk boundaries (fixed-width columns are copied into vectors as whole buffers).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DuckDBEngine } from './engine.js'

let engine: DuckDBEngine

beforeAll(async () => {
  engine = await DuckDBEngine.open(':memory:')
  await engine.exec('CREATE SCHEMA td_d')
  await engine.exec(`CREATE TABLE td_d.t (_tid INTEGER, ts BIGINT, b BOOLEAN, ti TINYINT, si SMALLINT, ii INTEGER, bi BIGINT,
    ut UTINYINT, us USMALLINT, ui UINTEGER, ub UBIGINT, f FLOAT, dd DOUBLE, s VARCHAR)`)
})

afterAll(async () => {
  await engine.close()
})

const COLUMNS = ['ts', 'b', 'ti', 'si', 'ii', 'bi', 'ut', 'us', 'ui', 'ub', 'f', 'dd', 's']

function row(i: number): unknown[] {
  const r: unknown[] = [
    BigInt(1_700_000_000_000 + i),
    i % 3 === 0,
    (i % 256) - 128,
    (i % 65536) - 32768,
    i * 1000 - 2 ** 31 + 1,
    BigInt(i) * 3_000_000_000_000n - 9_000_000_000_000_000_000n,
    i % 256,
    i % 65536,
    4_294_967_295 - i,
    18_446_744_073_709_551_615n - BigInt(i),
    i / 8,
    i / 7 - 1e300 / (i + 1),
    `v${i}`,
  ]
  // every value column NULL on some rows, at different places in each chunk
  for (let c = 1; c < r.length; c++) {
    if ((i + c) % 11 === 0) {
      r[c] = null
    }
  }
  return r
}

describe('DuckDB appends', () => {
  it('round-trip every fixed-width type and NULLs across chunk boundaries', async () => {
    const rows = Array.from({ length: 5000 }, (_, i) => row(i))
    expect(await engine.writeRows([{ db: 'd', table: 't', tid: 7, columns: COLUMNS, rows }])).toBe(5000)
    const back = await engine.query(`SELECT _tid, ${COLUMNS.join(', ')} FROM td_d.t ORDER BY ts`)
    expect(back).toHaveLength(5000)
    back.forEach((got, i) => {
      const want = [7, ...row(i)]
      // FLOAT is stored at single precision
      if (typeof want[11] === 'number') {
        want[11] = Math.fround(want[11])
      }
      expect(got, `row ${i}`).toEqual(want)
    })
  })

  it('write all or nothing: a bad value in a later chunk leaves no row, with or without an explicit transaction', async () => {
    await engine.exec('CREATE TABLE td_d.a (_tid INTEGER, ts BIGINT, bi BIGINT)')
    const rows = (n: number, bad: number): unknown[][] =>
      Array.from({ length: n }, (_, i) => [BigInt(1_000_000 + i), i === bad ? 1.5 : BigInt(i)])
    // 5000 rows: one appender flush, the flush is the transaction; the bad value is in the third chunk
    await expect(engine.writeRows([{ db: 'd', table: 'a', tid: 1, columns: ['ts', 'bi'], rows: rows(5000, 4500) }])).rejects.toThrow()
    expect(await engine.query('SELECT count(*) FROM td_d.a')).toEqual([[0n]])
    // 20,000 rows: more than one flush, so BEGIN ... COMMIT; the first 16,384 were flushed already
    await expect(engine.writeRows([{ db: 'd', table: 'a', tid: 1, columns: ['ts', 'bi'], rows: rows(20_000, 19_000) }])).rejects.toThrow()
    expect(await engine.query('SELECT count(*) FROM td_d.a')).toEqual([[0n]])
    // and the same rows written right afterwards all arrive, once
    expect(await engine.writeRows([{ db: 'd', table: 'a', tid: 1, columns: ['ts', 'bi'], rows: rows(5000, -1) }])).toBe(5000)
    expect(await engine.writeRows([{ db: 'd', table: 'a', tid: 1, columns: ['ts', 'bi'], rows: rows(5000, -1) }])).toBe(5000)
    expect(await engine.query('SELECT count(*), count(DISTINCT ts), sum(bi) FROM td_d.a')).toEqual([[5000n, 5000n, 12497500n]])
  })

  it('accept numbers for BIGINT columns and bigints for number columns', async () => {
    await engine.exec('CREATE TABLE td_d.m (_tid INTEGER, ts BIGINT, bi BIGINT, dd DOUBLE, ii INTEGER)')
    await engine.writeRows([{ db: 'd', table: 'm', tid: 1, columns: ['ts', 'bi', 'dd', 'ii'], rows: [[5, 6, 7n, 8n]] }])
    expect(await engine.query('SELECT _tid, ts, bi, dd, ii FROM td_d.m')).toEqual([[1, 5n, 6n, 7, 8]])
  })
})
