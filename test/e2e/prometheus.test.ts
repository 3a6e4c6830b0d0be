/**
 * End-to-end with a real Prometheus (Debian's prometheus 2.42 and prometheus-node-exporter,
 * installed by test/lib/debian-package.ts when they can be, else skipped; .ci/run requires them):
 *  - a writer Prometheus scrapes a node_exporter and itself every second and remote-writes to
 *    the adapter for a minute;
 *  - a reader Prometheus with no scrape targets at all has only remote_read (read_recent) against
 *    the adapter, so every value PromQL returns from it came through remote read;
 *  - the values PromQL gives for a series equal the rows /rest/sql shows for that series' table.
 * Uses startIngestServer, so test/integration re-runs it on PostgreSQL unchanged.
 */
import { spawnSync } from 'node:child_process'
import { PeerProcesses } from '../lib/peer-processes.js'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningAdapter } from '../../src/lifecycle.js'
import { seriesKey, seriesTableName, sortLabels } from '../../src/ingest/metricsproto/series.js'
import { sqlRows, startIngestServer } from '../ingest/server.js'
import { needDebianPackages, program } from '../lib/debian-package.js'
import { freePort } from '../lib/free-port.js'

const WRITE_SECONDS = Number(process.env.PROM_E2E_SECONDS ?? 65)
const DB = 'promdb'

const need = needDebianPackages('real Prometheus end-to-end', [
  { pkg: 'prometheus', present: () => program('prometheus')() && program('promtool')() },
  { pkg: 'prometheus-node-exporter', present: program('prometheus-node-exporter') },
])
const dir = mkdtempSync(join(tmpdir(), 'prom-e2e-'))
const peers = new PeerProcesses()
let adapter: RunningAdapter
let writerUrl = ''
let readerUrl = ''
let nodeTarget = ''
let promTarget = ''

const launch = (name: string, cmd: string, args: string[]): void => {
  peers.launch(name, cmd, args)
}

async function waitHttp(url: string, what: string): Promise<void> {
  const until = Date.now() + 30_000
  for (;;) {
    try {
      if ((await fetch(url)).ok) {
        return
      }
    } catch {
      // not up yet
    }
    if (Date.now() > until) {
      throw new Error(`${what} did not answer ${url}:\n${peers.logs(2000)}`)
    }
    await new Promise((r) => setTimeout(r, 200))
  }
}

function prometheusConfig(file: string, body: string): void {
  writeFileSync(file, body)
  const check = spawnSync('promtool', ['check', 'config', file], { encoding: 'utf8' })
  if (check.status !== 0) {
    throw new Error(`promtool rejected ${file}: ${check.stdout}${check.stderr}`)
  }
}

beforeAll(async () => {
  if (need.skip) {
    return
  }
  adapter = await startIngestServer((c) => {
    c.smlAutoCreateDB = true
  })
  const auth = `basic_auth: {username: root, password: taosdata}`
  const [nodePort, writerPort, readerPort] = [await freePort(), await freePort(), await freePort()]
  nodeTarget = `127.0.0.1:${nodePort}`
  promTarget = `127.0.0.1:${writerPort}`
  launch('node_exporter', 'prometheus-node-exporter', [`--web.listen-address=${nodeTarget}`, '--no-collector.systemd'])
  prometheusConfig(
    join(dir, 'writer.yml'),
    `global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
  - job_name: prometheus
    static_configs: [{targets: ['${promTarget}']}]
  - job_name: node
    static_configs: [{targets: ['${nodeTarget}']}]
remote_write:
  - url: ${adapter.url}/metricsproto/v1/remote_write/${DB}
    ${auth}
    queue_config: {batch_send_deadline: 1s, max_samples_per_send: 2000, min_backoff: 100ms, max_backoff: 2s}
    metadata_config: {send: true, send_interval: 10s}
`,
  )
  prometheusConfig(
    join(dir, 'reader.yml'),
    `global: {scrape_interval: 1m}
remote_read:
  - url: ${adapter.url}/metricsproto/v1/remote_read/${DB}
    ${auth}
    read_recent: true
`,
  )
  writerUrl = `http://${promTarget}`
  readerUrl = `http://127.0.0.1:${readerPort}`
  launch('prometheus (writer)', 'prometheus', [`--config.file=${join(dir, 'writer.yml')}`, `--storage.tsdb.path=${join(dir, 'writer-data')}`, `--web.listen-address=${promTarget}`])
  launch('prometheus (reader)', 'prometheus', [`--config.file=${join(dir, 'reader.yml')}`, `--storage.tsdb.path=${join(dir, 'reader-data')}`, `--web.listen-address=127.0.0.1:${readerPort}`])
  await waitHttp(`http://${nodeTarget}/metrics`, 'node_exporter')
  await waitHttp(`${writerUrl}/-/ready`, 'prometheus (writer)')
  await waitHttp(`${readerUrl}/-/ready`, 'prometheus (reader)')
}, 60_000)

afterAll(async () => {
  await peers.stop()
  await adapter?.stop()
  rmSync(dir, { recursive: true, force: true })
}, 30_000)

interface PromVector {
  status: string
  data: { result: { metric: Record<string, string>; value?: [number, string]; values?: [number, string][] }[] }
}

async function promql(base: string, path: string, params: Record<string, string>): Promise<PromVector> {
  const res = await fetch(`${base}${path}?${new URLSearchParams(params)}`)
  const body = (await res.json()) as PromVector
  expect(res.status, JSON.stringify(body)).toBe(200)
  return body
}

describe.skipIf(need.skip)('Prometheus remote write -> adapter -> remote read', () => {
  it(`a minute of scraped samples reads back through PromQL with the values /rest/sql shows`, async () => {
    await new Promise((r) => setTimeout(r, WRITE_SECONDS * 1000))

    // node_exporter and Prometheus' own series arrived: many series, samples over the minute
    const [[samples]] = (await sqlRows(adapter.url, `select count(*) from ${DB}.metrics`)) as [[number]]
    const tables = (await sqlRows(adapter.url, `show ${DB}.tables`)).length
    expect(tables).toBeGreaterThan(300)
    // scraped every second: well over a sample per series per 3 s (remote write lags a little)
    expect(samples).toBeGreaterThan((tables * WRITE_SECONDS) / 3)

    // one series whose value changes every scrape, from each job
    for (const labels of [
      { __name__: 'process_resident_memory_bytes', instance: promTarget, job: 'prometheus' },
      { __name__: 'node_scrape_collector_duration_seconds', collector: 'cpu', instance: nodeTarget, job: 'node' },
    ]) {
      const table = seriesTableName(seriesKey(sortLabels(Object.entries(labels).map(([name, value]) => ({ name, value })))))
      const rows = (await sqlRows(adapter.url, `select ts, v from ${DB}.${table} order by ts`)) as [string, number][]
      expect(rows.length, `${table} (${JSON.stringify(labels)})`).toBeGreaterThan(WRITE_SECONDS / 3)
      const selector = `${labels.__name__}{${Object.entries(labels).filter(([k]) => k !== '__name__').map(([k, v]) => `${k}="${v}"`).join(',')}}`
      // the reader has no data of its own: query_range over the stored timestamps
      const first = Date.parse(rows[0][0]) / 1000
      const last = Date.parse(rows[rows.length - 1][0]) / 1000
      const range = await promql(readerUrl, '/api/v1/query_range', { query: selector, start: String(first), end: String(last), step: '1s' })
      expect(range.data.result, `reader returned ${JSON.stringify(range).slice(0, 500)}`).toHaveLength(1)
      expect(range.data.result[0].metric).toEqual(labels)
      // at a sample's own timestamp PromQL returns that sample: compare every stored row
      const byTime = new Map(range.data.result[0].values!.map(([t, v]) => [Math.round(t * 1000), Number(v)]))
      let compared = 0
      for (const [ts, v] of rows) {
        const ms = Date.parse(ts)
        if (ms % 1000 === 0 && byTime.has(ms)) {
          expect(byTime.get(ms), `${selector} at ${ts}`).toBe(v)
          compared++
        }
      }
      // instant queries at stored timestamps (not on the 1 s step grid) see the same values
      for (const [ts, v] of rows.slice(-5)) {
        const at = await promql(readerUrl, '/api/v1/query', { query: selector, time: String(Date.parse(ts) / 1000) })
        expect(Number(at.data.result[0]?.value?.[1]), `${selector} at ${ts}`).toBe(v)
        compared++
      }
      expect(compared).toBeGreaterThanOrEqual(5)
      // the writer's own TSDB agrees with what the reader got from the adapter
      const mine = await promql(writerUrl, '/api/v1/query', { query: selector, time: String(Date.parse(rows[rows.length - 1][0]) / 1000) })
      expect(Number(mine.data.result[0]?.value?.[1])).toBe(rows[rows.length - 1][1])
    }

    // Prometheus really used the endpoints: remote write and read requests answered 2xx
    const metrics = await (await fetch(`${adapter.url}/metrics`)).text()
    expect(metrics).toMatch(/route="\/metricsproto\/v1\/remote_write\/:db",status="204"/)
    expect(metrics).toMatch(/route="\/metricsproto\/v1\/remote_read\/:db",status="200"/)
  }, (WRITE_SECONDS + 60) * 1000)
})
