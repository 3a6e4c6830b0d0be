import fc from 'fast-check'
import { uncompressSync } from 'snappy'
import { describe, expect, it } from 'vitest'
import { decodeReadResponse, type Label, type TimeSeries } from './proto.js'
import { ReadTooLarge, SnappyReadResponse } from './read-response.js'

function build(queries: TimeSeries[][], limit = 0): { body: Buffer; decoded: number } {
  const b = new SnappyReadResponse(limit)
  for (const q of queries) {
    for (const s of q) {
      b.beginSeries(s.labels)
      for (const x of s.samples) {
        b.sample(x.value, x.timestamp)
      }
      b.endSeries()
    }
    b.endQuery()
  }
  return { body: Buffer.concat(b.finish()), decoded: b.decodedBytes }
}

const expected = (queries: TimeSeries[][]) => queries.map((q) => ({ timeseries: q.filter((s) => s.samples.length > 0) }))

describe('SnappyReadResponse', () => {
  it('builds one snappy block protobufjs decodes to the same results (empty series left out, empty queries kept)', () => {
    const label = fc.record({ name: fc.string({ maxLength: 12 }), value: fc.string({ maxLength: 20 }) })
    const sample = fc.record({
      value: fc.double({ noNaN: true }),
      timestamp: fc.oneof(fc.integer({ min: -2_000_000_000_000, max: 4_000_000_000_000 }), fc.constantFrom(0, 1, 127, 128, -1, 2 ** 53 - 1)),
    })
    const series = fc.record({ labels: fc.array(label, { maxLength: 5 }), samples: fc.array(sample, { maxLength: 6 }) })
    fc.assert(
      fc.property(fc.array(fc.array(series, { maxLength: 4 }), { maxLength: 4 }), (queries) => {
        const { body, decoded } = build(queries)
        expect(uncompressSync(body, { asBuffer: true }).length).toBe(decoded)
        expect(decodeReadResponse(body)).toEqual(expected(queries))
      }),
      { numRuns: 500 },
    )
  })

  it('holds series far larger than its 64 KiB stages, long labels and many queries in one valid block', () => {
    const long = (n: number, at: number): TimeSeries => ({
      labels: [{ name: '__name__', value: 'long' }, { name: 'n', value: String(n) }],
      samples: Array.from({ length: n }, (_, i) => ({ value: ((i * 7) % 977) / 3, timestamp: at + i * 15_000 })),
    })
    // label bytes across every literal length form (tag only, 1, 2 and 3 length bytes)
    const wide = (size: number): Label[] => [{ name: 'w', value: 'x'.repeat(size) }]
    const queries: TimeSeries[][] = [
      [long(200_000, 1_700_000_000_000), { labels: wide(50), samples: [{ value: 1, timestamp: 5 }] }, long(5_000, -1_000_000)],
      [],
      [{ labels: wide(300), samples: long(9_000, 1).samples }, { labels: wide(70_000), samples: [{ value: 2, timestamp: 6 }] }],
      [{ labels: wide(20_000_000), samples: [{ value: 3, timestamp: 7 }] }, long(3, 0)],
    ]
    const { body, decoded } = build(queries)
    expect(uncompressSync(body, { asBuffer: true }).length).toBe(decoded)
    // float samples compress to well under their 18 decoded bytes
    expect(body.length).toBeLessThan(decoded * 0.8)
    expect(decodeReadResponse(body)).toEqual(expected(queries))
  })

  it('refuses an answer that would decode past its limit, and takes one that fits it exactly', () => {
    const queries: TimeSeries[][] = [[{ labels: [{ name: '__name__', value: 'x' }], samples: Array.from({ length: 10_000 }, (_, i) => ({ value: i, timestamp: 1_700_000_000_000 + i })) }]]
    const { body, decoded } = build(queries)
    expect(decodeReadResponse(build(queries, decoded).body)).toEqual(expected(queries))
    expect(body.length).toBeGreaterThan(0)
    let err: unknown
    try {
      build(queries, decoded - 1)
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(ReadTooLarge)
    expect((err as ReadTooLarge).message).toMatch(new RegExp(`passes ${decoded - 1} bytes \\(http.maxBodySize\\) after \\d+ samples`))
    // Prometheus shows the first 256 bytes of an error body: the reason fits
    expect((err as ReadTooLarge).message.length).toBeLessThan(220)
  })
})
