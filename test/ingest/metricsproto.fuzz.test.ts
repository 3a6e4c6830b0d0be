/**
 * Fuzz Prometheus remote write over the real server: generated requests with odd labels (hostile
 * names and values, duplicates, empty, many) and samples (NaN, infinities, extreme timestamps),
 * valid bodies with bytes flipped, valid snappy around garbage, and random bytes; some 2,000 from a
 * fixed seed (test/lib/fuzz.ts: FUZZ_SEED, FUZZ_RUNS). Every answer is a 204 or a 4xx with the
 * JSON error body, never a 5xx; /-/ping never waits 1 s; a series written before is unchanged.
 */
import fc from 'fast-check'
import { compressSync, uncompressSync } from 'snappy'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeWriteRequest, type TimeSeries } from '../../src/ingest/metricsproto/proto.js'
import { seriesTableName } from '../../src/ingest/metricsproto/series.js'
import type { RunningAdapter } from '../../src/lifecycle.js'
import { HOSTILE_NAMES, fuzzParams, watchStalls } from '../lib/fuzz.js'
import { ROOT_AUTH, post, sql, sqlRows, startIngestServer } from './server.js'

let server: RunningAdapter
let stalls: { stop(): Promise<number> }
let baseline: unknown[][]
const KEEP = seriesTableName('__name__=keep_before,job=fuzz')

const write = (body: Uint8Array) =>
  post(`${server.url}/metricsproto/v1/remote_write/fzp`, body, { Authorization: ROOT_AUTH, 'Content-Encoding': 'snappy', 'Content-Type': 'application/x-protobuf' })

beforeAll(async () => {
  server = await startIngestServer((c) => {
    c.http.maxBodySize = 1024 * 1024
  })
  await sql(server.url, 'create database fzp')
  const keep: TimeSeries = { labels: [{ name: '__name__', value: 'keep_before' }, { name: 'job', value: 'fuzz' }], samples: [{ value: 1.5, timestamp: 1_700_000_000_000 }, { value: 2.5, timestamp: 1_700_000_001_000 }] }
  const res = await write(encodeWriteRequest({ timeseries: [keep] }))
  expect(res.status, res.text).toBe(204)
  baseline = await sqlRows(server.url, `select * from fzp.${KEEP} order by ts`)
  expect(baseline.length).toBe(2)
  stalls = await watchStalls(server.url)
})

afterAll(async () => {
  // a failed test leaves the watch running: stopped before the server goes
  await stalls?.stop()
  await server.stop()
})

const text = fc.oneof(fc.constantFrom(...HOSTILE_NAMES, '__name__', 'job', 'le', 'up'), fc.string({ maxLength: 20 }), fc.string({ unit: 'binary', maxLength: 20 }))
const label = fc.record({ name: text, value: text })
const sample = fc.record({
  value: fc.oneof(fc.double(), fc.constantFrom(Number.NaN, Infinity, -Infinity, 0, -0)),
  timestamp: fc.oneof(fc.integer({ min: 1_600_000_000_000, max: 1_800_000_000_000 }), fc.constantFrom(0, -1, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 253402300799999)),
})
const series = fc.record({ labels: fc.array(label, { maxLength: 8 }), samples: fc.array(sample, { maxLength: 5 }) })
const request = fc.array(series, { maxLength: 6 }).map((timeseries) => encodeWriteRequest({ timeseries }))

/** a valid request with a few bytes changed, before or after snappy */
const flipped = fc.tuple(fc.array(series, { minLength: 1, maxLength: 3 }), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }), fc.boolean()).map(([ts, flips, inside]) => {
  const compressed = Buffer.from(encodeWriteRequest({ timeseries: ts }))
  // inside: the protobuf changed and compressed again (reaches the decoder); else the snappy frame
  const target = inside ? Buffer.from(uncompressSync(compressed) as Buffer) : compressed
  for (const [at, b] of flips) {
    target[at % target.length] = b
  }
  return inside ? compressSync(target) : target
})
const garbageInSnappy = fc.uint8Array({ maxLength: 400 }).map((b) => compressSync(Buffer.from(b)))
const wide = fc.tuple(fc.constantFrom(...HOSTILE_NAMES), fc.integer({ min: 100, max: 5000 })).map(([n, k]) =>
  encodeWriteRequest({ timeseries: [{ labels: Array.from({ length: k }, (_, i) => ({ name: `${n}${i}`, value: `${i}` })), samples: [{ value: 1, timestamp: 1_700_000_000_000 }] }] }),
)

async function check(body: Uint8Array): Promise<void> {
  const res = await write(body)
  const shown = `${Buffer.from(body).toString('hex').slice(0, 200)} -> ${res.status} ${res.text.slice(0, 300)}`
  expect(res.status, shown).toBeLessThan(500)
  if (res.status !== 204) {
    expect(res.status, shown).toBeGreaterThanOrEqual(400)
    expect(res.json?.code, shown).toBe(res.status)
  }
}

describe('remote write fuzz', () => {
  it('generated requests with odd labels and samples', async () => {
    await fc.assert(fc.asyncProperty(request, check), fuzzParams(1000))
  }, 120_000)

  it('valid requests with bytes changed, garbage in valid snappy, random bytes', async () => {
    await fc.assert(fc.asyncProperty(fc.oneof(flipped, garbageInSnappy, fc.uint8Array({ maxLength: 400 })), check), fuzzParams(800))
  }, 120_000)

  it('series with hundreds to thousands of labels', async () => {
    await fc.assert(fc.asyncProperty(wide, check), fuzzParams(200))
  }, 120_000)

  it('kept what it had, never stalled, and still stores data', async () => {
    expect(await stalls.stop(), '/-/ping waited 1 s or more during the fuzzing').toBeLessThan(1000)
    expect(await sqlRows(server.url, `select * from fzp.${KEEP} order by ts`)).toEqual(baseline)
    const res = await write(encodeWriteRequest({ timeseries: [{ labels: [{ name: '__name__', value: 'after' }], samples: [{ value: 9, timestamp: 1_700_000_000_000 }] }] }))
    expect(res.status, res.text).toBe(204)
    expect(await sqlRows(server.url, `select v from fzp.${seriesTableName('__name__=after')}`)).toEqual([[9]])
  })
})
