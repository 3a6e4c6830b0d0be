import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { NumericChunk, RowChunk } from '../types.js'
import { openDuckDBEngine } from './engine.js'
import { chunkRows } from './row-chunk.js'
import { concatNumeric, numericChunk } from './numeric-chunk.js'

/** Every chunk of the query as numericChunk sees it, with the rows chunkRows makes of it. */
async function chunksOf(con: DuckDBConnection, sql: string): Promise<Array<{ numeric: NumericChunk | undefined; rows: RowChunk }>> {
  const result = await con.stream(sql)
  const out: Array<{ numeric: NumericChunk | undefined; rows: RowChunk }> = []
  for (;;) {
    const chunk = await result.fetchChunk()
    if (!chunk || chunk.rowCount === 0) {
      return out
    }
    out.push({ numeric: numericChunk(chunk), rows: chunkRows(chunk) })
  }
}

/** The rows a numeric chunk stands for: NULL as null, everything else as a number. */
function asRows(c: NumericChunk): unknown[][] {
  return Array.from({ length: c.rowCount }, (_, r) => c.columns.map((col) => (col.nulls?.[r] === 1 ? null : col.values[r])))
}

/** chunkRows' values as numbers (BOOLEAN 1/0, bigint exact below 2^53). */
function numbers(rows: RowChunk): unknown[][] {
  return rows.map((row) => row.map((v) => (v === null ? null : typeof v === 'boolean' ? (v ? 1 : 0) : Number(v))))
}

describe('numericChunk', () => {
  let instance: DuckDBInstance
  let con: DuckDBConnection
  beforeAll(async () => {
    instance = await DuckDBInstance.create(':memory:')
    con = await instance.connect()
  })
  afterAll(() => {
    con.closeSync()
    instance.closeSync()
  })

  it('reads every numeric type, NULLs and negative 64-bit values as chunkRows does', async () => {
    // 3000 rows: two vectors, each column NULL on different rows
    const cols = {
      b: '(i % 3 = 0)::BOOLEAN',
      ti: '((i % 200) - 100)::TINYINT',
      ut: '(i % 250)::UTINYINT',
      si: '(i - 1500)::SMALLINT',
      us: 'i::USMALLINT',
      ii: '(i * 1000003 - 1500000000)::INTEGER',
      ui: '(i * 1400000)::UINTEGER',
      // both halves of the 64-bit values exercised: negative, beyond 2^32, up to +-(2^53 - 1)
      bi: "CASE WHEN i = 1 THEN 9007199254740991 WHEN i = 2 THEN -9007199254740991 ELSE (i - 1500) * 3000000000017 END::BIGINT",
      ub: "CASE WHEN i = 1 THEN 9007199254740991 ELSE i * 3000000000017 END::UBIGINT",
      f: '(i / 7 - 100)::FLOAT',
      d: "CASE WHEN i = 5 THEN 'NaN'::DOUBLE WHEN i = 6 THEN '-inf'::DOUBLE ELSE i / 7 - 100 END",
    }
    const names = Object.keys(cols)
    const sql = `SELECT ${names.map((c, k) => `CASE WHEN (i + ${k}) % 7 = 0 THEN NULL ELSE ${cols[c as keyof typeof cols]} END AS ${c}`).join(', ')} FROM range(3000) r(i)`
    const chunks = await chunksOf(con, sql)
    expect(chunks.length).toBeGreaterThan(1)
    let rows = 0
    for (const { numeric, rows: reference } of chunks) {
      expect(numeric).toBeDefined()
      expect(asRows(numeric!)).toEqual(numbers(reference))
      expect(numeric!.columns.map((c) => c.integral)).toEqual(names.map((c) => c !== 'f' && c !== 'd'))
      rows += numeric!.rowCount
    }
    expect(rows).toBe(3000)
  })

  it('leaves chunks with integers a double would round, or with other types, to rows', async () => {
    for (const value of ['9007199254740992::BIGINT', '-9007199254740992::BIGINT', '18446744073709551615::UBIGINT', "'x'", '1::HUGEINT', 'TIMESTAMP \'2020-01-01\'']) {
      const [only] = await chunksOf(con, `SELECT i::BIGINT AS a, CASE WHEN i = 100 THEN ${value} END AS b FROM range(200) r(i)`)
      expect(only.numeric, value).toBeUndefined()
    }
    // a NULL hides whatever is stored under it: not a reason for rows
    const [withNull] = await chunksOf(con, 'SELECT CASE WHEN i = 100 THEN NULL ELSE i END::BIGINT AS a FROM range(200) r(i)')
    expect(withNull.numeric?.columns[0].nulls?.[100]).toBe(1)
  })

  it('concatenates chunks in order, NULL masks included', async () => {
    const chunks = (await chunksOf(con, 'SELECT i, CASE WHEN i % 1000 = 1 THEN NULL ELSE i * 0.5::DOUBLE END FROM range(5000) r(i)')).map((c) => c.numeric!)
    const all = concatNumeric(chunks)
    expect(all.rowCount).toBe(5000)
    expect(asRows(all)).toEqual(chunks.flatMap(asRows))
    expect(asRows(all)[4001]).toEqual([4001, null])
  })
})

describe('DuckDBEngine.streamNumeric', () => {
  it('streams what stream does, in order, as columns where it can and rows where it cannot', async () => {
    const engine = await openDuckDBEngine(':memory:')
    try {
      // the 2^60 sends one DuckDB chunk (rows 4096..6143) down the row path
      const sql = 'SELECT i, CASE WHEN i = 5000 THEN 1152921504606846976 ELSE i * 3 END::BIGINT AS b, i / 4 AS d FROM range(10000) r(i) ORDER BY i'
      const reference: unknown[][] = []
      for await (const chunk of engine.stream(sql)) {
        reference.push(...chunk)
      }
      const got: unknown[][] = []
      const kinds: string[] = []
      for await (const chunk of engine.streamNumeric(sql)) {
        if (Array.isArray(chunk)) {
          kinds.push(`rows ${chunk.length}`)
          got.push(...chunk)
        } else {
          kinds.push(`columns ${chunk.rowCount}`)
          got.push(...asRows(chunk).map((r) => r.map((v, i) => (i < 2 ? BigInt(v as number) : v))))
        }
      }
      expect(kinds).toEqual(['columns 4096', 'rows 4096', 'columns 1808'])
      expect(got).toEqual(reference)
    } finally {
      await engine.close()
    }
  })
})
