import fc from 'fast-check'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { compressSync } from 'snappy'
import { describe, expect, it } from 'vitest'
import { RemoteDecodeError, decodeWriteRequest, encodeWriteRequest, inflateWriteRequest, remoteProtoRoot, type TimeSeries } from './proto.js'
import { keyBytes, keyHash, labelsOf, scanWriteRequest, type ScannedWrite } from './write-scan.js'

const FIXTURES = join(import.meta.dirname, '../../../test/ingest/fixtures')
const WriteRequest = remoteProtoRoot.lookupType('prometheus.WriteRequest')

/** the scan as protobufjs' decoder gives it: series with samples, labels in wire order */
function asSeries(scan: ScannedWrite): TimeSeries[] {
  const out: TimeSeries[] = []
  for (let i = 0; i < scan.count; i++) {
    const from = i === 0 ? 0 : scan.sampleEnds[i - 1]
    const samples = []
    for (let s = from; s < scan.sampleEnds[i]; s++) {
      samples.push({ value: scan.values[s], timestamp: scan.timestamps[s] })
    }
    out.push({ labels: labelsOf(scan, i), samples })
  }
  return out
}

/** series i's key as text; its hash checked against the key's bytes on the way */
function keyOf(scan: ScannedWrite, i: number): string {
  const k = keyBytes(scan, i)
  expect(scan.hashes[i]).toBe(keyHash(k, 0, k.length))
  return k.toString('latin1')
}

const scanBody = (body: Uint8Array): ScannedWrite => scanWriteRequest(inflateWriteRequest(body))
const withSamples = (body: Uint8Array): TimeSeries[] => decodeWriteRequest(body).timeseries.filter((s) => s.samples.length > 0)

describe('scanWriteRequest', () => {
  it('reads the captured Prometheus 2.42 body as protobufjs decodes it', () => {
    const body = readFileSync(join(FIXTURES, 'prom2.42_remote_write.snappy.pb'))
    const scan = scanBody(body)
    expect(scan.count).toBe(553)
    expect(scan.samples).toBe(553)
    expect(asSeries(scan)).toEqual(withSamples(body))
    expect(new Set(Array.from({ length: scan.count }, (_, i) => keyOf(scan, i))).size).toBe(553)
  })

  it('any generated request: the same series, labels and samples as protobufjs; equal labels, equal keys', () => {
    const text = fc.oneof(fc.constantFrom('__name__', 'job', 'le', ''), fc.string({ maxLength: 12 }), fc.string({ unit: 'binary', maxLength: 12 }))
    const sample = fc.record({
      value: fc.oneof(fc.double(), fc.constantFrom(Number.NaN, Infinity, -Infinity, -0)),
      timestamp: fc.oneof(fc.integer({ min: -1e15, max: 1e15 }), fc.constantFrom(0, -1, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 2 ** 49, 2 ** 49 - 1)),
    })
    const series = fc.record({ labels: fc.array(fc.record({ name: text, value: text }), { maxLength: 5 }), samples: fc.array(sample, { maxLength: 4 }) })
    fc.assert(
      fc.property(fc.array(series, { maxLength: 6 }), (timeseries) => {
        const body = encodeWriteRequest({ timeseries })
        const scan = scanBody(body)
        const expected = withSamples(body)
        expect(asSeries(scan)).toEqual(expected)
        for (let i = 0; i < scan.count; i++) {
          for (let j = 0; j < scan.count; j++) {
            const same = JSON.stringify(expected[i].labels) === JSON.stringify(expected[j].labels)
            expect(keyOf(scan, i) === keyOf(scan, j)).toBe(same)
          }
        }
      }),
      { numRuns: 500 },
    )
  })

  it('leaves out series without samples and counts metadata; steps over exemplars, histograms and unknown fields', () => {
    const msg = WriteRequest.fromObject({
      timeseries: [
        { labels: [{ name: '__name__', value: 'none' }] },
        {
          labels: [{ name: '__name__', value: 'h' }],
          samples: [{ value: 1.5, timestamp: 1000 }],
          exemplars: [{ labels: [{ name: 'trace_id', value: 'abc' }], value: 0.3, timestamp: 999 }],
          histograms: [{ countInt: 3, sum: 2.5, schema: 1, positiveSpans: [{ offset: 0, length: 2 }], positiveDeltas: [1, 1], timestamp: 1000 }],
        },
      ],
      metadata: [{ type: 1, metricFamilyName: 'up', help: 'h', unit: '' }],
    })
    const bytes = Buffer.from(WriteRequest.encode(msg).finish())
    // unknown fields of every wire type, a group among them, before the message
    const unknown = Buffer.from([0x28, 0x96, 0x01, 0x31, 1, 2, 3, 4, 5, 6, 7, 8, 0x3a, 0x02, 0xaa, 0xbb, 0x45, 1, 2, 3, 4, 0x4b, 0x08, 0x01, 0x4c])
    const scan = scanWriteRequest(Buffer.concat([unknown, bytes]))
    expect(scan.count).toBe(1)
    expect(scan.metadataCount).toBe(1)
    expect(asSeries(scan)).toEqual([{ labels: [{ name: '__name__', value: 'h' }], samples: [{ value: 1.5, timestamp: 1000 }] }])
  })

  it('keys labels that are not side by side by their bytes joined: the same key as side by side', () => {
    const label = (n: string, v: string) => Buffer.concat([Buffer.from([0x0a, n.length + v.length + 4, 0x0a, n.length]), Buffer.from(n), Buffer.from([0x12, v.length]), Buffer.from(v)])
    const sample = Buffer.from([0x12, 0x0b, 0x09, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f, 0x10, 0x08])
    const series = (parts: Buffer[]) => {
      const body = Buffer.concat(parts)
      return Buffer.concat([Buffer.from([0x0a, body.length]), body])
    }
    const a = label('__name__', 'x')
    const b = label('job', 'j')
    const scan = scanWriteRequest(Buffer.concat([series([a, b, sample]), series([a, sample, b]), series([b, a, sample])]))
    expect(scan.count).toBe(3)
    expect(keyOf(scan, 0)).toBe(keyOf(scan, 1))
    expect(keyOf(scan, 2)).not.toBe(keyOf(scan, 0))
    expect(scan.hashes[0]).toBe(scan.hashes[1])
    expect(labelsOf(scan, 1)).toEqual([{ name: '__name__', value: 'x' }, { name: 'job', value: 'j' }])
    expect(Array.from(scan.values.subarray(0, 3))).toEqual([1.5, 1.5, 1.5])
  })

  it('names what is wrong: another wire type for a known field, a length past the end, a varint too long', () => {
    expect(() => scanWriteRequest(Buffer.from([0x08, 0x01]))).toThrow(/WriteRequest.timeseries has wire type 0, not 2/)
    expect(() => scanWriteRequest(Buffer.from([0x0a, 0x05, 0x0a]))).toThrow(/length 5 past the end/)
    expect(() => scanWriteRequest(Buffer.from([0x0a, 0x03, 0x12, 0x01, 0x11]))).toThrow(/Sample.timestamp has wire type 1/)
    expect(() => scanWriteRequest(Buffer.from([0x0a, 0x04, 0x12, 0x02, 0x08, 0x01]))).toThrow(/Sample.value has wire type 0/)
    expect(() => scanWriteRequest(Buffer.from([0x28, ...new Array<number>(11).fill(0xff), 0x01]))).toThrow(/varint longer than 10 bytes/)
    expect(() => scanWriteRequest(Buffer.from([0x0f]))).toThrow(RemoteDecodeError)
  })

  it('random and mutated bodies scan or fail with RemoteDecodeError, nothing else', () => {
    const valid = encodeWriteRequest({
      timeseries: [
        { labels: [{ name: '__name__', value: 'a' }, { name: 'job', value: 'node' }], samples: [{ value: 1, timestamp: 1_700_000_000_000 }] },
        { labels: [{ name: '__name__', value: 'b' }], samples: [{ value: Number.NaN, timestamp: -5 }, { value: 2, timestamp: 7 }] },
      ],
    })
    const plain = inflateWriteRequest(valid)
    const mutated = fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 6 }).map((edits) => {
      const b = Buffer.from(plain)
      for (const [at, v] of edits) {
        b[at % b.length] = v
      }
      return b
    })
    fc.assert(
      fc.property(fc.oneof(mutated, fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b))), (bytes) => {
        try {
          const scan = scanWriteRequest(bytes)
          for (let i = 0; i < scan.count; i++) {
            labelsOf(scan, i)
          }
        } catch (err) {
          expect(err).toBeInstanceOf(RemoteDecodeError)
        }
      }),
      { numRuns: 3000 },
    )
    // (a valid snappy frame around it is what the route inflates first)
    expect(scanBody(compressSync(plain)).count).toBe(2)
  })
})
