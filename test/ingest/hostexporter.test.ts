/**
 * The node_exporter scraper (hostexporter) in a real adapter, against test exporters over HTTP,
 * HTTPS (a certificate made by openssl) and a unix socket: what is stored and how it is named,
 * auth, TLS verification and client certificates, a failing URL beside working ones, bounded
 * answers, no pile-up behind a slow exporter, and the memory gate's all-paused skip and resume.
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { pino } from 'pino'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import type { AppConfig } from '../../src/config/types.js'
import type { RunningAdapter } from '../../src/lifecycle.js'
import { startAdapter } from '../../src/lifecycle.js'
import { testAdapterConfig } from '../lib/adapter-config.js'
import { needDebianPackages, program } from '../lib/debian-package.js'
import { freePort } from '../lib/free-port.js'
import { makeCerts, read, startExporter, type Exporter, type TestCerts } from './exporters.js'
import { sqlRows, startIngestServer } from './server.js'

const need = needDebianPackages('hostexporter TLS tests (certificates)', [{ pkg: 'openssl', present: program('openssl') }])
const certs: TestCerts | undefined = need.skip ? undefined : makeCerts()
afterAll(() => {
  if (certs !== undefined) {
    rmSync(certs.dir, { recursive: true, force: true })
  }
})

const TEXT = `# HELP node_cpu_seconds_total Seconds the CPUs spent in each mode.
# TYPE node_cpu_seconds_total counter
node_cpu_seconds_total{cpu="0",mode="idle"} 1234.5
node_cpu_seconds_total{cpu="0",mode="user"} 42
# TYPE node_load1 gauge
node_load1 0.75
# TYPE go_gc_duration_seconds summary
go_gc_duration_seconds{quantile="0"} 1e-05
go_gc_duration_seconds{quantile="0.5"} 3e-05
go_gc_duration_seconds{quantile="1"} 0.002
go_gc_duration_seconds_sum 0.25
go_gc_duration_seconds_count 40
# TYPE http_request_duration_seconds histogram
http_request_duration_seconds_bucket{handler="/metrics",le="0.1"} 7
http_request_duration_seconds_bucket{handler="/metrics",le="+Inf"} 9
http_request_duration_seconds_sum{handler="/metrics"} 1.5
http_request_duration_seconds_count{handler="/metrics"} 9
`
const OPENMETRICS = `# TYPE app_requests counter
app_requests_total{path="/x"} 17
# TYPE app_temp gauge
app_temp 21.5
# EOF
`
const OM_TYPE = 'application/openmetrics-text; version=1.0.0; charset=utf-8'

let adapter: RunningAdapter | undefined
const exporters: Exporter[] = []
afterEach(async () => {
  await adapter?.stop()
  adapter = undefined
  await Promise.all(exporters.splice(0).map((e) => e.close()))
})

async function exporter(...args: Parameters<typeof startExporter>): Promise<Exporter> {
  const e = await startExporter(...args)
  exporters.push(e)
  return e
}

async function start(urls: string[], tune: (c: AppConfig) => void = () => {}): Promise<string> {
  adapter = await startIngestServer((c) => {
    c.hostexporter.enable = true
    c.hostexporter.urls = urls
    c.hostexporter.gatherDuration = 200
    c.hostexporter.responseTimeout = 2000
    tune(c)
  })
  return adapter.url
}

/** db_adapter_hostexporter_scrapes_total for one URL and result */
async function scrapes(base: string, url: string, result: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text()
  const line = text.split('\n').find((l) => l.startsWith(`db_adapter_hostexporter_scrapes_total{url="${url}",result="${result}"}`))
  return line === undefined ? 0 : Number(line.split(' ').pop())
}

async function rows(base: string, statement: string): Promise<unknown[][]> {
  try {
    return await sqlRows(base, statement)
  } catch {
    return []
  }
}

const poll = { timeout: 10_000, interval: 50 }

describe('hostexporter scraper', () => {
  it('stores counters, gauges, summaries and histograms of an HTTP exporter as the original names them', async () => {
    const ex = await exporter({ body: TEXT })
    const base = await start([ex.url])
    // one scrape is one write: once a row of the last family is there, all are
    await expect.poll(async () => (await rows(base, 'select count(*) from hostexporter.http_request_duration_seconds'))[0]?.[0], poll).toBeGreaterThanOrEqual(1)
    expect(await sqlRows(base, 'select last(counter), cpu, mode, url from hostexporter.node_cpu_seconds_total group by cpu, mode, url order by mode')).toEqual([
      [1234.5, '0', 'idle', ex.url],
      [42, '0', 'user', ex.url],
    ])
    expect(await sqlRows(base, 'select last(gauge) from hostexporter.node_load1')).toEqual([[0.75]])
    expect(await sqlRows(base, 'select last(`0`), last(`0.5`), last(`1`), last(`sum`), last(`count`) from hostexporter.go_gc_duration_seconds')).toEqual([[1e-5, 3e-5, 0.002, 0.25, 40]])
    expect(await sqlRows(base, 'select last(`0.1`), last(`+Inf`), last(`sum`), last(`count`), handler from hostexporter.http_request_duration_seconds group by handler')).toEqual([[7, 9, 1.5, 9, '/metrics']])
    // DOUBLE columns, NCHAR tags
    const cols = (await sqlRows(base, 'describe hostexporter.go_gc_duration_seconds')).map((r) => `${String(r[0])} ${String(r[1])} ${String(r[3])}`)
    expect(cols).toEqual(['_ts TIMESTAMP ', '0 DOUBLE ', '0.5 DOUBLE ', '1 DOUBLE ', 'sum DOUBLE ', 'count DOUBLE ', 'url NCHAR TAG'])
    // it keeps scraping: every gatherDuration a new row per series
    await expect.poll(async () => (await sqlRows(base, 'select count(*) from hostexporter.node_load1'))[0][0], poll).toBeGreaterThanOrEqual(3)
    expect(await scrapes(base, ex.url, 'ok')).toBeGreaterThanOrEqual(3)
  })

  it('scrapes a unix socket, and one URL failing stops none of the others', async () => {
    const sock = join(certs?.dir ?? '/tmp', `exporter-${process.pid}.sock`)
    const unix = await exporter({ body: OPENMETRICS, contentType: OM_TYPE, socketPath: sock })
    const http = await exporter({ body: TEXT })
    const dead = `http://127.0.0.1:${await freePort()}`
    const notFound = `${http.url}/nothing-here`
    const base = await start([dead, `${unix.url}?path=/metrics`, notFound, http.url])
    await expect.poll(() => rows(base, 'select last(counter), path, url from hostexporter.app_requests_total group by path, url'), poll).toEqual([[17, '/x', `${unix.url}?path=/metrics`]])
    await expect.poll(() => rows(base, 'select last(gauge) from hostexporter.node_load1'), poll).toEqual([[0.75]])
    await expect.poll(() => scrapes(base, dead, 'failed'), poll).toBeGreaterThanOrEqual(2)
    expect(await scrapes(base, notFound, 'failed')).toBeGreaterThanOrEqual(1)
    expect(await scrapes(base, http.url, 'ok')).toBeGreaterThanOrEqual(2)
    expect(await scrapes(base, http.url, 'failed')).toBe(0)
  })

  it.skipIf(need.skip)('verifies an HTTPS exporter against caCertFile; without it only insecureSkipVerify gets through', async () => {
    const c = certs as TestCerts
    const ex = await exporter({ body: OPENMETRICS, contentType: OM_TYPE, tls: { cert: read(c.serverCert), key: read(c.serverKey) } })
    const base = await start([ex.url], (cfg) => {
      cfg.hostexporter.insecureSkipVerify = false
      cfg.hostexporter.caCertFile = c.serverCert
    })
    await expect.poll(() => rows(base, 'select last(gauge) from hostexporter.app_temp'), poll).toEqual([[21.5]])
    await adapter?.stop()

    const refused = await start([ex.url], (cfg) => {
      cfg.hostexporter.insecureSkipVerify = false
    })
    await expect.poll(() => scrapes(refused, ex.url, 'failed'), poll).toBeGreaterThanOrEqual(1)
    expect(await scrapes(refused, ex.url, 'ok')).toBe(0)
    await adapter?.stop()

    const skipping = await start([ex.url], (cfg) => {
      cfg.hostexporter.insecureSkipVerify = true
    })
    await expect.poll(() => rows(skipping, 'select last(gauge) from hostexporter.app_temp'), poll).toEqual([[21.5]])
  })

  it.skipIf(need.skip)('presents certFile/keyFile to an exporter that asks for a client certificate', async () => {
    const c = certs as TestCerts
    const ex = await exporter({ body: TEXT, tls: { cert: read(c.serverCert), key: read(c.serverKey), ca: read(c.clientCert), requestCert: true } })
    const base = await start([ex.url], (cfg) => {
      cfg.hostexporter.certFile = c.clientCert
      cfg.hostexporter.keyFile = c.clientKey
    })
    await expect.poll(() => rows(base, 'select last(gauge) from hostexporter.node_load1'), poll).toEqual([[0.75]])
    await adapter?.stop()
    const without = await start([ex.url])
    await expect.poll(() => scrapes(without, ex.url, 'failed'), poll).toBeGreaterThanOrEqual(1)
    expect(await scrapes(without, ex.url, 'ok')).toBe(0)
  })

  it('sends the bearer token, or basic auth; an exporter wanting other credentials is refused and counted', async () => {
    const right = await exporter({ body: TEXT, auth: 'Bearer s3cret' })
    const wrong = await exporter({ body: TEXT, auth: 'Bearer other' })
    const base = await start([right.url, wrong.url], (c) => {
      c.hostexporter.httpBearerTokenString = 's3cret'
    })
    await expect.poll(() => rows(base, 'select last(gauge), url from hostexporter.node_load1 group by url'), poll).toEqual([[0.75, right.url]])
    await expect.poll(() => scrapes(base, wrong.url, 'failed'), poll).toBeGreaterThanOrEqual(1)
    expect(wrong.authSeen[0]).toBe('Bearer s3cret')
    await adapter?.stop()

    const basic = `Basic ${Buffer.from('scraper:pa:ss').toString('base64')}`
    const basicEx = await exporter({ body: TEXT, auth: basic })
    const base2 = await start([basicEx.url, wrong.url], (c) => {
      c.hostexporter.httpUsername = 'scraper'
      c.hostexporter.httpPassword = 'pa:ss'
    })
    await expect.poll(() => rows(base2, 'select last(gauge), url from hostexporter.node_load1 group by url'), poll).toEqual([[0.75, basicEx.url]])
    await expect.poll(() => scrapes(base2, wrong.url, 'failed'), poll).toBeGreaterThanOrEqual(1)
    expect(wrong.authSeen.at(-1)).toBe(basic)
  })

  it('skips ticks while all-paused and scrapes again once the gate reopens', async () => {
    const ex = await exporter({ body: TEXT })
    const base = await start([ex.url])
    await expect.poll(() => scrapes(base, ex.url, 'ok'), poll).toBeGreaterThanOrEqual(1)
    adapter?.gate.set('all-paused')
    // a scrape already under way may finish; after it, none
    await new Promise((r) => setTimeout(r, 300))
    const before = ex.requests
    await expect.poll(() => scrapes(base, ex.url, 'paused'), poll).toBeGreaterThanOrEqual(3)
    expect(ex.requests).toBe(before)
    adapter?.gate.set('normal')
    await expect.poll(() => ex.requests, poll).toBeGreaterThanOrEqual(before + 2)
    const okAfter = await scrapes(base, ex.url, 'ok')
    await expect.poll(() => scrapes(base, ex.url, 'ok'), poll).toBeGreaterThan(okAfter)
  })

  it('does not pile scrapes up behind a slow exporter, and times a hung one out', async () => {
    const slow = await exporter({ body: TEXT, delayMs: 700 })
    const hung = await exporter({ body: TEXT, delayMs: 60_000 })
    const base = await start([slow.url, hung.url], (c) => {
      c.hostexporter.gatherDuration = 100
      c.hostexporter.responseTimeout = 1500
    })
    await expect.poll(() => scrapes(base, hung.url, 'failed'), poll).toBeGreaterThanOrEqual(1)
    await expect.poll(() => scrapes(base, slow.url, 'ok'), poll).toBeGreaterThanOrEqual(2)
    expect(slow.maxConcurrent).toBe(1)
    expect(hung.maxConcurrent).toBe(1)
    expect(await scrapes(base, slow.url, 'busy')).toBeGreaterThanOrEqual(5)
  })

  it('refuses an answer larger than http.maxBodySize (gzip counted inflated) and a cut OpenMetrics answer, writing nothing of them', async () => {
    const big = await exporter({ body: `${'# padding\n'.repeat(300)}big_gauge 1\n` })
    // 3 KB inflated from a few dozen bytes: counted as it inflates
    const bomb = await exporter({ body: `${'# padding\n'.repeat(300)}bomb_gauge 1\n`, gzip: true })
    const small = await exporter({ body: 'small_gauge 5\n', gzip: true })
    const cut = await exporter({ body: OPENMETRICS.replace('# EOF\n', ''), contentType: OM_TYPE })
    const base = await start([big.url, bomb.url, cut.url, small.url], (c) => {
      c.http.maxBodySize = 2048
    })
    await expect.poll(() => rows(base, 'select last(`value`) from hostexporter.small_gauge'), poll).toEqual([[5]])
    await expect.poll(() => scrapes(base, big.url, 'failed'), poll).toBeGreaterThanOrEqual(1)
    await expect.poll(() => scrapes(base, bomb.url, 'failed'), poll).toBeGreaterThanOrEqual(1)
    await expect.poll(() => scrapes(base, cut.url, 'failed'), poll).toBeGreaterThanOrEqual(1)
    const stables = (await sqlRows(base, "select stable_name from information_schema.ins_stables where db_name = 'hostexporter'")).map((r) => r[0])
    expect(stables).toEqual(['small_gauge'])
  })

  it('counts bad lines as rejected points and stores the good ones', async () => {
    const ex = await exporter({ body: 'good_gauge 1\nbad_gauge{a="x} 2\nother 3\n' })
    const base = await start([ex.url])
    await expect.poll(() => rows(base, 'select last(`value`) from hostexporter.other'), poll).toEqual([[3]])
    const text = await (await fetch(`${base}/metrics`)).text()
    expect(text).toMatch(/^db_adapter_receiver_packets_total\{receiver="hostexporter",result="malformed"\} [1-9]/m)
    expect(text).toMatch(/^db_adapter_receiver_points_total\{receiver="hostexporter",result="rejected"\} [1-9]/m)
  })

  it('writes as hostexporter.user under its privileges: dropped without WRITE, written once granted', async () => {
    const ex = await exporter({ body: TEXT })
    const base = await start([ex.url], (c) => {
      c.hostexporter.user = 'scraper'
      c.hostexporter.password = 'Pass_1234'
    })
    await sqlRows(base, "create user scraper pass 'Pass_1234'")
    await sqlRows(base, "create database hostexporter precision 'ns'")
    const dropped = async (): Promise<number> => Number(/^db_adapter_receiver_points_total\{receiver="hostexporter",result="dropped"\} (\S+)$/m.exec(await (await fetch(`${base}/metrics`)).text())?.[1] ?? 0)
    await expect.poll(dropped, poll).toBeGreaterThanOrEqual(12)
    expect(await sqlRows(base, "select count(*) from information_schema.ins_stables where db_name = 'hostexporter'")).toEqual([[0]])
    await sqlRows(base, 'grant write on hostexporter.* to scraper')
    await expect.poll(() => rows(base, 'select last(gauge) from hostexporter.node_load1'), poll).toEqual([[0.75]])
  })

  it('fails to start, naming the flag, on an unusable URL or certificate file', async () => {
    const config = (tune: (c: AppConfig) => void): AppConfig => {
      const c = testAdapterConfig('hostexporter-bad-')
      c.monitor.disable = true
      c.hostexporter.enable = true
      tune(c)
      return c
    }
    const silent = { logger: pino({ level: 'silent' }) }
    await expect(startAdapter(config((c) => (c.hostexporter.urls = ['ftp://x:21'])), silent)).rejects.toThrow('hostexporter.urls: "ftp://x:21" has scheme ftp; use http, https or unix')
    await expect(startAdapter(config((c) => (c.hostexporter.caCertFile = '/nonexistent/ca.pem')), silent)).rejects.toThrow('hostexporter.caCertFile /nonexistent/ca.pem: cannot read it (ENOENT)')
    await expect(startAdapter(config((c) => (c.hostexporter.certFile = '/x.crt')), silent)).rejects.toThrow('hostexporter.certFile and hostexporter.keyFile go together')
  })
})
