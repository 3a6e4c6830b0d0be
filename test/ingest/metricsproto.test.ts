/**
 * POST /metricsproto/v1/remote_write/{db} and /remote_read/{db} against the real server: the
 * captured Prometheus 2.42 body stored and read back through /rest/sql and through remote read,
 * the storage model (metrics super table, t_<md5> children, JSON labels, NaN as NULL), ttl, bodies
 * without Content-Encoding, metadata-only requests, matchers (RE2 regexes), ranges, row limit,
 * gating, auth, errors, 10,000+ series in one request, the enable switch.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningAdapter } from '../../src/lifecycle.js'
import { MatchType, decodeReadResponse, decodeWriteRequest, encodeReadRequest, encodeWriteRequest, type LabelMatcher, type TimeSeries } from '../../src/ingest/metricsproto/proto.js'
import { seriesKey, seriesTableName, sortLabels } from '../../src/ingest/metricsproto/series.js'
import { ROOT_AUTH, post, sql, sqlRows, startIngestServer } from './server.js'

const fixture = readFileSync(join(import.meta.dirname, 'fixtures/prom2.42_remote_write.snappy.pb'))
let server: RunningAdapter
let limited: RunningAdapter
let base: string

const writeTo = (db: string, body: Uint8Array, headers: Record<string, string> = { Authorization: ROOT_AUTH }, url = base) =>
  post(`${url}/metricsproto/v1/remote_write/${db}`, body, { 'Content-Encoding': 'snappy', 'Content-Type': 'application/x-protobuf', ...headers })

async function read(db: string, queries: { startMs: bigint; endMs: bigint; matchers: LabelMatcher[] }[], url = base) {
  const res = await fetch(`${url}/metricsproto/v1/remote_read/${db}`, {
    method: 'POST',
    headers: { Authorization: ROOT_AUTH, 'Content-Encoding': 'snappy', 'Content-Type': 'application/x-protobuf' },
    body: encodeReadRequest({ queries, acceptedResponseTypes: [0] }),
  })
  const bytes = Buffer.from(await res.arrayBuffer())
  return { status: res.status, headers: res.headers, bytes, results: res.status === 200 ? decodeReadResponse(bytes) : [] }
}

const eq = (name: string, value: string): LabelMatcher => ({ type: MatchType.EQ, name, value })
const ALL = { startMs: -(2n ** 63n), endMs: 2n ** 63n - 1n }

beforeAll(async () => {
  server = await startIngestServer((c) => {
    c.smlAutoCreateDB = true
  })
  base = server.url
  limited = await startIngestServer((c) => {
    c.restfulRowLimit = 3
    c.http.maxBodySize = 64 * 1024
  })
})

afterAll(async () => {
  await server.stop()
  await limited.stop()
})

describe('remote write', () => {
  it('stores the captured Prometheus body: metrics super table, one t_<md5> child per series, labels as JSON', async () => {
    const res = await writeTo('prom', fixture)
    expect(res.status, res.text).toBe(204)
    expect(await describeRows('prom.metrics')).toEqual([
      ['ts', 'TIMESTAMP', 8, ''],
      ['v', 'DOUBLE', 8, ''],
      ['labels', 'JSON', 4095, 'TAG'],
    ])
    expect(await sqlRows(base, 'select count(*) from prom.metrics')).toEqual([[553]])
    const name = seriesTableName(
      seriesKey(
        sortLabels([
          { name: '__name__', value: 'scrape_series_added' },
          { name: 'instance', value: '127.0.0.1:9100' },
          { name: 'job', value: 'node' },
          { name: 'peer', value: 'probe' },
        ]),
      ),
    )
    // the sample's ms timestamp as `date -u -d @1795309649.214` prints it, in the ns database
    const rows = await sqlRows(base, `select ts, v, labels from prom.${name}`)
    expect(rows).toEqual([['2026-11-22T01:07:29.214000000Z', 548, { __name__: 'scrape_series_added', instance: '127.0.0.1:9100', job: 'node', peer: 'probe' }]])
    // the same body again overwrites (same series, same timestamps)
    expect((await writeTo('prom', fixture)).status).toBe(204)
    expect(await sqlRows(base, 'select count(*) from prom.metrics')).toEqual([[553]])
  })

  it('NaN and infinities (stale markers among them) are stored as NULL; metadata-only and empty requests succeed', async () => {
    const body = encodeWriteRequest({
      timeseries: [{ labels: [{ name: '__name__', value: 'stale' }], samples: [{ value: Number.NaN, timestamp: 1000 }, { value: Infinity, timestamp: 2000 }, { value: 2.5, timestamp: 3000 }] }],
    })
    expect((await writeTo('prom', body)).status).toBe(204)
    const name = seriesTableName('__name__=stale')
    expect(await sqlRows(base, `select v from prom.${name} order by ts`)).toEqual([[null], [null], [2.5]])
    expect((await writeTo('prom', encodeWriteRequest({ timeseries: [] }))).status).toBe(204)
  })

  it('samples resent, older than stored or out of order in a request overwrite by timestamp (last write wins)', async () => {
    const series = (name: string, samples: [number, number][]): TimeSeries => ({
      labels: [{ name: '__name__', value: name }],
      samples: samples.map(([timestamp, value]) => ({ timestamp, value })),
    })
    const write = async (timeseries: TimeSeries[]) => expect((await writeTo('ordering', encodeWriteRequest({ timeseries }))).status).toBe(204)
    // in order and new: the columnar append
    await write([series('a', [[1000, 1], [2000, 2]]), series('b', [[1000, 1]])])
    // a resent and an older sample for a, a newer one for b
    await write([series('a', [[2000, 20], [1500, 15]]), series('b', [[3000, 3]])])
    // out of order within the request, the same timestamp twice (the later one wins)
    await write([series('b', [[2500, 25], [2000, 20], [2500, 26]])])
    // the same within a request of series new to the table (that the engine alone cannot tell)
    await write([series('c', [[2000, 2], [1000, 1], [2000, 22]])])
    // an auto-created database has ns precision
    const t = (ms: number) => new Date(ms).toISOString().replace('Z', '000000Z')
    const rows = async (name: string) => sqlRows(base, `select ts, v from ordering.${seriesTableName(`__name__=${name}`)} order by ts`)
    expect(await rows('a')).toEqual([[t(1000), 1], [t(1500), 15], [t(2000), 20]])
    expect(await rows('b')).toEqual([
      [t(1000), 1],
      [t(2000), 20],
      [t(2500), 26],
      [t(3000), 3],
    ])
    expect(await rows('c')).toEqual([[t(1000), 1], [t(2000), 22]])
  })

  it('the ttl query parameter applies to the child tables the write creates (first value wins)', async () => {
    const body = (names: string[]) =>
      encodeWriteRequest({ timeseries: names.map((n) => ({ labels: [{ name: '__name__', value: n }, { name: 'job', value: 'ttl' }], samples: [{ value: 1, timestamp: 1_700_000_000_000 }] })) })
    const first = await post(`${base}/metricsproto/v1/remote_write/promttl?ttl=7`, body(['a', 'b']), { Authorization: ROOT_AUTH, 'Content-Encoding': 'snappy' })
    expect(first.status, first.text).toBe(204)
    // an existing series keeps its ttl; a new one gets this request's
    const second = await post(`${base}/metricsproto/v1/remote_write/promttl?ttl=30`, body(['a', 'c']), { Authorization: ROOT_AUTH, 'Content-Encoding': 'snappy' })
    expect(second.status, second.text).toBe(204)
    const ttlOf = async (name: string) =>
      sqlRows(base, `select ttl from information_schema.ins_tables where db_name = 'promttl' and stable_name = 'metrics' and table_name = '${seriesTableName(`__name__=${name},job=ttl`)}'`)
    expect(await ttlOf('a')).toEqual([[7]])
    expect(await ttlOf('b')).toEqual([[7]])
    expect(await ttlOf('c')).toEqual([[30]])
    // without ttl the children get the default (0: no expiry)
    expect((await writeTo('promttl', body(['d']))).status).toBe(204)
    expect(await ttlOf('d')).toEqual([[0]])
  })

  it('a body without a Content-Encoding header is still decoded as snappy', async () => {
    const res = await post(`${base}/metricsproto/v1/remote_write/promnoenc`, fixture, { Authorization: ROOT_AUTH })
    expect(res.status, res.text).toBe(204)
    expect(await sqlRows(base, 'select count(*) from promnoenc.metrics')).toEqual([[553]])
    // nor does a wrong Content-Type matter
    const other = await post(`${base}/metricsproto/v1/remote_write/promnoenc2`, fixture, { Authorization: ROOT_AUTH, 'Content-Type': 'text/plain' })
    expect(other.status, other.text).toBe(204)
    expect(await sqlRows(base, 'select count(*) from promnoenc2.metrics')).toEqual([[553]])
  })

  it('a metadata-only WriteRequest (as Prometheus sends about once a minute) answers 204 and writes nothing', async () => {
    const metadataOnly = encodeWriteRequest({
      timeseries: [],
      metadata: [
        { type: 1, metricFamilyName: 'http_requests_total', help: 'Total HTTP requests.', unit: '' },
        { type: 2, metricFamilyName: 'node_memory_MemFree_bytes', help: 'Memory information field MemFree_bytes.', unit: 'bytes' },
      ],
    })
    // it really is a metadata-only body: two metadata entries, no series
    expect(decodeWriteRequest(metadataOnly)).toEqual({ timeseries: [], metadataCount: 2 })
    await sql(base, "create database prommeta precision 'ms'")
    const res = await writeTo('prommeta', metadataOnly)
    expect(res.status, res.text).toBe(204)
    expect(res.text).toBe('')
    expect(await sqlRows(base, "select count(*) from information_schema.ins_stables where db_name = 'prommeta'")).toEqual([[0]])
    expect(await sqlRows(base, "select count(*) from information_schema.ins_tables where db_name = 'prommeta'")).toEqual([[0]])
    // not even a database is auto-created for it (this server has smlAutoCreateDB on) ...
    expect((await writeTo('prommetanew', metadataOnly)).status).toBe(204)
    expect(await sqlRows(base, "select name from information_schema.ins_databases where name = 'prommetanew'")).toEqual([])
    // ... nor is a missing database an error when auto-create is off
    expect((await writeTo('prommetanew', metadataOnly, { Authorization: ROOT_AUTH }, limited.url)).status).toBe(204)
  })

  it('a request of 10,000+ series with several samples each is written in one go', async () => {
    const timeseries: TimeSeries[] = Array.from({ length: 12_000 }, (_, i) => ({
      labels: [{ name: '__name__', value: 'big' }, { name: 'i', value: String(i) }],
      samples: [{ value: i, timestamp: 1_700_000_000_000 }, { value: i + 0.5, timestamp: 1_700_000_015_000 }],
    }))
    const res = await writeTo('prombig', encodeWriteRequest({ timeseries }))
    expect(res.status, res.text).toBe(204)
    expect(await sqlRows(base, 'select count(*), sum(v) from prombig.metrics')).toEqual([[24_000, 12_000 * 11_999 + 6000]])
  })

  it('auth, undecodable bodies, bad ttl, missing database, disabled-auto-create and a clashing super table are clear 4xx', async () => {
    expect((await writeTo('prom', fixture, {})).status).toBe(401)
    expect((await writeTo('prom', fixture, { Authorization: `Basic ${Buffer.from('root:wrong').toString('base64')}` })).status).toBe(401)
    const notSnappy = await writeTo('prom', Buffer.from('cpu v=1'))
    expect(notSnappy.status).toBe(400)
    expect(notSnappy.text).toMatch(/not snappy/)
    const badTtl = await post(`${base}/metricsproto/v1/remote_write/prom?ttl=x`, fixture, { Authorization: ROOT_AUTH })
    expect(badTtl.status).toBe(400)
    // limited has smlAutoCreateDB off (and a 64 KiB cap, which the fixture inflates past: a small body)
    const small = encodeWriteRequest({ timeseries: [{ labels: [{ name: '__name__', value: 'up' }], samples: [{ value: 1, timestamp: 1 }] }] })
    const missing = await writeTo('nosuchdb', small, { Authorization: ROOT_AUTH }, limited.url)
    expect(missing.status).toBe(404)
    expect(missing.text).toMatch(/database does not exist/)
    await sql(base, "create database clash precision 'ms'")
    await sql(base, 'create stable clash.metrics (ts timestamp, value double) tags (t nchar(8))')
    const clash = await writeTo('clash', fixture)
    expect(clash.status).toBe(400)
    expect(clash.text).toMatch(/exists with another schema/)
  })

  it('413 over http.maxBodySize', async () => {
    const timeseries = Array.from({ length: 5000 }, (_, i) => ({ labels: [{ name: '__name__', value: `m${i}` }, { name: 'pad', value: 'x'.repeat(20) + i }], samples: [{ value: i, timestamp: i }] }))
    expect((await writeTo('prom', encodeWriteRequest({ timeseries }), { Authorization: ROOT_AUTH }, limited.url)).status).toBe(413)
    // a body under the cap that would inflate past it: refused from snappy's header, before inflating
    expect(fixture.length).toBeLessThan(64 * 1024)
    const inflating = await writeTo('prom', fixture, { Authorization: ROOT_AUTH }, limited.url)
    expect(inflating.status).toBe(413)
    expect(inflating.text).toMatch(/decodes to \d+ bytes.*http\.maxBodySize \(65536 bytes\)/)
  })
})

describe('remote read', () => {
  beforeAll(async () => {
    const series = (labels: Record<string, string>, samples: [number, number][]): TimeSeries => ({
      labels: Object.entries(labels).map(([name, value]) => ({ name, value })),
      samples: samples.map(([timestamp, value]) => ({ timestamp, value })),
    })
    const body = encodeWriteRequest({
      timeseries: [
        series({ __name__: 'http_requests_total', method: 'GET', code: '200' }, [[1000, 1], [2000, 2], [3000, 3]]),
        series({ __name__: 'http_requests_total', method: 'POST', code: '500' }, [[3000, 30], [1000, 10], [2000, 20]]),
        series({ __name__: 'http_requests_total', method: 'GET', code: '404', handler: '/x' }, [[1000, 100]]),
        series({ __name__: 'up', job: 'node' }, [[1500, 1], [2500, Number.NaN]]),
      ],
    })
    expect((await writeTo('rr', body)).status).toBe(204)
    await sql(limited.url, "create database rr precision 'ms'")
    expect((await writeTo('rr', body, { Authorization: ROOT_AUTH }, limited.url)).status).toBe(204)
  })

  const names = (r: { timeseries: TimeSeries[] }) => r.timeseries.map((s) => Object.fromEntries(s.labels.map((l) => [l.name, l.value])))

  it('answers snappy protobuf with labels sorted by name and samples sorted by time', async () => {
    const r = await read('rr', [{ startMs: 0n, endMs: 10_000n, matchers: [eq('__name__', 'http_requests_total'), eq('method', 'POST')] }])
    expect(r.status).toBe(200)
    expect(r.headers.get('content-type')).toBe('application/x-protobuf')
    expect(r.headers.get('content-encoding')).toBe('snappy')
    expect(r.results).toEqual([
      {
        timeseries: [
          {
            labels: [{ name: '__name__', value: 'http_requests_total' }, { name: 'code', value: '500' }, { name: 'method', value: 'POST' }],
            samples: [{ timestamp: 1000, value: 10 }, { timestamp: 2000, value: 20 }, { timestamp: 3000, value: 30 }],
          },
        ],
      },
    ])
  })

  it('every matcher type, anchored regexes, label="" for absent labels, one result per query even when empty', async () => {
    const r = await read('rr', [
      { ...ALL, matchers: [eq('__name__', 'nothing_here')] },
      { ...ALL, matchers: [eq('__name__', 'http_requests_total'), { type: MatchType.NEQ, name: 'method', value: 'GET' }] },
      { ...ALL, matchers: [{ type: MatchType.RE, name: 'code', value: '2..|4..' }] },
      { ...ALL, matchers: [{ type: MatchType.RE, name: 'code', value: '0' }] },
      { ...ALL, matchers: [eq('__name__', 'http_requests_total'), { type: MatchType.NRE, name: 'code', value: '5..' }] },
      { ...ALL, matchers: [eq('__name__', 'http_requests_total'), eq('handler', '')] },
    ])
    expect(r.results).toHaveLength(6)
    expect(names(r.results[0])).toEqual([])
    expect(names(r.results[1]).map((l) => l.code)).toEqual(['500'])
    expect(names(r.results[2]).map((l) => l.code).sort()).toEqual(['200', '404'])
    expect(names(r.results[3])).toEqual([])
    expect(names(r.results[4]).map((l) => l.code).sort()).toEqual(['200', '404'])
    expect(names(r.results[5]).map((l) => l.code).sort()).toEqual(['200', '500'])
  })

  it('regexes are RE2 as Prometheus sends them: (?i), (?i:...), \\z, POSIX classes, escaped punctuation', async () => {
    const re = (name: string, value: string): LabelMatcher => ({ type: MatchType.RE, name, value })
    const r = await read('rr', [
      { ...ALL, matchers: [re('__name__', '(?i)HTTP_REQUESTS_TOTAL'), re('method', '(?i)post')] },
      { ...ALL, matchers: [re('__name__', 'http_(?i:Requests)_total'), re('code', '[[:digit:]]0[[:digit:]]\\z')] },
      { ...ALL, matchers: [re('handler', '\\/[[:alpha:]]'), { type: MatchType.NRE, name: '__name__', value: '(?i)UP' }] },
    ])
    expect(r.status).toBe(200)
    expect(names(r.results[0]).map((l) => l.code)).toEqual(['500'])
    expect(names(r.results[1]).map((l) => l.code).sort()).toEqual(['200', '404', '500'])
    expect(names(r.results[2]).map((l) => l.code)).toEqual(['404'])
  })

  it('the time range is inclusive and the full int64 range works; NULL (NaN) samples are left out', async () => {
    const r = await read('rr', [
      { startMs: 2000n, endMs: 3000n, matchers: [eq('method', 'GET'), eq('code', '200')] },
      { ...ALL, matchers: [eq('__name__', 'up')] },
    ])
    expect(r.results[0].timeseries[0].samples.map((s) => s.timestamp)).toEqual([2000, 3000])
    expect(r.results[1].timeseries[0].samples).toEqual([{ timestamp: 1500, value: 1 }])
  })

  it('restfulRowLimit caps the samples of each query', async () => {
    const r = await read('rr', [{ ...ALL, matchers: [eq('__name__', 'http_requests_total')] }, { ...ALL, matchers: [eq('__name__', 'up')] }], limited.url)
    expect(r.results[0].timeseries.reduce((n, s) => n + s.samples.length, 0)).toBe(3)
    expect(r.results[1].timeseries.reduce((n, s) => n + s.samples.length, 0)).toBe(1)
  })

  it('timestamps come back exact in ms for ms, us and ns databases (ns ticks pass 2^53)', async () => {
    const samples = [1_700_000_000_123, 1_700_000_000_124, 4_102_444_800_001, -1_000].map((timestamp, i) => ({ timestamp, value: i + 0.5 }))
    for (const precision of ['ms', 'us', 'ns']) {
      await sql(base, `create database rt_${precision} precision '${precision}'`)
      const body = encodeWriteRequest({ timeseries: [{ labels: [{ name: '__name__', value: 'exact' }], samples }] })
      expect((await writeTo(`rt_${precision}`, body)).status).toBe(204)
      const r = await read(`rt_${precision}`, [{ ...ALL, matchers: [eq('__name__', 'exact')] }])
      expect(r.results[0].timeseries[0].samples, precision).toEqual([...samples].sort((a, b) => a.timestamp - b.timestamp))
    }
  })

  it('an answer that would decode past http.maxBodySize is a 400 that says so, never a cut-off 200', async () => {
    const small = await startIngestServer((c) => {
      c.smlAutoCreateDB = true
      c.http.maxBodySize = 64 * 1024
    })
    try {
      // 6,000 samples decode to about 108 KB: over the 64 KiB cap (written in bodies under it)
      for (let k = 0; k < 6000; k += 1500) {
        const samples = Array.from({ length: 1500 }, (_, i) => ({ timestamp: 1_700_000_000_000 + (k + i) * 1000, value: k + i }))
        expect((await writeTo('big', encodeWriteRequest({ timeseries: [{ labels: [{ name: '__name__', value: 'many' }], samples }] }), undefined, small.url)).status).toBe(204)
      }
      const whole = await read('big', [{ ...ALL, matchers: [eq('__name__', 'many')] }], small.url)
      expect(whole.status).toBe(400)
      const body = JSON.parse(whole.bytes.toString()) as { code: number; desc: string; error: string }
      expect(body.code).toBe(400)
      expect(body.error).toMatch(/^remote read: the answer passes 65536 bytes \(http\.maxBodySize\) after \d+ samples; Prometheus needs it as one snappy block: narrow the time range or the matchers$/)
      // what Prometheus shows of it: the first 256 bytes of the body hold the whole reason
      expect(whole.bytes.subarray(0, 256).toString()).toContain('narrow the time range or the matchers')
      const part = await read('big', [{ startMs: 1_700_000_000_000n, endMs: 1_700_000_999_000n, matchers: [eq('__name__', 'many')] }], small.url)
      expect(part.status).toBe(200)
      expect(part.results[0].timeseries[0].samples).toHaveLength(1000)
    } finally {
      await small.stop()
    }
  })

  it('STREAMED_XOR_CHUNKS alone is refused with 400 naming it; offered beside SAMPLES, SAMPLES is answered', async () => {
    const ask = (types: number[]) =>
      fetch(`${base}/metricsproto/v1/remote_read/rr`, {
        method: 'POST',
        headers: { Authorization: ROOT_AUTH, 'Content-Encoding': 'snappy', 'Content-Type': 'application/x-protobuf' },
        body: encodeReadRequest({ queries: [{ ...ALL, matchers: [eq('__name__', 'up')] }], acceptedResponseTypes: types }),
      })
    const streamed = await ask([1])
    expect(streamed.status).toBe(400)
    expect(await streamed.text()).toContain('only the SAMPLES response type is answered; the request accepts only [1] (1 = STREAMED_XOR_CHUNKS)')
    for (const types of [[1, 0], []]) {
      const res = await ask(types)
      expect(res.status).toBe(200)
      expect(decodeReadResponse(Buffer.from(await res.arrayBuffer()))[0].timeseries[0].samples).toEqual([{ timestamp: 1500, value: 1 }])
    }
  })

  it('query-paused refuses reads (503, Retry-After) but not writes; all-paused refuses both', async () => {
    server.gate.set('query-paused')
    try {
      const r = await read('rr', [{ ...ALL, matchers: [eq('__name__', 'up')] }])
      expect(r.status).toBe(503)
      expect(r.headers.get('Retry-After')).toBe('120')
      expect(r.bytes.toString()).toBe('"query memory exceeds threshold"')
      expect((await writeTo('rr', encodeWriteRequest({ timeseries: [] }))).status).toBe(204)
    } finally {
      server.gate.set('normal')
    }
    server.gate.set('all-paused')
    try {
      expect((await read('rr', [])).status).toBe(503)
      expect((await writeTo('rr', fixture)).status).toBe(503)
    } finally {
      server.gate.set('normal')
    }
  })

  it('bad bodies, bad regexes, missing databases and credentials are 4xx', async () => {
    const notSnappy = await post(`${base}/metricsproto/v1/remote_read/rr`, 'x', { Authorization: ROOT_AUTH })
    expect(notSnappy.status).toBe(400)
    const badRe = await read('rr', [{ ...ALL, matchers: [{ type: MatchType.RE, name: 'code', value: '(' }] }])
    expect(badRe.status).toBe(400)
    expect(badRe.bytes.toString()).toMatch(/invalid regular expression/)
    // syntax RE2 does not have (here a lookahead JS would accept): 400 naming the matcher
    const lookahead = await read('rr', [{ ...ALL, matchers: [eq('__name__', 'up'), { type: MatchType.NRE, name: 'job', value: '(?!node).*' }] }])
    expect(lookahead.status).toBe(400)
    expect((JSON.parse(lookahead.bytes.toString()) as { desc: string }).desc).toContain(
      'remote read: matcher job!~"(?!node).*": invalid regular expression (RE2 syntax): error parsing regexp: invalid or unsupported Perl syntax: `(?!`',
    )
    expect((await read('nosuchdb', [{ ...ALL, matchers: [] }])).status).toBe(404)
    expect((await post(`${base}/metricsproto/v1/remote_read/rr`, encodeReadRequest({ queries: [], acceptedResponseTypes: [] }))).status).toBe(401)
  })
})

describe('metricsproto.enable', () => {
  it('false removes both routes (404)', async () => {
    const off = await startIngestServer((c) => {
      c.metricsproto.enable = false
    })
    try {
      expect((await writeTo('prom', fixture, { Authorization: ROOT_AUTH }, off.url)).status).toBe(404)
      expect((await post(`${off.url}/metricsproto/v1/remote_read/prom`, 'x', { Authorization: ROOT_AUTH })).status).toBe(404)
    } finally {
      await off.stop()
    }
  })
})

async function describeRows(table: string): Promise<unknown[][]> {
  return (await sqlRows(base, `describe ${table}`)).map((r) => r.slice(0, 4))
}
