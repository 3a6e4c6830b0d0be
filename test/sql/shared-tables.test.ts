/**
 * Super tables of one shape stored in shared tables (src/sql/catalog/shared-ddl.ts,
 * src/storage/routes.ts): through the real HTTP server on a DuckDB file, a shared super table
 * must answer every query, DELETE, DROP and tag change exactly as a super table with tables of
 * its own (one that was altered, which gives it tables of its own) given the same rows, never
 * see another super table's rows, keep its rows when it is altered, and come back after a
 * restart. The file is opened afterwards to check that the super tables are views over two
 * shared tables.
 */
import { DuckDBInstance } from '@duckdb/node-api'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OWN_TABLES_FIRST, STABLES_PER_TABLE } from '../../src/sql/catalog/shared-tables.js'
import { ROOT, send, startServer, type Server } from './harness.js'

const DB = 'shared'
/** schemaless measurements of one shape: more than one shared table holds */
const M = STABLES_PER_TABLE + 20
const T0 = 1_700_000_000_000
const dir = mkdtempSync(join(tmpdir(), 'shared-tables-'))
const file = join(dir, 'db.duckdb')
let server: Server

async function sql(text: string): Promise<any> {
  const res = await send(server.url, { name: text, sql: text })
  return JSON.parse(res.text)
}

async function ok(text: string): Promise<any> {
  const r = await sql(text)
  expect(r.code, `${text}\n${JSON.stringify(r)}`).toBe(0)
  return r
}

async function lineproto(body: string): Promise<void> {
  const res = await fetch(`${server.url}/lineproto/v1/write?db=${DB}&precision=ms`, { method: 'POST', body, headers: { Authorization: ROOT } })
  expect(res.status, await res.text()).toBe(204)
}

/** the same statement on the shared super table `s` and on `o` (tables of its own): equal answers */
async function twin(text: (st: string) => string): Promise<any> {
  const a = await sql(text('s'))
  const b = await sql(text('o'))
  // the tables' own names come back in rows of tbname: s_* and o_* stand for each other
  expect(JSON.stringify(a).replaceAll('s_', 'X_'), text('s')).toBe(JSON.stringify(b).replaceAll('o_', 'X_'))
  return a
}

const CREATE = (st: string): string => `create stable ${DB}.${st} (ts timestamp, v double, n int) tags (h nchar(16), k int)`

/** rows and children, the same for `s` and `o` */
async function fill(st: string): Promise<void> {
  await ok(`create table ${DB}.${st}_1 using ${DB}.${st} tags ('a', 1)`)
  await ok(`create table ${DB}.${st}_2 using ${DB}.${st} tags ('b', 2)`)
  await ok(`insert into ${DB}.${st}_3 using ${DB}.${st} tags ('a', 3) values (${T0}, 30, 3) (${T0 + 1000}, 31, 3)`)
  const rows = (c: number): string => Array.from({ length: 20 }, (_v, j) => `(${T0 + j * 1000}, ${c * 100 + j}, ${j % 3 === 0 ? 'NULL' : j})`).join(' ')
  await ok(`insert into ${DB}.${st}_1 values ${rows(1)}`)
  await ok(`insert into ${DB}.${st}_2 values ${rows(2)}`)
  // rewrites and an older row: the staged (overwriting) path
  await ok(`insert into ${DB}.${st}_1 values (${T0 + 5000}, -5, 55) (${T0 - 1000}, -1, -1)`)
}

const QUERIES: Array<(st: string) => string> = [
  (st) => `select * from ${DB}.${st} order by ts, tbname`,
  (st) => `select tbname, h, k, count(*), sum(v), max(n) from ${DB}.${st} partition by tbname, h, k order by tbname`,
  (st) => `select h, count(*), avg(v) from ${DB}.${st} group by h order by h`,
  (st) => `select ts, v from ${DB}.${st} where h = 'a' order by ts, v`,
  (st) => `select count(*) from ${DB}.${st} where tbname in ('${st}_1', '${st}_3')`,
  (st) => `select last_row(*) from ${DB}.${st} partition by tbname order by tbname`,
  (st) => `select _wstart, count(*), sum(v) from ${DB}.${st} where ts >= ${T0} and ts < ${T0 + 20000} interval(5s)`,
  (st) => `select * from ${DB}.${st}_2 where ts > ${T0 + 10000} order by ts`,
  (st) => `select tbname, h, k from ${DB}.${st} group by tbname, h, k order by tbname`,
]

beforeAll(async () => {
  server = await startServer(`duckdb:${file}`)
  await ok(`create database ${DB} precision 'ms'`)
  // a database's first super tables keep tables of their own (OWN_TABLES_FIRST)
  await lineproto(Array.from({ length: OWN_TABLES_FIRST }, (_v, i) => `f${i},a=b x=${i}i ${T0}`).join('\n'))
  for (const st of ['s', 'o', 'p']) {
    await ok(CREATE(st))
  }
  // an altered super table gets tables of its own: `o` is the reference layout
  await ok(`alter stable ${DB}.o add column x int`)
  await ok(`alter stable ${DB}.o drop column x`)
  await fill('s')
  await fill('o')
  // a third super table of the shape, in the same shared tables, with other rows
  await fill('p')
  await ok(`insert into ${DB}.p_1 values (${T0 + 100000}, 1e9, 9)`)
}, 60_000)

afterAll(async () => {
  await server?.stop()
  rmSync(dir, { recursive: true, force: true })
})

describe('a super table in shared tables', () => {
  it('answers as a super table with tables of its own', async () => {
    for (const q of QUERIES) {
      await twin(q)
    }
    const all = await twin((st) => `select count(*) from ${DB}.${st}`)
    expect(all.data).toEqual([[43]])
    expect((await ok(`select count(*) from ${DB}.p`)).data).toEqual([[44]])
  })

  it('deletes, drops children and changes tags as one with tables of its own', async () => {
    await twin((st) => `delete from ${DB}.${st} where ts >= ${T0 + 15000} and h = 'b'`)
    await twin((st) => `delete from ${DB}.${st}_1 where ts < ${T0 + 2000}`)
    await twin((st) => `drop table ${DB}.${st}_3`)
    await twin((st) => `alter table ${DB}.${st}_2 set tag h = 'c'`)
    await twin((st) => `create table ${DB}.${st}_4 using ${DB}.${st} tags ('d', 4)`)
    await twin((st) => `insert into ${DB}.${st}_4 values (${T0}, 4, 4)`)
    for (const q of QUERIES) {
      await twin(q)
    }
    // the other super table of the shape lost nothing
    expect((await ok(`select count(*) from ${DB}.p`)).data).toEqual([[44]])
  })

  it('takes schemaless writes of many measurements of one shape, in more than one shared table', async () => {
    const body = (plus: number): string => Array.from({ length: M }, (_v, i) => `m${i},host=h${i % 3} value=${plus + i} ${T0 + plus + i}`).join('\n')
    await lineproto(body(0))
    await lineproto(body(10))
    const r = await ok(`select count(*), sum(value) from ${DB}.m7`)
    expect(r.data).toEqual([[2, 7 + 17]])
    // a rewrite of every point (the staged path into the shared table)
    await lineproto(body(10).replaceAll(' value=', ' value=0'))
    expect((await ok(`select host, value from ${DB}.m49 where host = 'h1' order by _ts`)).data).toEqual([['h1', 49], ['h1', 59]])
    // the last measurement is in the second shared table of the shape
    expect((await ok(`select value from ${DB}.m${M - 1} order by _ts`)).data).toEqual([[0 + M - 1], [10 + M - 1]])
    expect((await ok(`select count(*) from ${DB}.m0`)).data).toEqual([[2]])
  })

  it('keeps its rows when altered, and its children take new ids above the old ones', async () => {
    const before = await ok(`select tbname, ts, v, n, h from ${DB}.p order by tbname, ts`)
    await ok(`alter stable ${DB}.p add column z binary(8)`)
    const after = await ok(`select tbname, ts, v, n, h from ${DB}.p order by tbname, ts`)
    expect(after.data).toEqual(before.data)
    await ok(`insert into ${DB}.p_9 using ${DB}.p tags ('e', 9) values (${T0}, 9, 9, 'zz')`)
    expect((await ok(`select count(*) from ${DB}.p where tbname = 'p_9'`)).data).toEqual([[1]])
    expect((await ok(`select count(*) from ${DB}.p`)).data).toEqual([[45]])
    // the shared super table beside it is untouched
    await twin((st) => `select * from ${DB}.${st} order by ts, tbname`)
  })

  it('drops one super table of a shape without touching the others', async () => {
    await ok(`create stable ${DB}.q (ts timestamp, v double, n int) tags (h nchar(16), k int)`)
    await ok(`insert into ${DB}.q_1 using ${DB}.q tags ('a', 1) values (${T0}, 1, 1)`)
    await ok(`drop stable ${DB}.q`)
    await ok(CREATE('q'))
    expect((await ok(`select count(*) from ${DB}.q`)).data).toEqual([[0]])
    await twin((st) => `select * from ${DB}.${st} order by ts, tbname`)
  })

  it('gives a super table with a column named _stid tables of its own', async () => {
    await ok(`create stable ${DB}.u (ts timestamp, _stid int) tags (h nchar(4))`)
    await ok(`insert into ${DB}.u_1 using ${DB}.u tags ('a') values (${T0}, 7)`)
    expect((await ok(`select _stid, h from ${DB}.u`)).data).toEqual([[7, 'a']])
  })

  it('is the same after a restart, and the file holds views over shared tables', async () => {
    const snapshot = await Promise.all(QUERIES.map((q) => sql(q('s'))))
    await server.stop()
    const db = await DuckDBInstance.create(file)
    const con = await db.connect()
    const names = async (q: string): Promise<string[]> => ((await (await con.run(q)).getRows()) as string[][]).map((r) => String(r[0])).sort()
    const tables = await names(`select table_name from duckdb_tables() where schema_name = 'td_${DB}'`)
    const views = await names(`select view_name from duckdb_views() where schema_name = 'td_${DB}' and not internal`)
    con.closeSync()
    db.closeSync()
    // o and p have tables of their own (altered); s, q and the 50 measurements share
    expect(tables.filter((t) => !/^\$[dt]\d+$/.test(t) && !/^f\d+/.test(t))).toEqual(['o', 'o$tags', 'p', 'p$tags', 'u', 'u$tags'])
    // data: s's shape, the measurements' shape in two tables; tags likewise
    expect(tables.filter((t) => /^\$d\d+$/.test(t)).length).toBe(3)
    expect(tables.filter((t) => /^\$t\d+$/.test(t)).length).toBe(3)
    expect(views).toContain('s')
    expect(views).toContain('s$tags')
    expect(views).toContain('m49$tags')
    expect(views.length).toBe(2 * (2 + M))
    server = await startServer(`duckdb:${file}`)
    expect(await Promise.all(QUERIES.map((q) => sql(q('s'))))).toEqual(snapshot)
    await ok(`insert into ${DB}.s_1 values (${T0 + 500000}, 5, 5)`)
    await ok(`insert into ${DB}.s_5 using ${DB}.s tags ('f', 5) values (${T0}, 5, 5)`)
    expect((await ok(`select count(*) from ${DB}.s where ts = ${T0 + 500000} or tbname = 's_5'`)).data).toEqual([[2]])
    expect((await ok(`select count(*) from ${DB}.q`)).data).toEqual([[0]])
  })
})
