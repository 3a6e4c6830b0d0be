/**
 * Tag equalities resolved to `_tid` lists at plan time (src/sql/select/tag-filter.ts, the catalog's
 * tag index): through the real HTTP server on DuckDB, every query's answer must equal the answer to
 * the same query phrased so the rewrite cannot apply (`(P OR 1 = 0)` keeps the tag join), for
 * every tag type, IN lists, NULL tags, and after the children or their tags change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { send, startServer, type Server } from './harness.js'

let server: Server
const DB = `tagidx_${process.pid}`
const T0 = 1_700_000_000_000

async function sql(text: string): Promise<{ status: number; json: any }> {
  const res = await send(server.url, { name: text, sql: text })
  return { status: res.status, json: JSON.parse(res.text) }
}

async function ok(text: string): Promise<any> {
  const r = await sql(text)
  expect(r.json.code, `${text}\n${JSON.stringify(r.json)}`).toBe(0)
  return r.json
}

/** the answer with the WHERE `where`, and with `(where OR 1 = 0)`, which keeps the tag join */
async function same(select: (where: string) => string, where: string): Promise<any> {
  const fast = await sql(select(where))
  const joined = await sql(select(`((${where}) OR 1 = 0)`))
  expect(fast, `${select(where)}`).toEqual(joined)
  return fast.json
}

const rowsOf = (where: string): string => `select ts, v, tbname from ${DB}.st where ${where} order by ts`
const countOf = (where: string): string => `select count(*), sum(v) from ${DB}.st where ${where}`

/** tags of each child: h nchar, b binary, vc varchar, i int, ti tinyint, si smallint, ui int unsigned, bi bigint, ubi bigint unsigned, f float, d double, bo bool, tt timestamp */
const CHILDREN: Array<[string, string]> = [
  ['d1', `'host_a', 'x', '7', 7, 5, 12, 4000000000, 9007199254740993, 18446744073709551615, 1.5, 2.25, true, 1700000000000`],
  ['d2', `'Host_A', 'X', '07', -3, -5, -12, 1, -9007199254740993, 0, 2.5, 3.25, false, 1700000001000`],
  ['d3', `'host_b', 'x', 'seven', 7, 127, 12, 0, 1, 1, 1.5, 2.25, true, 1700000000000`],
  ['d4', `NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL`],
  ['d5', `'host_c', '', 'host_a', 99, 0, 0, 0, 0, 0, 0, 0, false, 0`],
]

beforeAll(async () => {
  server = await startServer('duckdb::memory:')
  await ok(`create database ${DB} precision 'ms'`)
  await ok(
    `create stable ${DB}.st (ts timestamp, v int) tags (h nchar(20), b binary(20), vc varchar(20), i int, ti tinyint, si smallint, ui int unsigned, bi bigint, ubi bigint unsigned, f float, d double, bo bool, tt timestamp)`,
  )
  for (const [k, [name, tags]] of CHILDREN.entries()) {
    await ok(`create table ${DB}.${name} using ${DB}.st tags (${tags})`)
    const rows = Array.from({ length: 4 }, (_v, j) => `(${T0 + k * 100 + j}, ${k * 10 + j})`).join(' ')
    await ok(`insert into ${DB}.${name} values ${rows}`)
  }
})

afterAll(async () => {
  await server?.stop()
})

describe('tag equalities resolved to child ids (HTTP, DuckDB)', () => {
  const predicates = [
    // text tags: exact, case-sensitive, NULLs match nothing
    "h = 'host_a'",
    "'host_a' = h",
    "h = 'Host_A'",
    "h = 'HOST_A'",
    "h = 'nope'",
    "h in ('host_a', 'host_b', 'nope')",
    "h in ('host_a', 'host_a')",
    'h = NULL',
    "h in (NULL, 'host_b')",
    "b = 'x'",
    "b = ''",
    "vc = '7'",
    "vc = '07'",
    "vc = 'host_a'",
    // integer tags against integers and integer strings
    'i = 7',
    "i = '7'",
    "i = '07'",
    'i = -3',
    "i = '-3'",
    'i in (7, 99, 1000)',
    'i = 7.0',
    "i = '7.5'",
    'ti = 127',
    'ti = 300',
    "ti = '300'",
    "ti = '-5'",
    'si = 12',
    'ui = 4000000000',
    "ui = '4000000000'",
    'ui = -1',
    'bi = 9007199254740993',
    'bi = -9007199254740993',
    'bi = 9007199254740992',
    "ubi = '18446744073709551615'",
    'ubi = 18446744073709551615',
    'ubi = 0',
    // types that keep the join
    'f = 1.5',
    'd = 2.25',
    'bo = true',
    "tt = '2023-11-14 22:13:20.000'",
    'tt = 1700000000000',
    'h = 7',
    // tbname, alone and mixed
    "tbname = 'd1'",
    "tbname in ('d1', 'd3', 'nope')",
    "tbname = 'D1'",
    // several conjuncts: intersected
    "h = 'host_a' and i = 7",
    "h = 'host_a' and i = -3",
    "h in ('host_a', 'Host_A') and tbname = 'd2'",
    "h = 'host_a' and v >= 1",
    `i = 7 and ts >= ${T0 + 1} and ts < ${T0 + 250}`,
    "st.h = 'host_b'",
  ]

  it('answers as the tag join does, rows and aggregates, for every tag type', async () => {
    for (const p of predicates) {
      await same(rowsOf, p)
      await same(countOf, p)
    }
  })

  it('filters as expected (the comparison is not of two empty answers)', async () => {
    expect((await same(rowsOf, "h = 'host_a'")).data.map((r: any[]) => r[2])).toEqual(['d1', 'd1', 'd1', 'd1'])
    expect((await same(countOf, "h in ('host_a', 'host_b')")).data).toEqual([[8, 0 + 1 + 2 + 3 + 20 + 21 + 22 + 23]])
    expect((await same(countOf, "i = '07'")).data[0][0]).toBe(8)
    expect((await same(countOf, "ubi = '18446744073709551615'")).data[0][0]).toBe(4)
    expect((await same(countOf, 'bi = 9007199254740993')).data[0][0]).toBe(4)
    expect((await same(countOf, 'h = NULL')).data[0][0]).toBe(0)
  })

  it('keeps the join where a tag is read elsewhere (GROUP BY another tag, select list)', async () => {
    await same((w) => `select i, count(*) from ${DB}.st where ${w} group by i order by i`, "h in ('host_a', 'host_b', 'Host_A')")
    await same((w) => `select h, last(v) from ${DB}.st where ${w} partition by h order by h`, 'i = 7')
    await same((w) => `select _wstart, max(v) from ${DB}.st where ${w} and ts >= ${T0} and ts < ${T0 + 600} interval(100a)`, "h = 'host_a'")
    // INTERP plans its scan through the same planner
    const interp = await same((w) => `select _irowts, interp(v) from ${DB}.st where ${w} range(${T0}, ${T0 + 300}) every(50a) fill(prev)`, "h = 'host_b'")
    expect(interp.code).toBe(0)
    expect(interp.data.length).toBeGreaterThan(0)
    // a tag read only by a row window
    await same((w) => `select v, count(*) from ${DB}.st where ${w} partition by v event_window start with b = 'x' end with v >= 0 order by v`, "h in ('host_a', 'host_b')")
    const g = await same((w) => `select tbname, count(*) from ${DB}.st where ${w} group by tbname order by tbname`, 'i = 7')
    expect(g.data).toEqual([
      ['d1', 4],
      ['d3', 4],
    ])
  })

  it('answers the same with long lists (an unnested join of child ids)', async () => {
    await ok(`create stable ${DB}.many (ts timestamp, v int) tags (k int, name nchar(10))`)
    const inserts = Array.from({ length: 90 }, (_v, n) => `${DB}.m${n} using ${DB}.many tags (${n % 3}, 'n${n}') values (${T0 + n}, ${n})`)
    await ok(`insert into ${inserts.join(' ')}`)
    const names = Array.from({ length: 80 }, (_v, n) => `'n${n}'`).join(', ')
    const tables = Array.from({ length: 80 }, (_v, n) => `'m${n}'`).join(', ')
    const many = (w: string): string => `select count(*), sum(v) from ${DB}.many where ${w}`
    expect((await same(many, `name in (${names})`)).data).toEqual([[80, (79 * 80) / 2]])
    expect((await same(many, `tbname in (${tables}) and k = 0`)).data).toEqual([[27, 3 * ((26 * 27) / 2)]])
    await same((w) => `select _wstart, count(*) from ${DB}.many where ${w} interval(10a)`, `name in (${names})`)
  })

  it('follows ALTER TABLE SET TAG, new and dropped children, and a re-created super table', async () => {
    expect((await same(countOf, "h = 'host_b'")).data[0][0]).toBe(4)
    // a tag changed in place
    await ok(`alter table ${DB}.d3 set tag h = 'host_z'`)
    expect((await same(countOf, "h = 'host_b'")).data[0][0]).toBe(0)
    expect((await same(rowsOf, "h = 'host_z'")).data.map((r: any[]) => r[2])).toEqual(['d3', 'd3', 'd3', 'd3'])
    await ok(`alter table ${DB}.d3 set tag i = 8`)
    expect((await same(countOf, 'i = 7')).data[0][0]).toBe(4)
    expect((await same(countOf, "i = '8'")).data[0][0]).toBe(4)
    // a child created after the index was built
    await ok(`create table ${DB}.d6 using ${DB}.st tags ('host_a', 'y', 'z', 7, 1, 1, 1, 1, 1, 1, 1, true, 1)`)
    await ok(`insert into ${DB}.d6 values (${T0 + 900}, 600)`)
    expect((await same(rowsOf, "h = 'host_a'")).data.map((r: any[]) => r[2])).toEqual(['d1', 'd1', 'd1', 'd1', 'd6'])
    expect((await same(countOf, 'i = 7')).data[0][0]).toBe(5)
    // auto-created by INSERT ... USING
    await ok(`insert into ${DB}.d7 using ${DB}.st tags ('host_q', 'y', 'z', 70, 1, 1, 1, 1, 1, 1, 1, true, 1) values (${T0 + 950}, 700)`)
    expect((await same(rowsOf, "h in ('host_q', 'host_z')")).data.map((r: any[]) => r[2])).toEqual(['d3', 'd3', 'd3', 'd3', 'd7'])
    // a dropped child
    await ok(`drop table ${DB}.d1`)
    expect((await same(rowsOf, "h = 'host_a'")).data.map((r: any[]) => r[2])).toEqual(['d6'])
    // the super table dropped and re-created under the same name, children with other tids
    await ok(`drop stable ${DB}.st`)
    await ok(
      `create stable ${DB}.st (ts timestamp, v int) tags (h nchar(20), b binary(20), vc varchar(20), i int, ti tinyint, si smallint, ui int unsigned, bi bigint, ubi bigint unsigned, f float, d double, bo bool, tt timestamp)`,
    )
    await ok(`create table ${DB}.e1 using ${DB}.st tags ('host_b', 'x', 'x', 1, 1, 1, 1, 1, 1, 1, 1, true, 1)`)
    await ok(`create table ${DB}.e2 using ${DB}.st tags ('host_a', 'x', 'x', 7, 1, 1, 1, 1, 1, 1, 1, true, 1)`)
    await ok(`insert into ${DB}.e1 values (${T0}, 1)`)
    await ok(`insert into ${DB}.e2 values (${T0 + 1}, 2)`)
    const vAndName = (j: any): unknown[] => j.data.map((r: any[]) => [r[1], r[2]])
    expect(vAndName(await same(rowsOf, "h = 'host_a'"))).toEqual([[2, 'e2']])
    expect(vAndName(await same(rowsOf, "h = 'host_z'"))).toEqual([])
    expect(vAndName(await same(rowsOf, 'i = 7'))).toEqual([[2, 'e2']])
  })
})
