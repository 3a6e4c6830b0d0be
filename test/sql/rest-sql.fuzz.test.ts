/**
 * Fuzz /rest/sql over the real server: mutated valid statements, hostile ones (long operator
 * chains, deep nesting of every kind, hostile identifiers) and random text, some 2,400 from a fixed
 * seed (test/lib/fuzz.ts: FUZZ_SEED, FUZZ_RUNS). Every answer is an HTTP status below 500 with a
 * JSON body carrying a code, never the stack overflow or a storage failure; /-/ping never waits
 * 1 s; a database written before the fuzzing (which no statement names) is unchanged after it.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningAdapter } from '../../src/lifecycle.js'
import { ROOT_AUTH, post, sql, sqlRows, startIngestServer } from '../ingest/server.js'
import { HOSTILE_NAMES, fuzzParams, mutatedText, repeated, watchStalls } from '../lib/fuzz.js'

let server: RunningAdapter
let stalls: { stop(): Promise<number> }
let baseline: unknown[][]

beforeAll(async () => {
  server = await startIngestServer((c) => {
    c.http.maxBodySize = 1024 * 1024
  })
  await sql(server.url, 'create database keep')
  await sql(server.url, 'create stable keep.st (ts timestamp, v double, s varchar(16)) tags (t int)')
  await sql(server.url, "insert into keep.c1 using keep.st tags (1) values (1700000000000, 1.5, 'a') (1700000001000, 2.5, 'b')")
  baseline = await sqlRows(server.url, 'select * from keep.st order by ts')
  await sql(server.url, 'create database fzs')
  await sql(server.url, 'create stable fzs.st (ts timestamp, v double, n int, s varchar(20)) tags (t int, g nchar(8))')
  await sql(server.url, "insert into fzs.c1 using fzs.st tags (1, 'x') values (1700000000000, 1.5, 2, 'a')")
  await sql(server.url, 'create table fzs.nt (ts timestamp, v int)')
  stalls = await watchStalls(server.url)
})

afterAll(async () => {
  // a failed test leaves the watch running: stopped before the server goes
  await stalls?.stop()
  await server.stop()
})

const SEEDS = [
  'select * from fzs.st',
  "select avg(v), max(n) from fzs.st where ts >= '2023-11-14 00:00:00' and t = 1 interval(1m) fill(prev)",
  "select last(v), count(*) from fzs.st partition by tbname, g order by 1 desc limit 5 offset 1",
  'select _wstart, sum(v) from fzs.st where ts > now - 1d and ts < now interval(10s) sliding(5s) fill(linear)',
  "select case when v > 1 then 'big' else 'small' end, abs(n) + 1, cast(v as int), concat(s, 'x') from fzs.c1 where s like 'a%' and n in (1, 2, 3)",
  'select * from (select ts, v from fzs.st where v between 0 and 10) where v is not null',
  "insert into fzs.c2 using fzs.st tags (2, 'y') values (now, 2.5, 3, 'b') fzs.nt values (1700000000000, 7)",
  'create stable fzs.s2 (ts timestamp, a int, `b c` binary(10)) tags (x nchar(4))',
  'alter stable fzs.st add column extra bigint',
  'create table fzs.n2 (ts timestamp, v float)',
  'show fzs.stables',
  'describe fzs.st',
  'select count(*) from fzs.st group by t having count(*) > 0',
  "select * from fzs.st where tbname = 'c1' and g = 'x' order by ts desc slimit 1",
]

// tokens that matter to the grammar, plus characters that stress it
const SPECIAL = ['(', ')', "'", '"', '`', ',', ';', ' ', '+', '-', '*', '/', '%', '=', '<', '>', '!', '.', ' and ', ' or ', ' not ', 'select ', ' from ', ' where ', 'null', 'now', '1s', '0', '9e999', '\u0000', '\ud800', 'µ', '\n', '\\', '|', '&', '~', ' in (', ' is ', ' between ']

const hostileName = fc.constantFrom(...HOSTILE_NAMES).map((n) => n.replaceAll('`', ''))
const hostile = fc.oneof(
  fc.tuple(fc.constantFrom('1 + ', 'v * ', 'n = 1 or ', 'v > 0 and ', "s || '", 'abs(', '(', 'not ', '- ', 'cast(', 'case when 1 then ', '(select * from '), fc.nat({ max: 30_000 })).map(
    ([unit, n]) => `select ${unit.repeat(n)}v from fzs.st`,
  ),
  repeated(['(', ')', "'", '`', 'select ', '1,', ' where ', 'x'], 50_000),
  fc.tuple(hostileName, fc.constantFrom('create stable fzs.`N` (ts timestamp, v int) tags (t int)', 'alter stable fzs.st add tag `N` int', 'create table fzs.`N` (ts timestamp, v int)', 'select `N` from fzs.st', 'create database `N`')).map(([n, s]) => s.replace('N', n)),
)

async function check(statement: string): Promise<void> {
  const res = await post(`${server.url}/rest/sql`, statement, { Authorization: ROOT_AUTH })
  const shown = `${JSON.stringify(statement.slice(0, 200))} -> ${res.status} ${res.text.slice(0, 300)}`
  expect(res.status, shown).toBeLessThan(500)
  expect(typeof res.json?.code, shown).toBe('number')
  expect(String(res.json?.desc ?? ''), shown).not.toMatch(/Maximum call stack|storage unavailable|is not a function|Cannot read properties/)
}

describe('/rest/sql fuzz', () => {
  it('mutated valid statements', async () => {
    await fc.assert(fc.asyncProperty(mutatedText(SEEDS, SPECIAL), check), fuzzParams(2000))
  }, 120_000)

  it('long chains, deep nesting and hostile names', async () => {
    await fc.assert(fc.asyncProperty(hostile, check), fuzzParams(400))
  }, 120_000)

  it('random text', async () => {
    await fc.assert(fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 300 }), check), fuzzParams(400))
  }, 120_000)

  it('kept what it had, never stalled, and still answers', async () => {
    expect(await stalls.stop(), '/-/ping waited 1 s or more during the fuzzing').toBeLessThan(1000)
    expect(await sqlRows(server.url, 'select * from keep.st order by ts')).toEqual(baseline)
    expect(await sqlRows(server.url, 'select 1 + 1')).toEqual([[2]])
  })
})
