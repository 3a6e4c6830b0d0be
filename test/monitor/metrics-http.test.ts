/**
 * /metrics of a real adapter (startIngestServer: DuckDB in memory, port 0) after real requests: rows
 * written and rejected by protocol for every HTTP write endpoint, the bounded per-client-IP request
 * counter and its monitor.disableCollectClientIP switch, and the storage pool gauges (DuckDB's
 * read pool here; the gauges themselves are tested in src/monitor).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultConfig } from '../../src/config/index.js'
import type { AppConfig } from '../../src/config/types.js'
import { encodeWriteRequest } from '../../src/ingest/metricsproto/proto.js'
import type { RunningAdapter } from '../../src/lifecycle.js'
import { ROOT_AUTH, startIngestServer } from '../ingest/server.js'

const AUTH = { Authorization: ROOT_AUTH }

function start(tune: (c: AppConfig) => void = () => {}): Promise<RunningAdapter> {
  return startIngestServer((c) => {
    c.smlAutoCreateDB = true
    tune(c)
  })
}

interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

/** The Prometheus text format's samples (comments skipped). */
function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = []
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (!m) {
      continue
    }
    const labels: Record<string, string> = {}
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      labels[l[1]] = l[2]
    }
    samples.push({ name: m[1], labels, value: Number(m[3]) })
  }
  return samples
}

async function scrape(adapter: RunningAdapter): Promise<Sample[]> {
  const res = await fetch(`${adapter.url}/metrics`)
  expect(res.status).toBe(200)
  return parseMetrics(await res.text())
}

function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value
}

describe('db_adapter_rows_total: rows written and rejected by protocol', () => {
  let adapter: RunningAdapter
  const post = (path: string, body: string | Uint8Array, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(`${adapter.url}${path}`, { method: 'POST', body, headers: { ...AUTH, ...headers } })

  beforeAll(async () => {
    adapter = await start()
  })
  afterAll(async () => {
    await adapter?.stop()
  })

  it('starts with no rows', async () => {
    const samples = await scrape(adapter)
    expect(samples.filter((s) => s.name === 'db_adapter_rows_total')).toEqual([])
  })

  it('counts each write endpoint by its write result', async () => {
    // line protocol: 3 good lines, 1 malformed (400, the others written)
    const lp = await post('/lineproto/v1/write?db=m', 'cpu,host=a v=1 1\ncpu,host=b v=2 2\nthis is not a line\ncpu,host=c v=3 3\n')
    expect(lp.status).toBe(400)
    expect(await lp.json()).toMatchObject({ written: 3, rejected: 1 })
    // and a clean one
    expect((await post('/lineproto/v1/write?db=m', 'cpu,host=d v=4 4')).status).toBe(204)

    // OpenTSDB JSON: two items
    const json = await post(
      '/tsdbproto/v1/put/json/m',
      JSON.stringify([
        { metric: 'mem', timestamp: 1700000000, value: 1, tags: { host: 'a' } },
        { metric: 'mem', timestamp: 1700000001, value: 2, tags: { host: 'a' } },
      ]),
    )
    expect(json.status).toBe(204)

    // OpenTSDB telnet: one good line, one bad
    const telnet = await post('/tsdbproto/v1/put/telnet/m', 'put disk 1700000000 5 host=a\nput disk notatime 6 host=a\n')
    expect(telnet.status).toBe(400)
    expect(await telnet.json()).toMatchObject({ written: 1, rejected: 1 })

    // remote write: a series of 3 samples stored, one of 2 samples with labels too long to store
    const body = encodeWriteRequest({
      timeseries: [
        {
          labels: [{ name: '__name__', value: 'up' }, { name: 'job', value: 'node' }],
          samples: [1, 2, 3].map((i) => ({ value: i, timestamp: 1700000000000 + i })),
        },
        {
          labels: [{ name: '__name__', value: 'up' }, { name: 'huge', value: 'x'.repeat(5000) }],
          samples: [1, 2].map((i) => ({ value: i, timestamp: 1700000000000 + i })),
        },
      ],
    })
    const remote = await post('/metricsproto/v1/remote_write/m', body, { 'Content-Encoding': 'snappy', 'Content-Type': 'application/x-protobuf' })
    expect(remote.status).toBe(400)

    const samples = await scrape(adapter)
    const rows = (protocol: string, result: string): number | undefined => valueOf(samples, 'db_adapter_rows_total', { protocol, result })
    expect(rows('lineproto', 'written')).toBe(4)
    expect(rows('lineproto', 'rejected')).toBe(1)
    expect(rows('tsdbproto_json', 'written')).toBe(2)
    expect(rows('tsdbproto_json', 'rejected')).toBeUndefined()
    expect(rows('tsdbproto_telnet', 'written')).toBe(1)
    expect(rows('tsdbproto_telnet', 'rejected')).toBe(1)
    expect(rows('metricsproto', 'written')).toBe(3)
    expect(rows('metricsproto', 'rejected')).toBe(2)
  })

  it('a request refused as a whole counts no rows', async () => {
    const before = await scrape(adapter)
    // wrong password: 401 before anything is parsed
    const res = await fetch(`${adapter.url}/lineproto/v1/write?db=m&u=root&p=wrong`, { method: 'POST', body: 'cpu v=1 1' })
    expect(res.status).toBe(401)
    const after = await scrape(adapter)
    expect(after.filter((s) => s.name === 'db_adapter_rows_total')).toEqual(before.filter((s) => s.name === 'db_adapter_rows_total'))
  })

  it('the storage pool gauges show the DuckDB read pool after a query', async () => {
    const res = await fetch(`${adapter.url}/rest/sql`, { method: 'POST', headers: AUTH, body: 'select count(*) from m.cpu' })
    expect(res.status).toBe(200)
    await res.text()
    // the connection comes back once its transaction is ended and the next begun, after the answer
    let samples = await scrape(adapter)
    const gauge = (state: string) => samples.find((s) => s.name === 'db_adapter_storage_pool_connections' && s.labels.state === state)?.value
    for (let i = 0; i < 50 && gauge('in_use') !== 0; i++) {
      await new Promise((r) => setTimeout(r, 20))
      samples = await scrape(adapter)
    }
    expect(gauge('total')).toBeGreaterThanOrEqual(1)
    expect(gauge('in_use')).toBe(0)
    expect(gauge('idle')).toBe(gauge('total'))
    expect(samples.find((s) => s.name === 'db_adapter_storage_pool_waiting')?.value).toBe(0)
  })
})

describe('db_adapter_http_requests_by_client_total', () => {
  let adapter: RunningAdapter
  const ping = (ip?: string): Promise<Response> => fetch(`${adapter.url}/-/ping`, ip === undefined ? {} : { headers: { 'X-Forwarded-For': ip } })

  beforeAll(async () => {
    adapter = await start()
  })
  afterAll(async () => {
    await adapter?.stop()
  })

  it('is on by default (monitor.disableCollectClientIP false) and counts by client address', async () => {
    expect(defaultConfig().monitor.disableCollectClientIP).toBe(false)
    await ping()
    await ping('10.0.0.1')
    await ping('10.0.0.1, 192.168.0.1')
    await ping('not-an-ip')
    const samples = await scrape(adapter)
    expect(valueOf(samples, 'db_adapter_http_requests_by_client_total', { client_ip: '10.0.0.1' })).toBe(2)
    expect(valueOf(samples, 'db_adapter_http_requests_by_client_total', { client_ip: 'unknown' })).toBe(1)
    // the socket peer; the scrape itself is counted once it is answered
    expect(valueOf(samples, 'db_adapter_http_requests_by_client_total', { client_ip: '127.0.0.1' })).toBe(1)
    // the route/status counter carries no client label
    expect(samples.filter((s) => s.name === 'db_adapter_http_requests_total').every((s) => !('client_ip' in s.labels))).toBe(true)
  })

  it('keeps at most 100 addresses; later ones count as "other"', async () => {
    for (let i = 0; i < 120; i++) {
      expect((await ping(`10.9.${Math.floor(i / 256)}.${i % 256}`)).status).toBe(200)
    }
    // already-known addresses keep their own series past the bound
    await ping('10.0.0.1')
    const samples = (await scrape(adapter)).filter((s) => s.name === 'db_adapter_http_requests_by_client_total')
    const addresses = samples.filter((s) => s.labels.client_ip !== 'other' && s.labels.client_ip !== 'unknown')
    expect(addresses).toHaveLength(100)
    expect(valueOf(samples, 'db_adapter_http_requests_by_client_total', { client_ip: '10.0.0.1' })).toBe(3)
    // 127.0.0.1 and 10.0.0.1 came first, so 98 of the 120 got a series of their own
    expect(valueOf(samples, 'db_adapter_http_requests_by_client_total', { client_ip: 'other' })).toBe(22)
  })
})

describe('monitor.disableCollectClientIP true', () => {
  let adapter: RunningAdapter
  beforeAll(async () => {
    adapter = await start((c) => {
      c.monitor.disableCollectClientIP = true
    })
  })
  afterAll(async () => {
    await adapter?.stop()
  })

  it('no per-client metric, the route counter as usual', async () => {
    await fetch(`${adapter.url}/-/ping`, { headers: { 'X-Forwarded-For': '10.0.0.1' } })
    const res = await fetch(`${adapter.url}/metrics`)
    const text = await res.text()
    expect(text).not.toContain('db_adapter_http_requests_by_client_total')
    expect(text).not.toContain('10.0.0.1')
    expect(valueOf(parseMetrics(text), 'db_adapter_http_requests_total', { route: '/-/ping', status: '200' })).toBe(1)
  })
})
