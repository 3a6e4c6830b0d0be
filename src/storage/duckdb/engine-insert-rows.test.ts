/**
 * insertRows: plain rows into a physical table through the appender, as one INSERT statement
 * would put them (catalog and tag rows use it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DuckDBEngine } from './engine.js'

let engine: DuckDBEngine

beforeAll(async () => {
  engine = await DuckDBEngine.open(':memory:')
  await engine.exec('CREATE SCHEMA s')
  await engine.exec('CREATE TABLE s.t (id INTEGER PRIMARY KEY, name VARCHAR NOT NULL, n BIGINT, flag BOOLEAN, note VARCHAR)')
})

afterAll(async () => {
  await engine.close()
})

describe('DuckDB insertRows', () => {
  it('puts each named column in place, NULL in the others, text exactly as given', async () => {
    const rows = [
      [1, "it's \"quoted\" \\ é 😀", 9_007_199_254_740_993n, true],
      [2, '', null, false],
    ]
    expect(await engine.insertRows('s', 't', ['id', 'name', 'n', 'flag'], rows)).toBe(2)
    expect(await engine.query('SELECT id, name, n, flag, note FROM s.t ORDER BY id')).toEqual([
      [1, "it's \"quoted\" \\ é 😀", 9_007_199_254_740_993n, true, null],
      [2, '', null, false, null],
    ])
  })

  it('inside a transaction, are undone with it', async () => {
    await expect(
      engine.transaction(async (tx) => {
        await tx.insertRows?.('s', 't', ['name', 'id'], [['gone', 10]])
        expect(await tx.query('SELECT name FROM s.t WHERE id = 10')).toEqual([['gone']])
        throw new Error('roll back')
      }),
    ).rejects.toThrow('roll back')
    expect(await engine.query('SELECT count(*) FROM s.t WHERE id = 10')).toEqual([[0n]])
  })

  it('fail on a duplicate key and write nothing, even past one appender flush', async () => {
    const rows = Array.from({ length: 40_000 }, (_, i) => [1000 + i, `r${i}`])
    rows.push([1000, 'again'])
    await expect(engine.insertRows('s', 't', ['id', 'name'], rows)).rejects.toThrow(/constraint|duplicate/i)
    expect(await engine.query('SELECT count(*) FROM s.t WHERE id >= 1000')).toEqual([[0n]])
  })

  it('name a column the table does not have', async () => {
    await expect(engine.insertRows('s', 't', ['id', 'nope'], [[3, 'x']])).rejects.toThrow('insertRows: column nope not in s.t')
  })
})
