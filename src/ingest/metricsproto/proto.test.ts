import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { compressSync, uncompressSync } from 'snappy'
import { describe, expect, it } from 'vitest'
import {
  MatchType,
  DecodedTooLarge,
  RemoteDecodeError,
  decodeReadRequest,
  decodeWriteRequest,
  encodeReadRequest,
  encodeWriteRequest,
  remoteProtoRoot,
  snappyDecodedLength,
} from './proto.js'

const FIXTURES = join(import.meta.dirname, '../../../test/ingest/fixtures')
const writeBody = readFileSync(join(FIXTURES, 'prom2.42_remote_write.snappy.pb'))
const readBody = readFileSync(join(FIXTURES, 'prom2.42_remote_read.snappy.pb'))

describe('remote write body (captured from Prometheus 2.42)', () => {
  it('decodes every series with labels and ms samples, and re-encodes to the same content', () => {
    const req = decodeWriteRequest(writeBody)
    expect(req.timeseries).toHaveLength(553)
    expect(req.metadataCount).toBe(0)
    const first = req.timeseries[0]
    expect(first.labels).toEqual([
      { name: '__name__', value: 'go_gc_duration_seconds' },
      { name: 'instance', value: '127.0.0.1:9100' },
      { name: 'job', value: 'node' },
      { name: 'peer', value: 'probe' },
      { name: 'quantile', value: '0' },
    ])
    expect(first.samples).toEqual([{ value: 0, timestamp: 1795309649214 }])
    // every series carries __name__ and one sample at the scrape time
    for (const s of req.timeseries) {
      expect(s.labels.some((l) => l.name === '__name__')).toBe(true)
      expect(s.samples.map((x) => x.timestamp)).toEqual([1795309649214])
    }
    expect(decodeWriteRequest(encodeWriteRequest(req))).toEqual(req)
  })

  it('keeps NaN, infinities and negative timestamps through a round trip', () => {
    const req = {
      timeseries: [
        {
          labels: [{ name: '__name__', value: 'x' }],
          samples: [
            { value: Number.NaN, timestamp: 1 },
            { value: Number.POSITIVE_INFINITY, timestamp: 2 },
            { value: -0.5, timestamp: -1000 },
          ],
        },
      ],
    }
    const back = decodeWriteRequest(encodeWriteRequest(req))
    expect(back.timeseries[0].samples.map((s) => s.timestamp)).toEqual([1, 2, -1000])
    expect(back.timeseries[0].samples[0].value).toBeNaN()
    expect(back.timeseries[0].samples[1].value).toBe(Number.POSITIVE_INFINITY)
  })

  it('names what is wrong with a body that is not snappy or not a WriteRequest', () => {
    expect(() => decodeWriteRequest(Buffer.from('cpu,host=a v=1 1'))).toThrow(RemoteDecodeError)
    expect(() => decodeWriteRequest(Buffer.from('cpu,host=a v=1 1'))).toThrow(/not snappy/)
    // valid snappy around bytes that are not the message (a truncated varint)
    expect(() => decodeWriteRequest(compressSync(Buffer.from([0x0a, 0xff, 0xff])))).toThrow(/not a valid protobuf WriteRequest/)
  })
})

describe('message definitions (remote-proto.ts, parsed by protobufjs)', () => {
  it('declare the published prompb messages with their field numbers', () => {
    const fields = (type: string) => Object.fromEntries(remoteProtoRoot.lookupType(`prometheus.${type}`).fieldsArray.map((f) => [f.name, f.id]))
    expect(fields('WriteRequest')).toEqual({ timeseries: 1, metadata: 3 })
    expect(fields('TimeSeries')).toEqual({ labels: 1, samples: 2, exemplars: 3, histograms: 4 })
    expect(fields('Sample')).toEqual({ value: 1, timestamp: 2 })
    expect(fields('Exemplar')).toEqual({ labels: 1, value: 2, timestamp: 3 })
    expect(fields('MetricMetadata')).toEqual({ type: 1, metricFamilyName: 2, help: 4, unit: 5 })
    expect(fields('ReadRequest')).toEqual({ queries: 1, acceptedResponseTypes: 2 })
    expect(fields('Query')).toEqual({ startTimestampMs: 1, endTimestampMs: 2, matchers: 3, hints: 4 })
    expect(fields('LabelMatcher')).toEqual({ type: 1, name: 2, value: 3 })
    expect(fields('ReadHints')).toEqual({ stepMs: 1, func: 2, startMs: 3, endMs: 4, grouping: 5, by: 6, rangeMs: 7 })
    expect(fields('ReadResponse')).toEqual({ results: 1 })
    expect(fields('QueryResult')).toEqual({ timeseries: 1 })
    expect(fields('ChunkedReadResponse')).toEqual({ chunkedSeries: 1, queryIndex: 2 })
    expect(fields('ChunkedSeries')).toEqual({ labels: 1, chunks: 2 })
    expect(fields('Chunk')).toEqual({ minTimeMs: 1, maxTimeMs: 2, type: 3, data: 4 })
    expect(Object.keys(fields('Histogram'))).toHaveLength(15)
  })

  it('a metadata-only WriteRequest decodes to no series and its metadata count', () => {
    const body = encodeWriteRequest({
      timeseries: [],
      metadata: [
        { type: 1, metricFamilyName: 'up', help: '1 if the target is up', unit: '' },
        { type: 5, metricFamilyName: 'rpc_duration_seconds', help: 'RPC latency', unit: 'seconds' },
      ],
    })
    expect(decodeWriteRequest(body)).toEqual({ timeseries: [], metadataCount: 2 })
    const raw = remoteProtoRoot.lookupType('prometheus.WriteRequest').decode(uncompressSync(body) as Buffer).toJSON()
    expect(raw.metadata[1]).toEqual({ type: 'SUMMARY', metricFamilyName: 'rpc_duration_seconds', help: 'RPC latency', unit: 'seconds' })
  })

  it('exemplars and native histograms beside the samples are decoded past, not stored', () => {
    const WriteRequest = remoteProtoRoot.lookupType('prometheus.WriteRequest')
    const msg = WriteRequest.fromObject({
      timeseries: [
        {
          labels: [{ name: '__name__', value: 'h' }],
          samples: [{ value: 1.5, timestamp: 1000 }],
          exemplars: [{ labels: [{ name: 'trace_id', value: 'abc' }], value: 0.3, timestamp: 999 }],
          histograms: [{ countInt: 3, sum: 2.5, schema: 1, positiveSpans: [{ offset: 0, length: 2 }], positiveDeltas: [1, 1], timestamp: 1000 }],
        },
      ],
    })
    const req = decodeWriteRequest(compressSync(Buffer.from(WriteRequest.encode(msg).finish())))
    expect(req.timeseries).toEqual([{ labels: [{ name: '__name__', value: 'h' }], samples: [{ value: 1.5, timestamp: 1000 }] }])
  })
})

describe('remote read body (captured from Prometheus 2.42)', () => {
  it('decodes the query: time range and matchers, SAMPLES response', () => {
    const req = decodeReadRequest(readBody)
    expect(req.acceptedResponseTypes).toEqual([])
    expect(req.queries).toEqual([
      {
        startMs: 1795308988000n,
        endMs: 1795309648000n,
        matchers: [
          { type: MatchType.EQ, name: '__name__', value: 'node_cpu_seconds_total' },
          { type: MatchType.EQ, name: 'peer', value: 'probe' },
        ],
      },
    ])
    expect(decodeReadRequest(encodeReadRequest(req))).toEqual(req)
  })

  it('keeps the whole int64 range Prometheus sends for series lookups, and every matcher type', () => {
    const req = {
      queries: [
        {
          startMs: -(2n ** 63n),
          endMs: 2n ** 63n - 1n,
          matchers: [
            { type: MatchType.EQ, name: 'a', value: '1' },
            { type: MatchType.NEQ, name: 'b', value: '' },
            { type: MatchType.RE, name: 'c', value: 'x.*' },
            { type: MatchType.NRE, name: 'd', value: 'y|z' },
          ],
        },
      ],
      acceptedResponseTypes: [0],
    }
    expect(decodeReadRequest(encodeReadRequest(req))).toEqual(req)
  })
})

describe('decoding fuzz', () => {
  it('random and mutated bodies decode or fail with RemoteDecodeError, nothing else', () => {
    const mutated = fc
      .tuple(fc.constantFrom(writeBody, readBody), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }))
      .map(([body, edits]) => {
        const b = Buffer.from(body)
        for (const [at, v] of edits) {
          b[at % b.length] = v
        }
        return b
      })
    const snappied = fc.uint8Array({ maxLength: 300 }).map((b) => compressSync(Buffer.from(b)))
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)), mutated, snappied), (body) => {
        for (const decode of [decodeWriteRequest, decodeReadRequest]) {
          try {
            decode(body)
          } catch (err) {
            expect(err).toBeInstanceOf(RemoteDecodeError)
          }
        }
      }),
      { numRuns: 2000 },
    )
  })
})

describe('the decoded size of a snappy body, read from its preamble', () => {
  it('is the length the body inflates to, for any body', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 5000 }), fc.integer({ min: 0, max: 3 }), (bytes, times) => {
        const plain = Buffer.concat(Array.from({ length: times + 1 }, () => Buffer.from(bytes)))
        expect(snappyDecodedLength(compressSync(plain))).toBe(plain.length)
      }),
    )
    expect(snappyDecodedLength(compressSync(Buffer.alloc(300_000)))).toBe(300_000)
    expect(snappyDecodedLength(Buffer.from([0xff, 0xff]))).toBeUndefined()
    expect(snappyDecodedLength(Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0x01]))).toBeUndefined()
  })

  it('refuses a body announcing more than the cap before inflating it, and takes one within', () => {
    expect(() => decodeWriteRequest(writeBody, 16)).toThrow(DecodedTooLarge)
    expect(() => decodeReadRequest(readBody, 4)).toThrow(/snappy body decodes to \d+ bytes, over the cap of 4 bytes/)
    const size = snappyDecodedLength(writeBody) as number
    expect(decodeWriteRequest(writeBody, size)).toEqual(decodeWriteRequest(writeBody))
  })
})
