import { DuckDBInstance } from '@duckdb/node-api'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ConnectionPool } from './pool.js'

const dir = mkdtempSync(join(tmpdir(), 'pool-test-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const count = async (c: Awaited<ReturnType<ConnectionPool['acquire']>>): Promise<bigint> =>
  ((await (await c.run('SELECT count(*) FROM t')).getRows()) as bigint[][])[0][0]

describe('ConnectionPool', () => {
  it('hands out connections inside a transaction that still sees what was committed while they were idle', async () => {
    const db = await DuckDBInstance.create(join(dir, 'a.duckdb'))
    const writer = await db.connect()
    await writer.run('CREATE TABLE t (v INTEGER)')
    const pool = new ConnectionPool(db, 1)
    const c = await pool.acquire()
    expect(await count(c)).toBe(0n)
    await pool.recycle(c)
    // idle and already begun: commits and a checkpoint meanwhile
    await writer.run('INSERT INTO t VALUES (1), (2)')
    await writer.run('CHECKPOINT')
    const again = await pool.acquire()
    expect(again).toBe(c)
    expect(await count(again)).toBe(2n)
    // in one transaction: a commit after the first read is not seen by the next one on it
    await writer.run('INSERT INTO t VALUES (3)')
    expect(await count(again)).toBe(2n)
    await pool.recycle(again)
    expect(await count(await pool.acquire())).toBe(3n)
    pool.closeAll()
    writer.closeSync()
    db.closeSync()
  })

  it('gives back a connection whose statement failed as good as new, and runs the bookkeeping after the end', async () => {
    const db = await DuckDBInstance.create(join(dir, 'b.duckdb'))
    await (await db.connect()).run('CREATE TABLE t (v INTEGER)')
    const pool = new ConnectionPool(db, 1)
    const c = await pool.acquire()
    await expect(c.run("SELECT CAST('x' AS INTEGER)")).rejects.toThrow()
    // DuckDB has aborted the transaction: without the recycle the connection would refuse every statement
    await expect(c.run('SELECT 1')).rejects.toThrow(/aborted/)
    const order: string[] = []
    const waiting = pool.acquire().then((x) => {
      order.push('acquired')
      return x
    })
    await pool.recycle(c, () => {
      order.push('after')
    })
    expect(await count(await waiting)).toBe(0n)
    expect(order).toEqual(['after', 'acquired'])
    pool.closeAll()
    db.closeSync()
  })
})

describe('DuckDBEngine.query on the pool', () => {
  it('commits a statement that writes (UPDATE / DELETE ... RETURNING) before it returns', async () => {
    const { openDuckDBEngine } = await import('./engine.js')
    const engine = await openDuckDBEngine(join(dir, 'c.duckdb'))
    await engine.exec('CREATE TABLE t (k INTEGER, v INTEGER)')
    await engine.exec('INSERT INTO t VALUES (1, 1), (2, 2)')
    expect(await engine.query('UPDATE t SET v = 10 WHERE k = 1 RETURNING v')).toEqual([[10]])
    expect(await engine.query('DELETE FROM t WHERE k = 2 RETURNING k')).toEqual([[2]])
    // seen by the next reader and by the write connection: committed, not rolled back with the read
    expect(await engine.query('SELECT k, v FROM t ORDER BY k')).toEqual([[1, 10]])
    await engine.exec('UPDATE t SET v = v + 1')
    expect(await engine.query('SELECT v FROM t')).toEqual([[11]])
    await engine.close()
  })
})
