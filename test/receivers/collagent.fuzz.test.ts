/**
 * Fuzz over UDP: a few thousand datagrams from a fixed seed (test/lib/fuzz.ts: FUZZ_SEED,
 * FUZZ_RUNS) into the collectd receiver of a real adapter: the captured collectd 5.12 packet
 * mutated (bit flips, truncation, part lengths that lie, value counts that disagree with the part,
 * unknown, signed and encrypted parts, strings without their NUL, NaN and infinite values, hostile
 * host/plugin/type names) beside packets built from odd parts and random bytes.
 *
 * Datagrams go in small batches and the next batch waits until /metrics counts the last one
 * (accepted, malformed or dropped): the kernel's buffer never overflows, so nothing depends on UDP
 * losses. Checked: every datagram is counted, the ones known to be broken as malformed, the whole
 * ones as accepted; every point decoded ends up written or rejected (none dropped: one bad name
 * must not take its batch's good points with it); /-/ping never waits 1 s; rows written before
 * the fuzzing are unchanged; a valid packet afterwards is stored.
 */
import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseCollectdPacket } from '../../src/ingest/collagent/parse.js'
import type { RunningAdapter } from '../../src/lifecycle.js'
import { sqlRows, startIngestServer } from '../ingest/server.js'
import { HOSTILE_NAMES, fuzzParams, pollUntil, receiverCounters, sendDatagrams, watchStalls } from '../lib/fuzz.js'

const RECEIVER = 'collagent'
const BASELINE_SQL = 'select * from collagent.keepbefore_0 union all select * from collagent.keepbefore_1 order by `value`'
const captured = new Uint8Array(readFileSync(new URL('../ingest/fixtures/collectd5.12_network.bin', import.meta.url)))

let adapter: RunningAdapter
let port: number
let stalls: { stop(): Promise<number> }
let baseline: unknown[][]
/** datagrams sent, and the points and NaN/Inf values they hold by the parser's count */
let sent = 0
let decoded = 0

// ---- packet building ----

function part(type: number, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + payload.length)
  const v = new DataView(out.buffer)
  v.setUint16(0, type)
  v.setUint16(2, 4 + payload.length)
  out.set(payload, 4)
  return out
}
const cstr = (type: number, bytes: Uint8Array): Uint8Array => part(type, new Uint8Array([...bytes, 0]))
const str = (type: number, s: string): Uint8Array => cstr(type, Buffer.from(s))
function u64(type: number, n: bigint): Uint8Array {
  const b = new Uint8Array(8)
  new DataView(b.buffer).setBigUint64(0, BigInt.asUintN(64, n))
  return part(type, b)
}
/** a values part: [data source type, 8 raw bytes] each */
function valuesPart(list: Array<[number, Uint8Array]>): Uint8Array {
  const b = new Uint8Array(2 + 9 * list.length)
  new DataView(b.buffer).setUint16(0, list.length)
  list.forEach(([kind, raw], i) => {
    b[2 + i] = kind
    b.set(raw.subarray(0, 8), 2 + list.length + 8 * i)
  })
  return part(0x0006, b)
}
const gauge = (x: number): [number, Uint8Array] => {
  const raw = new Uint8Array(8)
  new DataView(raw.buffer).setFloat64(0, x, true)
  return [1, raw]
}
const concat = (...parts: Uint8Array[]): Uint8Array => new Uint8Array(Buffer.concat(parts))

/** where each part of a well-formed packet starts, its type and length */
function partsOf(p: Uint8Array): Array<{ off: number; type: number; len: number }> {
  const v = new DataView(p.buffer, p.byteOffset, p.byteLength)
  const out: Array<{ off: number; type: number; len: number }> = []
  for (let off = 0; off + 4 <= p.length; ) {
    const len = v.getUint16(off + 2)
    out.push({ off, type: v.getUint16(off), len })
    off += len
  }
  return out
}
const CAPTURED_PARTS = partsOf(captured)
const STRING_PARTS = CAPTURED_PARTS.filter((x) => x.type <= 5 && x.type !== 1)
const VALUE_PARTS = CAPTURED_PARTS.filter((x) => x.type === 6)

/** a datagram and what the receiver must say of it: malformed when we broke it for sure */
interface Case {
  bytes: Uint8Array
  expect: 'accepted' | 'malformed' | 'any'
  why: string
}

const copy = (): Uint8Array => new Uint8Array(captured)
function setLen(p: Uint8Array, off: number, len: number): Uint8Array {
  new DataView(p.buffer).setUint16(off + 2, len)
  return p
}

/** odd names as collectd would send them, plus raw bytes that are not UTF-8 at all */
const hostileBytes = fc.oneof(
  fc.constantFrom(...HOSTILE_NAMES).map((n) => new Uint8Array(Buffer.from(n))),
  fc.constantFrom(new Uint8Array([0xed, 0xa0, 0x80]), new Uint8Array([0xff, 0xfe]), new Uint8Array([0xc0, 0x80]), new Uint8Array([0x61, 0x80, 0x62])),
  fc.uint8Array({ minLength: 1, maxLength: 20 }).map((b) => b.map((x) => x || 1)),
  fc.stringMatching(/^[a-z][a-z0-9_]{0,10}$/).map((s) => new Uint8Array(Buffer.from(s))),
)

const mutations: fc.Arbitrary<Case> = fc.oneof(
  fc.array(fc.nat(captured.length * 8 - 1), { minLength: 1, maxLength: 6 }).map((bits) => {
    const p = copy()
    for (const b of bits) {
      p[b >> 3] ^= 1 << (b & 7)
    }
    return { bytes: p, expect: 'any' as const, why: `bit flips ${bits.join(',')}` }
  }),
  fc.nat(captured.length - 1).map((n) => ({ bytes: captured.slice(0, n), expect: 'any' as const, why: `cut at ${n}` })),
  // a part length of 0-3: shorter than its own header
  fc.tuple(fc.constantFrom(...CAPTURED_PARTS), fc.nat(3)).map(([x, len]) => ({ bytes: setLen(copy(), x.off, len), expect: 'malformed' as const, why: `part at ${x.off} length ${len}` })),
  // a part length past the datagram's end, by a little or to the 16-bit maximum
  fc.tuple(fc.constantFrom(...CAPTURED_PARTS), fc.oneof(fc.integer({ min: 1, max: 64 }), fc.constant(65535))).map(([x, k]) => {
    const len = Math.min(65535, captured.length - x.off + k)
    return { bytes: setLen(copy(), x.off, len), expect: 'malformed' as const, why: `part at ${x.off} length ${len} past the end` }
  }),
  // a values part whose count disagrees with its length
  fc.tuple(fc.constantFrom(...VALUE_PARTS), fc.integer({ min: -3, max: 65535 })).filter(([, d]) => d !== 0).map(([x, d]) => {
    const p = copy()
    const v = new DataView(p.buffer)
    const count = (v.getUint16(x.off + 4) + d) & 0xffff
    v.setUint16(x.off + 4, count)
    return { bytes: p, expect: 'malformed' as const, why: `values part at ${x.off} count ${count}` }
  }),
  // a string part without its NUL (the last byte replaced)
  fc.tuple(fc.constantFrom(...STRING_PARTS), fc.integer({ min: 1, max: 255 })).map(([x, c]) => {
    const p = copy()
    p[x.off + x.len - 1] = c
    return { bytes: p, expect: 'malformed' as const, why: `string part at ${x.off} ends in ${c}` }
  }),
  // an unknown, signature or notification part between two parts: skipped
  fc.tuple(fc.constantFrom(...CAPTURED_PARTS), fc.oneof(fc.integer({ min: 0x000a, max: 0x01ff }), fc.constantFrom(0x0100, 0x0101, 0x0200, 0xffff)), fc.uint8Array({ maxLength: 64 })).map(
    ([x, type, payload]) => ({
      bytes: concat(captured.subarray(0, x.off), part(type, payload), captured.subarray(x.off)),
      expect: 'accepted' as const,
      why: `part 0x${type.toString(16)} of ${payload.length} bytes at ${x.off}`,
    }),
  ),
  // an encrypted part (not supported: said so)
  fc.uint8Array({ maxLength: 64 }).map((payload) => ({ bytes: concat(part(0x0210, payload), captured), expect: 'malformed' as const, why: 'encrypted part first' })),
)

/** a time part and whether its nanoseconds fit a signed 64-bit timestamp (past 2262 is refused) */
const time: fc.Arbitrary<[Uint8Array, boolean]> = fc.oneof(
  fc.constantFrom(0n, 1n, 1_700_000_000n, 2n ** 33n, 9_223_372_036n, 9_223_372_037n, 2n ** 63n, 2n ** 64n - 1n).map((t): [Uint8Array, boolean] => [u64(1, t), t * 1_000_000_000n < 2n ** 63n]),
  fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map((t): [Uint8Array, boolean] => [u64(8, t), (t * 1_000_000_000n) >> 30n < 2n ** 63n]),
)
const dsValue = fc.oneof(
  fc.constantFrom(NaN, Infinity, -Infinity, -0, Number.MAX_VALUE, Number.MIN_VALUE).map(gauge),
  fc.double().map(gauge),
  fc.tuple(fc.constantFrom(0, 2, 3), fc.uint8Array({ minLength: 8, maxLength: 8 })),
)

/** packets built from odd names, times and values: whole ones accepted, whatever storage thinks of them */
const built: fc.Arbitrary<Case> = fc
  .tuple(hostileBytes, hostileBytes, hostileBytes, hostileBytes, hostileBytes, time, fc.array(dsValue, { minLength: 1, maxLength: 12 }))
  .map(([host, plugin, instance, type, typeInstance, [t, inRange], list]) => ({
    bytes: concat(cstr(0, host), t, cstr(2, plugin), cstr(3, instance), cstr(4, type), cstr(5, typeInstance), valuesPart(list)),
    // an empty plugin name leaves the value list without one, a time past 2262 cannot be stored: malformed, said so
    expect: plugin.length > 0 && inRange ? ('accepted' as const) : ('malformed' as const),
    why: 'built',
  }))

const randomBytes: fc.Arbitrary<Case> = fc.uint8Array({ maxLength: 1400 }).map((b) => ({ bytes: b, expect: 'any' as const, why: 'random' }))

const datagram: fc.Arbitrary<Case> = fc.oneof({ arbitrary: mutations, weight: 5 }, { arbitrary: built, weight: 3 }, { arbitrary: randomBytes, weight: 1 })

beforeAll(async () => {
  adapter = await startIngestServer((c) => {
    c.collagent.enable = true
    c.collagent.port = 0
  })
  port = adapter.receivers[0].port
  await sendDatagrams(port, [concat(str(0, 'baseline'), u64(1, 1_700_000_000n), str(2, 'keepbefore'), str(4, 'gauge'), valuesPart([gauge(1.5), gauge(2.5)]))])
  // polled until the known rows show (UDP: the receiver stores them after the send returns)
  const expected = [
    ['2023-11-14T22:13:20.000000000Z', 1.5, 'baseline', 'gauge'],
    ['2023-11-14T22:13:20.000000000Z', 2.5, 'baseline', 'gauge'],
  ]
  baseline = await pollUntil(
    () => sqlRows(adapter.url, BASELINE_SQL).catch(() => []),
    (rows) => JSON.stringify(rows) === JSON.stringify(expected),
  )
  expect(baseline).toEqual(expected)
  sent = 1
  decoded = 2
  stalls = await watchStalls(adapter.url)
})

afterAll(async () => {
  // a failed test leaves the watch running: stopped before the adapter goes
  await stalls?.stop()
  await adapter?.stop()
})

/** super tables holding a row timed before 1970 (times past 2262 were once wrapped into storage) */
async function beforeEpoch(): Promise<unknown[][]> {
  const bad: unknown[][] = []
  for (const [stable] of await sqlRows(adapter.url, 'show collagent.stables')) {
    const name = String(stable)
    if (!name.includes('`')) {
      const [[n]] = await sqlRows(adapter.url, `select count(*) from collagent.\`${name}\` where cast(_ts as bigint) < 0`)
      if (Number(n) > 0) {
        bad.push([name, n])
      }
    }
  }
  return bad
}

const seen = (c: Record<string, number>): number => c['packets.accepted'] + c['packets.malformed'] + c['packets.dropped'] + c.kernel_drops

describe('collectd receiver fuzz', () => {
  it('every datagram is counted: broken ones as malformed, whole ones as accepted, none lost', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(datagram, { minLength: 1, maxLength: 20 }), async (batch) => {
        const before = await receiverCounters(adapter.url, RECEIVER)
        await sendDatagrams(
          port,
          batch.map((c) => c.bytes),
        )
        sent += batch.length
        for (const c of batch) {
          const r = parseCollectdPacket(c.bytes, 0n)
          decoded += r.points.length + r.skipped
        }
        const after = await pollUntil(
          () => receiverCounters(adapter.url, RECEIVER),
          (c) => seen(c) >= sent,
        )
        const shown = batch.map((c) => `${c.why}: ${Buffer.from(c.bytes.subarray(0, 120)).toString('hex')}`).join('\n')
        expect(seen(after), `datagrams counted of ${sent}\n${shown}`).toBe(sent)
        expect(after['packets.dropped'] + after.kernel_drops, 'paced sends are never dropped').toBe(0)
        const malformed = after['packets.malformed'] - before['packets.malformed']
        const accepted = after['packets.accepted'] - before['packets.accepted']
        expect(malformed, shown).toBeGreaterThanOrEqual(batch.filter((c) => c.expect === 'malformed').length)
        expect(accepted, shown).toBeGreaterThanOrEqual(batch.filter((c) => c.expect === 'accepted').length)
      }),
      fuzzParams(250),
    )
  }, 120_000)

  it('every point decoded is written or rejected, none dropped; old rows unchanged; a valid packet is stored', async () => {
    const points = await pollUntil(
      () => receiverCounters(adapter.url, RECEIVER),
      (c) => c['points.written'] + c['points.rejected'] + c['points.dropped'] >= decoded,
    )
    expect(points['points.dropped'], JSON.stringify(points)).toBe(0)
    expect(points['points.written'] + points['points.rejected'], JSON.stringify(points)).toBe(decoded)
    expect(points['points.written']).toBeGreaterThan(0)
    expect(await stalls.stop(), '/-/ping waited 1 s or more during the fuzzing').toBeLessThan(1000)
    expect(await sqlRows(adapter.url, BASELINE_SQL)).toEqual(baseline)
    expect(await beforeEpoch(), 'rows stored before 1970: collectd times are unsigned, so a wrapped time').toEqual([])
    await sendDatagrams(port, [concat(str(0, 'after'), u64(1, 1_700_000_001n), str(2, 'afterfuzz'), valuesPart([gauge(7)]))])
    const rows = await pollUntil(
      () => sqlRows(adapter.url, 'select `value`, host from collagent.afterfuzz_value').catch(() => []),
      (r) => r.length === 1,
    )
    expect(rows).toEqual([[7, 'after']])
  }, 60_000)
})
