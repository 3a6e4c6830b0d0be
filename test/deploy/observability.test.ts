/**
 * The chart's alerts (templates/prometheusrule.yaml, rendered) and Grafana dashboard
 * (dashboards/db-adapter.json) against a real adapter process: after some traffic (line protocol
 * writes, one rejected row, SQL, StatsD over UDP), every metric their queries name is on its
 * /metrics, so a rename in the adapter fails here instead of leaving a silent panel or an alert
 * that can never fire. Also db_adapter_build_info's labels.
 */
import { createSocket } from 'node:dgram'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { packageVersion } from '../../src/config/index.js'
import { startAdapterProcess } from '../lib/adapter-process.js'
import type { AdapterProcess } from '../lib/adapter-process.js'
import { freePort } from '../lib/free-port.js'
import { CHART, one, render, renderNeed, useRenderer } from './chart-lib.js'

useRenderer()

/** Series Prometheus makes itself, not the adapter: `up` of the scrape-absence alert. */
const FROM_PROMETHEUS = new Set(['up'])
/** metric names in PromQL text: ours and the process ones, plus Prometheus' own `up` */
const metricNames = (expr: string): string[] => [...expr.matchAll(/\b(db_adapter_[a-z0-9_]+|process_[a-z0-9_]+|nodejs_[a-z0-9_]+|up)\b(?=\s*[{[)])/g)].map((m) => m[1])

/** the dashboard's queries: panel targets and template variables */
function dashboardQueries(): string[] {
  const json = JSON.parse(readFileSync(join(CHART, 'dashboards/db-adapter.json'), 'utf8')) as {
    panels: Array<{ targets?: Array<{ expr: string }> }>
    templating: { list: Array<{ query?: string | { query: string } }> }
  }
  const panels = json.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr))
  const vars = json.templating.list.map((v) => (typeof v.query === 'object' ? v.query.query : '')).filter((q) => q.includes('('))
  return [...panels, ...vars]
}

const auth = { Authorization: `Basic ${Buffer.from('root:taosdata').toString('base64')}` }

describe.skipIf(renderNeed.skip)('alerts and dashboard against a running adapter', () => {
  let adapter: AdapterProcess
  let metrics = ''
  const data = mkdtempSync(join(tmpdir(), 'observability-'))

  beforeAll(async () => {
    const statsd = await freePort()
    adapter = await startAdapterProcess(`duckdb:${join(data, 'db.duckdb')}`, {
      env: { DB_ADAPTER_STATSAGENT_ENABLE: 'true', DB_ADAPTER_STATSAGENT_PORT: String(statsd), DB_ADAPTER_STATSAGENT_GATHER_INTERVAL: '100ms' },
    })
    const post = (path: string, body: string) => fetch(`${adapter.base}${path}`, { method: 'POST', headers: auth, body })
    expect((await post('/rest/sql', 'CREATE DATABASE obs')).status).toBe(200)
    expect((await post('/lineproto/v1/write?db=obs', 'cpu,host=a usage=1 1700000000000000000\ncpu,host=a usage=2 1700000001000000000')).status).toBe(204)
    // one rejected row (a type conflict with the column written above)
    await post('/lineproto/v1/write?db=obs', 'cpu,host=a usage="text" 1700000002000000000')
    expect((await post('/rest/sql', 'SELECT count(*) FROM obs.cpu')).status).toBe(200)
    const sock = createSocket('udp4')
    await new Promise<void>((resolve, reject) => sock.send('obs_hits:1|c', statsd, '127.0.0.1', (err) => (err ? reject(err) : resolve())))
    sock.close()
    // the StatsD point is written at the next gather (100 ms); wait for its counter
    const deadline = Date.now() + 20_000
    while (Date.now() < deadline) {
      metrics = await (await fetch(`${adapter.base}/metrics`)).text()
      if (/^db_adapter_receiver_points_total\{receiver="statsagent",result="written"\} [1-9]/m.test(metrics)) {
        break
      }
      await new Promise((r) => setTimeout(r, 100))
    }
  }, 90_000)

  afterAll(async () => {
    await adapter?.stop()
    rmSync(data, { recursive: true, force: true })
  })

  /** names with at least one sample (histograms by their _bucket/_sum/_count series) */
  const sampled = (): Set<string> => new Set(metrics.split('\n').filter((l) => l && !l.startsWith('#')).map((l) => l.split(/[{ ]/)[0]))
  /** families declared with # TYPE */
  const declared = (): Set<string> => new Set([...metrics.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]))

  /** Counters that only count trouble have no sample until it happens (none in this run): for
   * them a declared family is enough. */
  const ONLY_ON_TROUBLE = new Set(['db_adapter_work_memory_refused_total', 'db_adapter_receiver_connections_total'])

  const checkAll = (what: string, exprs: string[]): void => {
    const names = [...new Set(exprs.flatMap(metricNames))]
    expect(names.length, `${what}: metric names found`).toBeGreaterThan(3)
    const samples = sampled()
    const families = declared()
    for (const name of names) {
      if (FROM_PROMETHEUS.has(name)) {
        continue
      }
      const family = name.replace(/_(bucket|sum|count)$/, '')
      if (ONLY_ON_TROUBLE.has(name)) {
        expect(families.has(name), `${what}: ${name} declared on /metrics`).toBe(true)
      } else {
        expect(samples.has(name), `${what}: ${name} on /metrics`).toBe(true)
        expect(families.has(family), `${what}: ${family} declared`).toBe(true)
      }
    }
  }

  it('every metric the PrometheusRule alerts query is on /metrics', () => {
    const rule = one(render(join(CHART, 'ci/embedded-values.yaml')), 'PrometheusRule')
    const exprs = rule.spec.groups.flatMap((g: { rules: Array<{ expr: string }> }) => g.rules.map((r) => r.expr))
    expect(exprs.flatMap(metricNames)).toContain('db_adapter_storage_up')
    checkAll('PrometheusRule', exprs)
  })

  it('every metric the Grafana dashboard queries is on /metrics', () => {
    const exprs = dashboardQueries()
    expect(exprs.length).toBeGreaterThan(15)
    checkAll('dashboard', exprs)
  })

  it('the traffic shows: rows written and rejected, the StatsD point, the storage up, build info', () => {
    expect(metrics).toMatch(/^db_adapter_rows_total\{protocol="lineproto",result="written"\} 2$/m)
    expect(metrics).toMatch(/^db_adapter_rows_total\{protocol="lineproto",result="rejected"\} 1$/m)
    expect(metrics).toMatch(/^db_adapter_receiver_points_total\{receiver="statsagent",result="written"\} [1-9]/m)
    expect(metrics).toMatch(/^db_adapter_storage_up 1$/m)
    const info = /^db_adapter_build_info\{(.*)\} 1$/m.exec(metrics)
    expect(info?.[1]).toBe(`version="${packageVersion()}",node="${process.versions.node}",storage="duckdb"`)
  })
})
