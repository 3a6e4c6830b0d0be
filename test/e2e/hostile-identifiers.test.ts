/**
 * Issue 33, no poisoning: hostile identifiers (lone UTF-16 surrogates, bytes that are not UTF-8,
 * NUL and other control characters, quotes, backticks, dots, over-long names) sent through every
 * path that names things: /rest/sql CREATE/ALTER/INSERT USING, line protocol, OpenTSDB JSON and
 * telnet, and remote-write labels. Each is refused with a 4xx (or a SQL error code) or stored as
 * given; none is a 5xx, and good data written into the same database and the same super tables
 * afterwards is written and readable, before and after a restart of the adapter process on its
 * data directory. Before: a tag key `\ud800` answered 503 and every later write to the database
 * did too, also after a restart.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { identifierProblem } from '../../src/identifier.js'
import { encodeWriteRequest } from '../../src/ingest/metricsproto/proto.js'
import { seriesTableName } from '../../src/ingest/metricsproto/series.js'
import { ROOT_AUTH, startAdapter, type AdapterProcess } from '../integration/adapter-process.js'

let adapter: AdapterProcess
let dataFile: string

/** names as strings (the JSON paths carry them exactly, lone surrogates included) */
const NAMES = ['\ud800', 'a\udc00b', 'x'.repeat(300), 'é'.repeat(40), 'n\u0000ul', 'new\nline', 'tab\tx', 'q"uote', "s'ingle", 'back`tick', 'do.t', 'sp ace', '', 'ok_\ufffd']
/** names as bytes that are not UTF-8 (a lone surrogate in CESU-8, a stray 0xff, a cut sequence) */
const RAW = [Buffer.from([0x61, 0xed, 0xa0, 0x80]), Buffer.from([0x62, 0xff]), Buffer.from([0x63, 0xe2, 0x82])]

async function post(path: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const res = await fetch(`${adapter.base}${path}`, { method: 'POST', headers: { Authorization: ROOT_AUTH, ...headers }, body })
  return { status: res.status, text: await res.text() }
}

/** a hostile request: any answer but a 5xx (and for SQL: no code 65535, the catch-all) */
async function hostile(path: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<void> {
  const a = await post(path, body, headers)
  const shown = typeof body === 'string' ? JSON.stringify(body.slice(0, 120)) : body.toString('latin1').slice(0, 120)
  expect(a.status, `${path} ${shown} -> ${a.status} ${a.text.slice(0, 300)}`).toBeLessThan(500)
  if (path === '/rest/sql') {
    expect(a.text, `${shown}`).not.toMatch(/"code":65535/)
  }
}

async function good(path: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<void> {
  const a = await post(path, body, headers)
  expect(a.status, `${path} ${String(body).slice(0, 120)} -> ${a.text.slice(0, 300)}`).toBeLessThan(300)
  if (path === '/rest/sql') {
    expect(JSON.parse(a.text).code, a.text).toBe(0)
  }
}

async function rows(statement: string): Promise<unknown[][]> {
  const a = await post('/rest/sql', statement)
  const body = JSON.parse(a.text) as { code: number; data: unknown[][] }
  expect(body.code, `${statement} -> ${a.text}`).toBe(0)
  return body.data
}

const bytes = (...parts: Array<string | Buffer>): Buffer => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)))
/** line-protocol escaping of a name (comma, space, equals sign) */
const lpName = (n: string): string => n.replace(/[, =]/g, (c) => `\\${c}`)
const snappy = { 'Content-Encoding': 'snappy', 'Content-Type': 'application/x-protobuf' }

async function writeHostile(round: number): Promise<void> {
  const ts = 1_700_000_000 + round
  for (const n of NAMES) {
    const q = n.replaceAll('`', '')
    await hostile('/rest/sql', `create database \`${q}\``)
    await hostile('/rest/sql', `create stable h.\`${q}\` (ts timestamp, v int) tags (t int)`)
    await hostile('/rest/sql', `create table h.\`${q}\` (ts timestamp, v int)`)
    await hostile('/rest/sql', `create table h.nt_${round} (ts timestamp, \`${q}\` int)`)
    await hostile('/rest/sql', `alter stable h.st add column \`${q}\` int`)
    await hostile('/rest/sql', `alter stable h.st add tag \`${q}\` int`)
    await hostile('/rest/sql', `alter table h.nt add column \`${q}\` int`)
    await hostile('/rest/sql', `insert into h.\`${q}\` using h.st tags (1) values (now, 1)`)
    const l = lpName(n.replaceAll('\n', ''))
    await hostile('/lineproto/v1/write?db=h&precision=s', `${l},h=a v=1 ${ts}\nlp,${l}=x v=1 ${ts}\nlp,h=a ${l}=1 ${ts}\nlp,h=${l} v=1 ${ts}`)
    const metric = { timestamp: ts, value: 1 }
    await hostile('/tsdbproto/v1/put/json/h', JSON.stringify([{ metric: n, tags: { h: 'a' }, ...metric }, { metric: 'js', tags: { [n]: 'x' }, ...metric }, { metric: 'js', tags: { h: n }, ...metric }]))
    const t = n.replace(/[\s=]/g, '')
    await hostile('/tsdbproto/v1/put/telnet/h', `put ${t || 'x'} ${ts} 1 h=a\nput tn ${ts} 1 ${t}=x\nput tn ${ts} 1 h=${t}`)
    const labels = [
      [{ name: '__name__', value: n }, { name: 'job', value: 'x' }],
      [{ name: '__name__', value: 'rw' }, { name: n, value: n }],
    ]
    await hostile('/metricsproto/v1/remote_write/h', encodeWriteRequest({ timeseries: labels.map((ls) => ({ labels: ls, samples: [{ value: 1, timestamp: ts * 1000 }] })) }), snappy)
  }
  for (const r of RAW) {
    await hostile('/rest/sql', bytes('create stable h.`', r, '` (ts timestamp, v int) tags (t int)'))
    await hostile('/rest/sql', bytes('alter stable h.st add tag `', r, '` int'))
    await hostile('/rest/sql', bytes('alter table h.nt add column `', r, '` int'))
    await hostile('/lineproto/v1/write?db=h&precision=s', bytes(r, ',h=a v=1 ', String(ts), '\nlp,', r, '=x v=1 ', String(ts), '\nlp,h=a ', r, '=1 ', String(ts)))
    await hostile('/tsdbproto/v1/put/telnet/h', bytes('put ', r, ` ${ts} 1 h=a\nput tn ${ts} 1 `, r, '=x'))
    await hostile('/tsdbproto/v1/put/json/h', bytes('{"metric":"js","timestamp":', String(ts), ',"value":1,"tags":{"', r, '":"x"}}'))
  }
}

/** good data of round `round` into the tables the hostile requests aimed at */
async function writeGood(round: number): Promise<void> {
  const ts = 1_700_000_000 + round
  // columns and tags named: names a hostile ALTER may legitimately have added are left NULL
  await good('/rest/sql', `insert into h.c1 using h.st (t) tags (7) (ts, v) values (${ts * 1000}, ${round})`)
  await good('/rest/sql', `insert into h.nt (ts, v) values (${ts * 1000}, ${round})`)
  await good('/lineproto/v1/write?db=h&precision=s', `lp,h=a v=${round} ${ts}`)
  await good('/tsdbproto/v1/put/json/h', JSON.stringify({ metric: 'js', timestamp: ts, value: round, tags: { h: 'a' } }))
  await good('/tsdbproto/v1/put/telnet/h', `put tn ${ts} ${round} h=a`)
  await good('/metricsproto/v1/remote_write/h', encodeWriteRequest({ timeseries: [{ labels: [{ name: '__name__', value: 'rw' }, { name: 'job', value: 'good' }], samples: [{ value: round, timestamp: ts * 1000 }] }] }), snappy)
}

async function expectGood(rounds: number[]): Promise<void> {
  // every name that reached the catalog is one storage holds as given
  const names = await rows("select table_name, col_name from information_schema.ins_columns where db_name = 'h'")
  expect(names.length).toBeGreaterThan(10)
  for (const name of names.flat()) {
    expect(identifierProblem(String(name), 192), JSON.stringify(name)).toBeUndefined()
  }
  const dbs = await rows('select name from information_schema.ins_databases')
  for (const [name] of dbs) {
    expect(identifierProblem(String(name), 64), JSON.stringify(name)).toBeUndefined()
  }
  const want = rounds.map((r) => [r])
  expect(await rows('select v from h.c1 order by ts')).toEqual(want)
  expect(await rows('select v from h.nt order by ts')).toEqual(want)
  expect(await rows("select v from h.lp where h = 'a' order by _ts")).toEqual(want)
  expect(await rows("select _value from h.js where h = 'a' order by _ts")).toEqual(want)
  expect(await rows("select _value from h.tn where h = 'a' order by _ts")).toEqual(want)
  // the child of the series {__name__="rw", job="good"} (its name is the MD5 of the sorted labels)
  expect(await rows(`select v from h.${seriesTableName('__name__=rw,job=good')} order by ts`)).toEqual(want)
}

beforeAll(async () => {
  dataFile = join(mkdtempSync(join(tmpdir(), 'hostile-ids-')), 'h.duckdb')
  adapter = await startAdapter(`duckdb:${dataFile}`)
  await good('/rest/sql', 'create database h')
  await good('/rest/sql', 'create stable h.st (ts timestamp, v int) tags (t int)')
  await good('/rest/sql', 'create table h.nt (ts timestamp, v int)')
  await writeGood(0)
}, 120_000)

afterAll(async () => {
  await adapter?.stop()
})

describe('hostile identifiers do not poison a database', () => {
  it('refused or stored as given on every path; good data written after them', async () => {
    await writeHostile(1)
    await writeGood(1)
    await expectGood([0, 1])
  }, 120_000)

  it('after a restart on the same data the good data is there and more is written', async () => {
    await adapter.stop()
    adapter = await startAdapter(`duckdb:${dataFile}`)
    await expectGood([0, 1])
    await writeHostile(2)
    await writeGood(2)
    await expectGood([0, 1, 2])
  }, 180_000)
})
