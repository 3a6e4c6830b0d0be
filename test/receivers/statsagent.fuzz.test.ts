/**
 * Fuzz over UDP: a few thousand StatsD datagrams from a fixed seed (test/lib/fuzz.ts: FUZZ_SEED,
 * FUZZ_RUNS) into the statsagent receiver of a real adapter gathering every 200 ms, so writes
 * run while the datagrams arrive: valid lines mutated, lines generated with bad types, sample
 * rates of 0, negative, NaN or above 1, huge and non-finite values, very long and hostile names,
 * too many tags, many lines a datagram, and random bytes.
 *
 * Datagrams go in small batches and the next batch waits until /metrics counts the last one, so
 * nothing depends on UDP losses. Checked: every datagram is counted, the ones built broken as
 * malformed and the ones built whole as accepted; no point is dropped (a hostile name must not take
 * a gather's other points with it); /-/ping never waits 1 s; rows written before the fuzzing are
 * unchanged; a valid line afterwards is stored.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningAdapter } from '../../src/lifecycle.js'
import { sqlRows, startIngestServer } from '../ingest/server.js'
import { HOSTILE_NAMES, fuzzParams, mutatedText, pollUntil, receiverCounters, sendDatagrams, watchStalls } from '../lib/fuzz.js'

const RECEIVER = 'statsagent'
let adapter: RunningAdapter
let port: number
let stalls: { stop(): Promise<number> }
let baseline: unknown[][]
let sent = 0

const SEEDS = [
  'web.requests:1|c',
  'web.requests,route=home,env=prod:3|c|@0.5',
  'queue.depth:42|g\nqueue.depth:-4|g\nqueue.depth:+1.5|g',
  'users.online:alice|s\nusers.online:bob|s',
  'api.latency:320|ms|@0.1\napi.latency:12.5|ms',
  'payload.size:1024|h\nmix:1|c:2|g:3|ms',
  'dd.metric:5|d|#tag1:a,tag2',
  'a.b.c,x=1,y=2,z=3:1e3|g',
]
const SPECIAL = [':', '|', '@', '#', ',', '=', '.', '\n', '\r\n', ' ', '+', '-', 'e', '0', '9', 'c', 'g', 's', 'ms', 'h', 'd', '@0', '@-1', '@NaN', 'NaN', 'Infinity', '1e309', '\u0000', '\ud800', '\ud83d\ude00', 'metric_type=x']

/** a name token that stays one: none of StatsD's separators, never empty */
const token = (s: string): string => s.replace(/[:|,=\n\r\s]/g, '') || 'x'

const name = fc.oneof(
  fc.constantFrom(...HOSTILE_NAMES).map(token),
  fc.stringMatching(/^[a-z][a-z0-9_.]{0,20}$/),
  fc.string({ minLength: 1, maxLength: 12 }).map(token),
  fc.constantFrom('tbname', '_tid', 'ts', '_ts', 'value', 'metric_type', 'x'.repeat(200), 'y'.repeat(5000)),
)
const tags = fc.array(fc.tuple(name, name).map(([k, v]) => `${k}=${v}`), { maxLength: 4 })

interface Line {
  text: string
  ok: boolean
}
const goodBit = fc.oneof(
  fc.tuple(fc.integer({ min: -1000, max: 1000 }), fc.constantFrom('', '|@1', '|@0.5', '|@0.001')).map(([v, r]) => `${v}|c${r}`),
  fc.tuple(fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e300, max: 1e300 }), fc.constantFrom('', '+')).map(([v, sign]) => `${v >= 0 ? sign : ''}${v}|g`),
  // a set member may not start with + or - (as the original)
  fc.string({ minLength: 1, maxLength: 10 }).map((m) => `m${m.replace(/[:|\n\r]/g, '')}|s`),
  fc.tuple(fc.double({ noNaN: true, noDefaultInfinity: true, min: 0, max: 1e9 }), fc.constantFrom('ms', 'h', 'd'), fc.constantFrom('', '|@0.25', '|#tag1,tag2')).map(([v, t, r]) => `${v}|${t}${r}`),
  // extremes: the aggregates of these must stay finite where the values allow (mean, spread)
  fc.tuple(fc.constantFrom('1e300', '1.7976931348623157e308', '5e-324', '0', '123.456'), fc.constantFrom('ms', 'h'), fc.constantFrom('', '|@1e-10', '|@0.000001', '|@1')).map(([v, t, r]) => `${v}|${t}${r}`),
)
const badBit = fc.oneof(
  fc.constantFrom('1|x', '1|', '1', '|c', 'abc|c', 'NaN|g', 'Infinity|ms', '-Infinity|g', '1e309|g', '99999999999999999999999|c', '1|c|@0', '1|c|@-1', '1|c|@NaN', '1|c|@2', '1|c|@', '-5|ms', '+5|s', '1|C', '0x10|g', '1.2.3|g'),
  fc.string({ maxLength: 8 }).filter((t) => !['c', 'g', 's', 'ms', 'h', 'd'].includes(t) && !t.includes('|') && !t.includes(':') && !t.includes('\n')).map((t) => `1|${t}`),
)
const line: fc.Arbitrary<Line> = fc
  .tuple(name, tags, fc.array(fc.oneof({ arbitrary: goodBit.map((b) => [b, true] as const), weight: 4 }, badBit.map((b) => [b, false] as const)), { minLength: 1, maxLength: 3 }))
  .map(([n, t, bits]) => ({ text: [n, ...t].join(',') + ':' + bits.map(([b]) => b).join(':'), ok: bits.every(([, good]) => good) }))

/** too many tags: refused before the rest of the line is read */
const wide: fc.Arbitrary<Line> = fc.integer({ min: 128, max: 3000 }).map((k) => ({ text: `wide,${Array.from({ length: k }, (_, i) => `t${i}=v`).join(',')}:1|c`, ok: false }))

interface Case {
  bytes: Uint8Array
  expect: 'accepted' | 'malformed' | 'any'
  why: string
}
const MAX_DATAGRAM = 60_000
function datagramOf(lines: Line[], eol: string): Case {
  let text = ''
  let ok = true
  for (const l of lines) {
    if (text.length + l.text.length + eol.length > MAX_DATAGRAM) {
      break
    }
    text += (text === '' ? '' : eol) + l.text
    ok &&= l.ok
  }
  if (text === '') {
    text = 'fallback:1|c'
  }
  return { bytes: new Uint8Array(Buffer.from(text)), expect: ok ? 'accepted' : 'malformed', why: text.slice(0, 300) }
}

const lines = fc.oneof({ arbitrary: fc.array(line, { minLength: 1, maxLength: 3 }), weight: 3 }, fc.array(fc.oneof({ arbitrary: line, weight: 9 }, wide), { minLength: 1, maxLength: 40 }))
const generated = fc.tuple(lines, fc.constantFrom('\n', '\r\n', '\n\n  ')).map(([lines, eol]) => datagramOf(lines, eol))
const mutated = mutatedText(SEEDS, SPECIAL).map((t): Case => ({ bytes: new Uint8Array(Buffer.from(t)), expect: 'any', why: t.slice(0, 200) }))
const randomBytes = fc.uint8Array({ maxLength: 1400 }).map((b): Case => ({ bytes: b, expect: 'any', why: 'random bytes' }))
const datagram = fc.oneof({ arbitrary: generated, weight: 4 }, { arbitrary: mutated, weight: 4 }, { arbitrary: randomBytes, weight: 1 })

const seen = (c: Record<string, number>): number => c['packets.accepted'] + c['packets.malformed'] + c['packets.dropped'] + c.kernel_drops

beforeAll(async () => {
  adapter = await startIngestServer((c) => {
    c.statsagent.enable = true
    c.statsagent.port = 0
    c.statsagent.gatherInterval = 200
  })
  port = adapter.receivers[0].port
  await sendDatagrams(port, [new Uint8Array(Buffer.from('keep.before,h=a:5|c\nkeep.before,h=b:7|c'))])
  baseline = await pollUntil(
    () => sqlRows(adapter.url, 'select * from statsagent.keep_before order by h').catch(() => []),
    // the rows as written, once stored (a read racing a new table's first write once saw wrong _ts values: src/storage/duckdb/read-snapshot.test.ts)
    (rows) => rows.length === 2 && rows.every((r) => String(r[0]) > '2020'),
  )
  expect(baseline).toHaveLength(2)
  sent = 1
  stalls = await watchStalls(adapter.url)
})

afterAll(async () => {
  // a failed test leaves the watch running: stopped before the adapter goes
  await stalls?.stop()
  await adapter?.stop()
})

/** timing and histogram rows of every super table whose aggregates are wrong (a missing value is a non-finite one) */
async function badTimings(): Promise<unknown[][]> {
  const bad: unknown[][] = []
  for (const [stable] of await sqlRows(adapter.url, 'show statsagent.stables')) {
    const name = String(stable)
    if (name.includes('`')) {
      continue
    }
    const rows = await sqlRows(
      adapter.url,
      `select mean, stddev, lower, upper, \`count\` from statsagent.\`${name}\` where metric_type in ('timing', 'histogram') and ` +
        '(mean is null or mean < lower - abs(lower) * 1e-9 or mean > upper + abs(upper) * 1e-9 or (stddev is null and upper - lower < 1e150))',
    ).catch((err: Error) => (/mean|stddev|lower/.test(err.message) ? [] : [[name, err.message]]))
    bad.push(...rows.map((r) => [name, ...r]))
  }
  return bad
}

describe('StatsD receiver fuzz', () => {
  it('every datagram is counted: broken ones as malformed, whole ones as accepted, none lost', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(datagram, { minLength: 1, maxLength: 20 }), async (batch) => {
        const before = await receiverCounters(adapter.url, RECEIVER)
        await sendDatagrams(
          port,
          batch.map((c) => c.bytes),
        )
        sent += batch.length
        const after = await pollUntil(
          () => receiverCounters(adapter.url, RECEIVER),
          (c) => seen(c) >= sent,
        )
        const shown = batch.map((c) => `${c.expect} ${JSON.stringify(c.why)}`).join('\n')
        expect(seen(after), `datagrams counted of ${sent}\n${shown}`).toBe(sent)
        expect(after['packets.dropped'] + after.kernel_drops, 'paced sends are never dropped').toBe(0)
        expect(after['packets.malformed'] - before['packets.malformed'], shown).toBeGreaterThanOrEqual(batch.filter((c) => c.expect === 'malformed').length)
        expect(after['packets.accepted'] - before['packets.accepted'], shown).toBeGreaterThanOrEqual(batch.filter((c) => c.expect === 'accepted').length)
      }),
      fuzzParams(400),
    )
  }, 120_000)

  it('no point is dropped; old rows unchanged; a valid line afterwards is stored', async () => {
    await sendDatagrams(port, [new Uint8Array(Buffer.from('after.fuzz,h=a:7|g'))])
    const rows = await pollUntil(
      () => sqlRows(adapter.url, 'select `value`, h, metric_type from statsagent.after_fuzz').catch(() => []),
      (r) => r.length >= 1,
    )
    expect(rows).toEqual([[7, 'a', 'gauge']])
    const c = await receiverCounters(adapter.url, RECEIVER)
    expect(c['points.dropped'], JSON.stringify(c)).toBe(0)
    expect(c['points.written']).toBeGreaterThan(0)
    expect(await stalls.stop(), '/-/ping waited 1 s or more during the fuzzing').toBeLessThan(1000)
    expect(await sqlRows(adapter.url, 'select * from statsagent.keep_before order by h')).toEqual(baseline)
    expect(await badTimings(), 'timings whose mean is missing or outside [lower, upper], or whose stddev is missing for a finite spread').toEqual([])
  }, 60_000)
})
