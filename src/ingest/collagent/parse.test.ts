import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseCollectdPacket } from './parse.js'

const NOW = 1_700_000_000_000_000_000n
const captured = new Uint8Array(readFileSync(new URL('../../../test/ingest/fixtures/collectd5.12_network.bin', import.meta.url)))

/** A part: type, length (header included), payload. */
function part(type: number, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + payload.length)
  const v = new DataView(out.buffer)
  v.setUint16(0, type)
  v.setUint16(2, 4 + payload.length)
  out.set(payload, 4)
  return out
}
const str = (type: number, s: string): Uint8Array => part(type, new Uint8Array([...Buffer.from(s), 0]))
function u64(type: number, n: bigint): Uint8Array {
  const b = new Uint8Array(8)
  new DataView(b.buffer).setBigUint64(0, n)
  return part(type, b)
}
function values(list: Array<[number, number | bigint]>): Uint8Array {
  const b = new Uint8Array(2 + 9 * list.length)
  const v = new DataView(b.buffer)
  v.setUint16(0, list.length)
  list.forEach(([kind, x], i) => {
    b[2 + i] = kind
    const at = 2 + list.length + 8 * i
    if (kind === 1) {
      v.setFloat64(at, Number(x), true)
    } else if (kind === 2) {
      v.setBigInt64(at, BigInt(x))
    } else {
      v.setBigUint64(at, BigInt(x))
    }
  })
  return part(0x0006, b)
}
const packet = (...parts: Uint8Array[]): Uint8Array => new Uint8Array(Buffer.concat(parts))

describe('parseCollectdPacket', () => {
  it('decodes the captured collectd 5.12 packet: every value list, tags, high-resolution times', () => {
    const r = parseCollectdPacket(captured, NOW)
    expect(r.error).toBeUndefined()
    expect(r.skipped).toBe(0)
    // 30 single-value lists and two load lists of three values
    expect(r.points).toHaveLength(36)
    expect(r.points[0]).toEqual({
      measurement: 'memory_value',
      tags: [['host', 'peers-probe'], ['type', 'memory'], ['type_instance', 'used']],
      fields: [{ name: 'value', type: 'DOUBLE', value: 178503680 }],
      ts: 1795309644440104082n,
    })
    const load = r.points.filter((p) => p.measurement.startsWith('load_'))
    expect(load.slice(0, 3).map((p) => [p.measurement, p.fields[0].value, p.tags])).toEqual([
      ['load_0', 0.716796875, [['host', 'peers-probe'], ['type', 'load']]],
      ['load_1', 0.62255859375, [['host', 'peers-probe'], ['type', 'load']]],
      ['load_2', 0.3466796875, [['host', 'peers-probe'], ['type', 'load']]],
    ])
    const cpu = r.points.find((p) => p.measurement === 'cpu_value')
    expect(cpu).toEqual({
      measurement: 'cpu_value',
      tags: [['host', 'peers-probe'], ['instance', '0'], ['type', 'cpu'], ['type_instance', 'user']],
      fields: [{ name: 'value', type: 'DOUBLE', value: 9078 }],
      ts: 1795309646439073732n,
    })
  })

  it('reads every data source type and both time parts', () => {
    const r = parseCollectdPacket(
      packet(
        str(0x0000, 'h'),
        u64(0x0001, 1_700_000_000n),
        str(0x0002, 'p'),
        str(0x0004, 't'),
        values([[0, 2n ** 63n + 1n], [1, -1.5], [2, -7n], [3, 42n]]),
        u64(0x0008, 3n << 30n),
        values([[1, 0.25]]),
      ),
      NOW,
    )
    expect(r.error).toBeUndefined()
    // the last second a nanosecond timestamp holds is still taken
    expect(parseCollectdPacket(packet(u64(0x0001, 9_223_372_036n), str(0x0002, 'p'), values([[1, 1]])), NOW).points[0].ts).toBe(9_223_372_036_000_000_000n)
    expect(r.points.map((p) => [p.measurement, p.fields[0].value, p.ts])).toEqual([
      ['p_0', Number(2n ** 63n + 1n), 1_700_000_000_000_000_000n],
      ['p_1', -1.5, 1_700_000_000_000_000_000n],
      ['p_2', -7, 1_700_000_000_000_000_000n],
      ['p_3', 42, 1_700_000_000_000_000_000n],
      ['p_value', 0.25, 3_000_000_000n],
    ])
  })

  it('stamps value lists without a time with now, and leaves out empty tags', () => {
    const r = parseCollectdPacket(packet(str(0x0002, 'uptime'), str(0x0003, ''), values([[1, 5]])), NOW)
    expect(r.points).toEqual([{ measurement: 'uptime_value', tags: [], fields: [{ name: 'value', type: 'DOUBLE', value: 5 }], ts: NOW }])
  })

  it('skips NaN and infinite values and counts them', () => {
    const r = parseCollectdPacket(packet(str(0x0002, 'p'), values([[1, NaN], [1, Infinity], [1, 1]])), NOW)
    expect(r.skipped).toBe(2)
    expect(r.points.map((p) => p.measurement)).toEqual(['p_2'])
  })

  it('ignores parts it does not use (signature, notification, unknown)', () => {
    const r = parseCollectdPacket(packet(part(0x0200, new Uint8Array(40)), part(0x0100, new Uint8Array([0x41, 0])), part(0x7777, new Uint8Array(3)), str(0x0002, 'p'), values([[1, 1]])), NOW)
    expect(r.error).toBeUndefined()
    expect(r.points).toHaveLength(1)
  })

  it('keeps the values before a malformed part and names the byte offset of the problem', () => {
    const good = packet(str(0x0002, 'p'), values([[1, 1]]))
    const cases: Array<[Uint8Array, RegExp]> = [
      [packet(good, new Uint8Array([0, 2])), /^byte 21: 2 byte\(s\) left, too few for a part header$/],
      [packet(good, new Uint8Array([0, 2, 0, 3])), /^byte 21: part 0x0002 has length 3, shorter than its 4-byte header$/],
      [packet(good, new Uint8Array([0, 2, 0, 40, 0x61])), /^byte 21: part 0x0002 of 40 bytes runs past the end of the 26-byte packet$/],
      [packet(good, part(0x0002, new Uint8Array([0x61, 0x62]))), /^byte 21: part 0x0002: string is not NUL-terminated$/],
      [packet(good, part(0x0001, new Uint8Array(4))), /^byte 21: part 0x0001: numeric part must be 12 bytes, not 8$/],
      [packet(good, part(0x0006, new Uint8Array([0, 2, 1]))), /^byte 21: part 0x0006: 2 value\(s\) need 24 bytes, the part has 7$/],
      [packet(good, part(0x0006, new Uint8Array([0, 1, 9, 0, 0, 0, 0, 0, 0, 0, 0]))), /^byte 21: part 0x0006: value 0 has unknown data source type 9$/],
      [packet(good, part(0x0210, new Uint8Array(8))), /^byte 21: part 0x0210: encrypted part/],
      [packet(values([[1, 1]])), /^byte 0: part 0x0006: value list before any plugin part$/],
      // past 2262 in nanoseconds: storage would have wrapped it to a wrong time (found by the receiver fuzz)
      [packet(good, u64(0x0001, 9_300_000_000n)), /^byte 21: part 0x0001: time 9300000000 s is past the nanosecond timestamp range \(2262-04-11\)$/],
      [packet(good, u64(0x0001, 2n ** 64n - 1n)), /^byte 21: part 0x0001: time 18446744073709551615 s is past/],
      [packet(good, u64(0x0008, 2n ** 64n - 1n)), /^byte 21: part 0x0008: time 17179869183 s is past/],
    ]
    for (const [bytes, message] of cases) {
      const r = parseCollectdPacket(bytes, NOW)
      expect(r.error, message.source).toMatch(message)
      if (bytes.length > good.length) {
        expect(r.points.map((p) => p.measurement)).toEqual(['p_value'])
      }
    }
  })

  it('never throws on random or mutated packets, and every point it returns is well formed', () => {
    const mutated = fc
      .tuple(fc.array(fc.tuple(fc.nat(captured.length - 1), fc.integer({ min: 0, max: 255 })), { maxLength: 8 }), fc.nat(captured.length))
      .map(([edits, cut]) => {
        const b = captured.slice(0, cut)
        for (const [at, byte] of edits) {
          if (at < b.length) {
            b[at] = byte
          }
        }
        return b
      })
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 300 }), mutated), (bytes) => {
        const r = parseCollectdPacket(bytes, NOW)
        for (const p of r.points) {
          expect(p.measurement).toMatch(/_/)
          expect(p.fields).toHaveLength(1)
          expect(Number.isFinite(p.fields[0].value)).toBe(true)
          expect(typeof p.ts).toBe('bigint')
        }
      }),
      { numRuns: 3000 },
    )
  })
})
