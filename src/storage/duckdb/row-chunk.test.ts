import { DuckDBInstance, JSDuckDBValueConverter } from '@duckdb/node-api'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chunkRows } from './row-chunk.js'

describe('chunkRows', () => {
  let instance: DuckDBInstance
  beforeAll(async () => {
    instance = await DuckDBInstance.create(':memory:')
  })
  afterAll(() => {
    instance.closeSync()
  })

  it('returns exactly what the library converter returns, for every type and NULLs', async () => {
    const con = await instance.connect()
    // 3000 rows: more than one vector, every column NULL on some rows
    const sql = `SELECT
        (i % 2 = 0)::BOOLEAN AS b, i::TINYINT AS ti, i::SMALLINT AS si, i::INTEGER AS ii,
        (i * 1000000000000)::BIGINT AS bi, i::UTINYINT AS ut, i::USMALLINT AS us, i::UINTEGER AS ui,
        (i * 1000000000000)::UBIGINT AS ub, (i / 7)::FLOAT AS f, (i / 7)::DOUBLE AS d,
        (i::HUGEINT * 100000000000000000000) AS h, 'v' || i AS s, DATE '2020-01-01' + i::INTEGER AS dt,
        TIMESTAMP '2020-01-01' + INTERVAL (i) SECOND AS t, (i / 3)::DECIMAL(10, 2) AS dec,
        [i, i + 1] AS l
      FROM range(3000) r(i)`
    const nulls = `SELECT * REPLACE (${[
      'b', 'ti', 'si', 'ii', 'bi', 'ut', 'us', 'ui', 'ub', 'f', 'd', 'h', 's', 'dt', 't', 'dec', 'l',
    ]
      .map((c, k) => `CASE WHEN (ii + ${k}) % 5 = 0 THEN NULL ELSE ${c} END AS ${c}`)
      .join(', ')}) FROM (${sql.replace(/i::UTINYINT/, '(i % 200)::UTINYINT').replace(/i::TINYINT/, '(i % 100)::TINYINT')})`
    const result = await con.stream(nulls)
    let rows = 0
    for (;;) {
      const chunk = await result.fetchChunk()
      if (!chunk || chunk.rowCount === 0) {
        break
      }
      const fast = chunkRows(chunk)
      expect(fast).toEqual(chunk.convertRows(JSDuckDBValueConverter))
      rows += fast.length
    }
    expect(rows).toBe(3000)
    con.closeSync()
  })
})
