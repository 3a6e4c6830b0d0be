/**
 * Fuzz over HTTP: random, mutated and structurally odd bodies POSTed to
 * /tsdbproto/v1/put/json/{db} and /tsdbproto/v1/put/telnet/{db} on the real server must get a 204
 * or a 4xx with the JSON error body, never a 5xx, and the server must keep serving (a valid put
 * afterwards is stored). The parsers are fuzzed on their own in src/ingest/tsdbproto; this one
 * goes through the route, the schemaless core and the storage, where odd metric and tag names,
 * type conflicts between requests and extreme values meet real tables. Random inputs come from
 * fast-check from a fixed seed (test/lib/fuzz.ts: FUZZ_SEED, FUZZ_RUNS), some 2,000 bodies per
 * endpoint, hostile ones included (wide items and lines, long runs, deep nesting, lone surrogates
 * and other names storage cannot hold); /-/ping never waits 1 s, and data written before the
 * fuzzing is unchanged after it.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { HOSTILE_NAMES, fuzzParams, mutatedText, repeated, watchStalls } from '../lib/fuzz.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningAdapter } from '../../src/lifecycle.js'
import { ROOT_AUTH, post, sql, sqlRows, startIngestServer } from './server.js'

let server: RunningAdapter
let stalls: { stop(): Promise<number> }
let baseline: unknown[][]

beforeAll(async () => {
  server = await startIngestServer((c) => {
    c.http.maxBodySize = 256 * 1024
  })
  await sql(server.url, "create database fzt precision 'ms'")
  const before = await post(`${server.url}/tsdbproto/v1/put/telnet/fzt`, 'put keep.before 1700000000 1.5 h=a\nput keep.before 1700000001 2.5 h=b', { Authorization: ROOT_AUTH })
  expect(before.status, before.text).toBe(204)
  baseline = await sqlRows(server.url, 'select * from fzt.keep_before order by h')
  stalls = await watchStalls(server.url)
})

afterAll(async () => {
  // a failed test leaves the watch running: stopped before the server goes
  await stalls?.stop()
  await server.stop()
})

// ---- telnet ----

const COLLECTD = readFileSync(join(import.meta.dirname, 'fixtures', 'collectd5.12_write_tsdb.txt'), 'utf8').split('\n').filter((l) => l.trim() !== '')

const TELNET_SEEDS = [
  'put sys.cpu.user 1700000000 42.5 host=web01 cpu=0',
  'sys.cpu.user 1700000000000 -1e3 host=web01',
  'put  m.x   1700000001   7   a=b   c=d  \r\nput m.x 1700000002 8 a=b c=d\r\n',
  'put m.s 1700000000 1 t=\u00e9\u00e8 u=\ud83d\ude00',
  'put m.big 1700000000 1.7976931348623157e308 h=a\nput m.small 1700000000 5e-324 h=a',
  'put m.neg 1700000000 -0 h=a\n\n\nput m.neg 1700000001 +3 h=a',
  COLLECTD.slice(0, 6).join('\n'),
  COLLECTD.slice(-4).join('\n'),
]

// characters that matter to the telnet grammar, plus some that stress storage (quotes, NUL, unicode)
const TELNET_SPECIAL = [' ', '=', '\n', '\r', '\t', '.', '-', '+', 'e', 'E', '0', '9', 'put ', '"', "'", '`', '\\', ',', '\u0000', '\u00b5', '\ud83d\ude00', 'NaN', 'inf', 't', 'true']

// ---- json ----

const JSON_SEEDS = [
  '{"metric":"sys.cpu.nice","timestamp":1700000000,"value":18,"tags":{"host":"web01","dc":"lga"}}',
  '[{"metric":"sys.cpu.nice","timestamp":1700000001000,"value":9,"tags":{"host":"web02","dc":"lga"}},{"metric":"sys.mem","timestamp":1700000002,"value":1.5e3,"tags":{"host":"web01"}}]',
  '{"metric":"typed","timestamp":{"value":1700000000000,"type":"ms"},"value":{"value":"9223372036854775807","type":"bigint"},"tags":{"k":"v"}}',
  '{"metric":"flags","timestamp":0,"value":true,"tags":{}}',
  '{"metric":"texts","timestamp":1700000003,"value":"hello \\"world\\"","tags":{"t":"\\u00e9\\ud83d\\ude00","n":3}}',
  '[{"metric":"small","timestamp":1700000004,"value":{"value":127,"type":"tinyint"},"tags":{"a":"b"}},{"metric":"small","timestamp":1700000005,"value":{"value":1.5,"type":"float"},"tags":{"a":"b"}}]',
]

const JSON_SPECIAL = ['{', '}', '[', ']', '"', ':', ',', '\\', '\\u0000', '\\ud800', '0', '9', '-', '.', 'e', 'null', 'true', ' ', '\n', '1700000000', '\u00e9', '\ud83d\ude00']

/** Names storage reserves (tbname pseudo column, internal _tid and _seq): found by this fuzz as 503s. */
const RESERVED = ['tbname', 'TbName', '_tid', '_SEQ']

// names: mostly plausible, sometimes hostile (keywords, quotes, dots, unicode, very long, empty)
const anyName = fc.oneof(
  fc.constantFrom('cpu', 'sys.cpu.user', 'select', 'ts', '_value', '_ts', '_rowts', '_c0', 'tbname_x', ...RESERVED, 'Group', 'a-b', 'x y', 'quote"d', "it's", 'back`tick', 'µs', '\ud83d\ude00', '', 'x'.repeat(300)),
  fc.string({ minLength: 1, maxLength: 12 }),
  fc.stringMatching(/^[a-z][a-z0-9_.]{0,15}$/),
)
const name = anyName

const timestamp = fc.oneof(
  fc.constantFrom(0, 1700000000, 1700000000123, -1, 1e10, 9999999999, 10000000000000, 2 ** 53, 1.5, '1700000000', null),
  fc.integer({ min: 1_000_000_000, max: 2_000_000_000 }),
  fc.record({ value: fc.oneof(fc.integer(), fc.constant('1700000000000')), type: fc.constantFrom('s', 'ms', 'us', 'ns', 'x') }),
)

const value = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.boolean(),
  fc.string({ maxLength: 40 }),
  fc.constantFrom(null, [], {}, '9223372036854775808', 1e308),
  fc.record({
    value: fc.oneof(fc.integer(), fc.double(), fc.string({ maxLength: 8 }), fc.boolean(), fc.constant('18446744073709551616')),
    type: fc.constantFrom('bool', 'tinyint', 'smallint', 'int', 'bigint', 'float', 'double', 'binary', 'varchar', 'nchar', 'BIGINT', 'json', ''),
  }),
)

const tags = fc.oneof(
  fc.dictionary(name, fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.boolean(), fc.constant(null)), { maxKeys: 6 }),
  fc.constantFrom(null, [], 'host=a', {}),
)

/** structurally plausible items with odd contents: gets past the parser into the core and storage */
const item = fc.record({ metric: fc.oneof(name, fc.constantFrom(null, 7)), timestamp, value, tags }, { requiredKeys: [] })
const structured = fc.oneof(item, fc.array(item, { maxLength: 6 })).map((v) => JSON.stringify(v))

/** telnet lines built from the same odd names and values */
const telnetLine = fc
  .tuple(
    fc.boolean(),
    name,
    fc.oneof(fc.integer({ min: 1_000_000_000, max: 2_000_000_000 }).map(String), fc.constantFrom('0', '-1', '1700000000123', '17000000001234', 'now', '')),
    fc.oneof(fc.double().map(String), fc.integer().map(String), fc.constantFrom('1', 'NaN', '-inf', 'true', '"s"', '')),
    fc.array(fc.tuple(name, fc.string({ maxLength: 10 })).map(([k, v]) => `${k}=${v}`), { maxLength: 5 }),
    fc.constantFrom(' ', '  ', '\t'),
  )
  .map(([put, metric, ts, v, kv, sep]) => (put ? 'put ' : '') + [metric, ts, v, ...kv].join(sep))
const telnetBody = fc.array(telnetLine, { minLength: 1, maxLength: 6 }).chain((lines) => fc.constantFrom('\n', '\r\n').map((eol) => lines.join(eol)))

const hostileName = fc.constantFrom(...HOSTILE_NAMES)
/** width around the 128-tag limit, or far past it */
const width = fc.oneof(fc.nat({ max: 200 }), fc.integer({ min: 1000, max: 20_000 }))
const hostileJson = fc.oneof(
  fc.tuple(hostileName, width).map(([n, k]) =>
    JSON.stringify([{ metric: 'wide', timestamp: 1700000000, value: 1, tags: Object.fromEntries(Array.from({ length: k }, (_, i) => [`${n}${i}`, `${i}`])) }, { metric: 'ok', timestamp: 1700000000, value: 1, tags: { h: 'a' } }]),
  ),
  fc.tuple(hostileName, hostileName).map(([m, t]) => JSON.stringify([{ metric: m, timestamp: 1700000000, value: 1, tags: { h: 'a' } }, { metric: 'named', timestamp: 1700000000, value: 1, tags: { [t]: t } }])),
  repeated(['[', '{"a":', '[{"metric":"m","timestamp":1700000000,"value":1,"tags":{"h":"a"}},'], 20_000),
)
const telnetToken = (n: string): string => n.replace(/[\s=]/g, '') || 'x'
const hostileTelnet = fc.oneof(
  fc.tuple(hostileName, width).map(([n, k]) => `put wide 1700000000 1 ${Array.from({ length: k }, (_, i) => `${telnetToken(n)}${i}=${i}`).join(' ')}\nput ok 1700000000 1 h=a`),
  fc.tuple(hostileName, hostileName).map(([m, t]) => `put ${telnetToken(m)} 1700000000 1 h=a\nput named 1700000000 1 ${telnetToken(t)}=${telnetToken(t)}`),
  repeated(['put m 1700000000 1 a\n', 'x\n', '= ', 'put ', '\n'], 20_000),
)

const randomText = fc.string({ unit: 'binary', maxLength: 300 })
const randomBytes = fc.uint8Array({ maxLength: 300 })
const query = fc.constantFrom('', '', '', '?ttl=5', '?ttl=0', '?ttl=x', '?ttl=-1', '?ttl=99999999999999', '?req_id=1', '?req_id=abc')

async function check(kind: 'json' | 'telnet', body: string | Uint8Array, q: string): Promise<void> {
  const res = await post(`${server.url}/tsdbproto/v1/put/${kind}/fzt${q}`, body, { Authorization: ROOT_AUTH })
  const shown = typeof body === 'string' ? body : Buffer.from(body).toString('latin1')
  expect(res.status, `${kind}${q} body ${JSON.stringify(shown)} -> ${res.status} ${res.text}`).toBeLessThan(500)
  if (res.status !== 204) {
    expect(res.status, `${kind}${q} body ${JSON.stringify(shown)} -> ${res.status} ${res.text}`).toBeGreaterThanOrEqual(400)
    // every error answer is the JSON error body
    expect(res.json?.code, res.text).toBe(res.status)
  }
}

const CASES: Array<[kind: 'json' | 'telnet', name: string, bodies: fc.Arbitrary<string | Uint8Array>, runs: number]> = [
  ['telnet', 'mutated valid bodies never get a 5xx', mutatedText(TELNET_SEEDS, TELNET_SPECIAL), 700],
  ['telnet', 'generated lines with odd metrics, tags and values never get a 5xx', telnetBody, 500],
  ['telnet', 'random text and random bytes never get a 5xx', fc.oneof(randomText, randomBytes), 500],
  ['telnet', 'wide, long and badly named bodies never get a 5xx', hostileTelnet, 300],
  ['json', 'mutated valid bodies never get a 5xx', mutatedText(JSON_SEEDS, JSON_SPECIAL), 700],
  ['json', 'structurally plausible items with odd contents never get a 5xx', structured, 500],
  ['json', 'random JSON values, random text and random bytes never get a 5xx', fc.oneof(fc.json({ maxDepth: 3 }), randomText, randomBytes), 500],
  ['json', 'wide, deep and badly named bodies never get a 5xx', hostileJson, 300],
]

for (const kind of ['telnet', 'json'] as const) {
  describe(`tsdbproto fuzz: /tsdbproto/v1/put/${kind}/{db}`, () => {
    for (const [, name, bodies, runs] of CASES.filter(([k]) => k === kind)) {
      it(name, async () => {
        await fc.assert(
          fc.asyncProperty(bodies, query, async (body, q) => {
            await check(kind, body, q)
          }),
          fuzzParams(runs),
        )
      }, 120_000)
    }
  })
}

describe('reserved names', () => {
  it('a tag named tbname, _tid or _seq is a 400 naming the tag, on both endpoints', async () => {
    for (const tag of RESERVED) {
      for (const [kind, body] of [
        ['telnet', `reserved.tag 1700000000 1 ${tag}=x`],
        ['json', JSON.stringify({ metric: 'reserved.tag', timestamp: 1700000000, value: 1, tags: { [tag]: 'x' } })],
      ] as const) {
        const res = await post(`${server.url}/tsdbproto/v1/put/${kind}/fzt`, body, { Authorization: ROOT_AUTH })
        expect(res.status, `${kind} ${tag}: ${res.text}`).toBe(400)
        expect(res.text).toContain(`tag name \\"${tag}\\" is reserved`)
      }
    }
  })
})

describe('after the fuzzing', () => {
  it('the server still serves and stores data through both endpoints, and kept what it had', async () => {
    expect(await stalls.stop(), '/-/ping waited 1 s or more during the fuzzing').toBeLessThan(1000)
    expect(await sqlRows(server.url, 'select * from fzt.keep_before order by h')).toEqual(baseline)
    const ping = await fetch(`${server.url}/-/ping`)
    expect(ping.status).toBe(200)
    const telnet = await post(`${server.url}/tsdbproto/v1/put/telnet/fzt`, 'put after.fuzz.telnet 1700000000 7 h=a', { Authorization: ROOT_AUTH })
    expect(telnet.status, telnet.text).toBe(204)
    const json = await post(
      `${server.url}/tsdbproto/v1/put/json/fzt`,
      JSON.stringify({ metric: 'after.fuzz.json', timestamp: 1700000000000, value: 8, tags: { h: 'a' } }),
      { Authorization: ROOT_AUTH },
    )
    expect(json.status, json.text).toBe(204)
    expect(await sqlRows(server.url, 'select _value from fzt.after_fuzz_telnet')).toEqual([[7]])
    expect(await sqlRows(server.url, 'select _value from fzt.after_fuzz_json')).toEqual([[8]])
  })
})
