/**
 * Group commit of column appends (DuckDB engine, real database): appendColumns calls that queue
 * while a write holds the lock are committed together, each checked as if it had run alone.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DuckDBEngine } from '../../src/storage/duckdb/engine.js'
import type { ColumnBatch } from '../../src/storage/types.js'
import { columnBatch, span } from './column-batch.js'

let engine: DuckDBEngine

beforeEach(async () => {
  engine = await DuckDBEngine.open(':memory:')
  await engine.exec('CREATE SCHEMA td_g')
  for (const t of ['a', 'b', 'c']) {
    await engine.exec(`CREATE TABLE td_g.${t} (_tid INTEGER, ts BIGINT, v DOUBLE)`)
  }
  await engine.exec('CREATE TABLE td_g.n (_tid INTEGER, ts BIGINT, v BIGINT)')
})

afterEach(async () => {
  await engine.close()
})

const rows = async (table: string): Promise<unknown[][]> => engine.query(`SELECT _tid, ts, v FROM td_g.${table} ORDER BY _tid, ts`)

describe('appendColumns group commit', () => {
  it('concurrent appends into the same and different tables are all stored once, each caller told its own count', async () => {
    // called in one go: the first call's drain takes the lock a microtask later, and with it every call queued by then
    const calls = [
      engine.appendColumns([columnBatch('g', 'a', [{ tid: 1, ts: span(0, 10), v: span(0, 10) }])]),
      engine.appendColumns([columnBatch('g', 'a', [{ tid: 1, ts: span(10, 13), v: span(10, 13) }, { tid: 2, ts: span(0, 4), v: span(100, 104) }])]),
      engine.appendColumns([columnBatch('g', 'b', [{ tid: 1, ts: span(0, 5), v: span(0, 5) }])]),
      engine.appendColumns([
        columnBatch('g', 'a', [{ tid: 1, ts: span(13, 15), v: span(13, 15) }]),
        columnBatch('g', 'c', [{ tid: 7, ts: span(50, 56), v: span(0, 6) }]),
      ]),
      engine.appendColumns([columnBatch('g', 'b', [{ tid: 1, ts: span(5, 8), v: span(5, 8) }])]),
    ]
    expect(await Promise.all(calls)).toEqual([10, 7, 5, 8, 3])
    expect(engine.groupCommitStats()).toEqual({ groups: 1, members: 5 })
    expect(await rows('a')).toEqual([
      ...span(0, 15).map((t) => [1, BigInt(t), t]),
      ...span(0, 4).map((t) => [2, BigInt(t), 100 + t]),
    ])
    expect(await rows('b')).toEqual(span(0, 8).map((t) => [1, BigInt(t), t]))
    expect(await rows('c')).toEqual(span(50, 56).map((t, i) => [7, BigInt(t), i]))
  })

  it('a member that is not newer than an earlier member of its group answers undefined and writes nothing', async () => {
    await engine.appendColumns([columnBatch('g', 'a', [{ tid: 1, ts: [0], v: [0] }])])
    const calls = [
      engine.appendColumns([columnBatch('g', 'b', [{ tid: 9, ts: [1], v: [1] }])]),
      engine.appendColumns([columnBatch('g', 'a', [{ tid: 1, ts: span(1, 11), v: span(1, 11) }])]),
      // overlaps the previous member (ts 5..14 against its 1..10): the rows path must overwrite
      engine.appendColumns([columnBatch('g', 'a', [{ tid: 1, ts: span(5, 15), v: span(500, 510) }])]),
      // equal to the stored newest of tid 1 after the second member: a rewrite
      engine.appendColumns([columnBatch('g', 'a', [{ tid: 1, ts: [10], v: [-1] }])]),
      // newer than every member before it: appended
      engine.appendColumns([columnBatch('g', 'a', [{ tid: 1, ts: span(11, 13), v: [11, 12] }])]),
      // another child of the same table is not held back by tid 1
      engine.appendColumns([columnBatch('g', 'a', [{ tid: 2, ts: [3], v: [3] }])]),
    ]
    expect(await Promise.all(calls)).toEqual([1, 10, undefined, undefined, 2, 1])
    expect(engine.groupCommitStats()).toEqual({ groups: 2, members: 7 })
    expect(await rows('a')).toEqual([...span(0, 13).map((t) => [1, BigInt(t), t]), [2, 3n, 3]])
    const [[n, distinct]] = await engine.query('SELECT count(*), count(DISTINCT (_tid, ts)) FROM td_g.a')
    expect(n).toBe(distinct)
    // the bounds the group left are exact: a rewrite of the last row is refused, the next one appended
    expect(await engine.appendColumns([columnBatch('g', 'a', [{ tid: 1, ts: [12], v: [0] }])])).toBeUndefined()
    expect(await engine.appendColumns([columnBatch('g', 'a', [{ tid: 1, ts: [13], v: [13] }])])).toBe(1)
  })

  it('a member that fails fails only its own caller; the others are committed', async () => {
    await engine.appendColumns([columnBatch('g', 'c', [{ tid: 1, ts: [0], v: [0] }])])
    const calls = [
      engine.appendColumns([columnBatch('g', 'c', [{ tid: 1, ts: [1], v: [1] }])]),
      engine.appendColumns([columnBatch('g', 'a', [{ tid: 1, ts: span(0, 3), v: span(0, 3) }])]),
      // a DOUBLE column's values for a BIGINT column: the appender refuses the batch
      engine.appendColumns([columnBatch('g', 'n', [{ tid: 1, ts: [0], v: [1.5] }])]),
      engine.appendColumns([columnBatch('g', 'a', [{ tid: 1, ts: span(3, 5), v: span(3, 5) }])]),
      engine.appendColumns([columnBatch('g', 'b', [{ tid: 4, ts: [8], v: [8] }])]),
    ]
    const settled = await Promise.allSettled(calls)
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : 'failed'))).toEqual([1, 3, 'failed', 2, 1])
    expect(String((settled[2] as PromiseRejectedResult).reason)).toMatch(/column v is BIGINT/)
    expect(await rows('a')).toEqual(span(0, 5).map((t) => [1, BigInt(t), t]))
    expect(await rows('b')).toEqual([[4, 8n, 8]])
    expect(await rows('c')).toEqual([[1, 0n, 0], [1, 1n, 1]])
    expect(await rows('n')).toEqual([])
    // the failed group dropped the cached bounds; they are read again and still exact
    expect(await engine.appendColumns([columnBatch('g', 'a', [{ tid: 1, ts: [4], v: [0] }])])).toBeUndefined()
    expect(await engine.appendColumns([columnBatch('g', 'a', [{ tid: 1, ts: [5], v: [5] }])])).toBe(1)
  })

  it('a write queued while a group waits for the lock runs before the next group', async () => {
    const big = (from: number): ColumnBatch[] => [columnBatch('g', 'a', [{ tid: 1, ts: span(from, from + 100_000), v: span(from, from + 100_000) }])]
    const order: string[] = []
    // a transaction holds the write lock until released
    let release = (): void => {}
    let holding = (): void => {}
    const holds = new Promise<void>((r) => (holding = r))
    const held = engine.transaction(
      () =>
        new Promise<void>((r) => {
          release = r
          holding()
        }),
    )
    await holds
    // two calls over the group bound: the first group takes one, the other waits for a second drain
    const first = engine.appendColumns(big(0)).then(() => order.push('group 1'))
    const second = engine.appendColumns(big(100_000)).then(() => order.push('group 2'))
    // a drain asks for the lock one event-loop turn after the first call (company may join it)
    await new Promise((r) => setImmediate(r))
    // asks for the lock after the first drain, before the first group is taken (and the second drain queued)
    const ddl = engine.exec('CREATE TABLE td_g.later (x INTEGER)').then(() => order.push('ddl'))
    release()
    await Promise.all([held, first, ddl, second])
    expect(order).toEqual(['group 1', 'ddl', 'group 2'])
    expect(engine.groupCommitStats()).toEqual({ groups: 2, members: 2 })
    const [[n, high]] = await engine.query('SELECT count(*), max(ts) FROM td_g.a')
    expect([n, high]).toEqual([200_000n, 199_999n])
  })

  it('a call waits one event-loop turn for company: calls made meanwhile share its commit', async () => {
    // another caller in a later callback of the same turn (as a second request whose bytes have
    // arrived: I/O callbacks run before the turn's immediates)
    const later = new Promise<number | undefined>((r) => setImmediate(() => r(engine.appendColumns([columnBatch('g', 'a', [{ tid: 2, ts: span(0, 5), v: span(0, 5) }])]))))
    // a microtask later: a call of the same turn, not of the same synchronous run
    await Promise.resolve()
    const first = engine.appendColumns([columnBatch('g', 'a', [{ tid: 1, ts: span(0, 10), v: span(0, 10) }])])
    const second = await later
    expect([await first, second]).toEqual([10, 5])
    expect(engine.groupCommitStats()).toEqual({ groups: 1, members: 2 })
    expect(await rows('a')).toEqual([...span(0, 10).map((t) => [1, BigInt(t), t]), ...span(0, 5).map((t) => [2, BigInt(t), t])])
  })

  it('groups stay within their row bound: a large queue is split', async () => {
    const big = (k: number): Promise<number | undefined> =>
      engine.appendColumns([columnBatch('g', 'a', [{ tid: k, ts: span(0, 50_000), v: span(0, 50_000) }])])
    expect(await Promise.all([big(1), big(2), big(3), big(4), big(5)])).toEqual([50_000, 50_000, 50_000, 50_000, 50_000])
    // at most two of 50,000 rows a group (GROUP_MAX_ROWS 131,072)
    expect(engine.groupCommitStats()).toEqual({ groups: 3, members: 5 })
    const [[n]] = await engine.query('SELECT count(*) FROM td_g.a')
    expect(n).toBe(250_000n)
  })
})
