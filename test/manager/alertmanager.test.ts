/**
 * End-to-end with the real Debian `prometheus` and `prometheus-alertmanager`: Prometheus scrapes
 * a tiny exporter of this test whose value the test flips, evaluates a rule on it and sends the
 * alert to Alertmanager, whose webhook receiver is the management server's /api/v1/alerts (Basic
 * auth, send_resolved). The alert fires -> the event appears in the list -> the value drops ->
 * the event is resolved by Alertmanager.
 */
import { spawnSync } from 'node:child_process'
import { PeerProcesses } from '../lib/peer-processes.js'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { needDebianPackages, program } from '../lib/debian-package.js'
import { freePort } from '../lib/free-port.js'
import { call, startManaged } from './server.js'

const need = needDebianPackages('real Alertmanager webhook end-to-end', [
  { pkg: 'prometheus', present: () => program('prometheus')() && program('promtool')() },
  { pkg: 'prometheus-alertmanager', present: () => program('prometheus-alertmanager')() && program('amtool')() },
])

const dir = mkdtempSync(join(tmpdir(), 'alertmanager-e2e-'))
const peers = new PeerProcesses()
let adapter: Awaited<ReturnType<typeof startManaged>>
let exporter: Server
let exporterTarget = ''
/** what the exporter reports: the rule fires while it is above 0 */
let flag = 1

const launch = (name: string, cmd: string, args: string[]): void => {
  peers.launch(name, cmd, args)
}

const logs = (): string => peers.logs()

async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const got = await fn().catch(() => undefined)
    if (got !== undefined) {
      return got
    }
    if (Date.now() > end) {
      throw new Error(`${what}: not within ${ms} ms\n${logs()}`)
    }
    await new Promise((r) => setTimeout(r, 250))
  }
}

function checked(tool: string, args: string[], file: string, body: string): void {
  writeFileSync(file, body)
  const r = spawnSync(tool, [...args, file], { encoding: 'utf8' })
  if (r.status !== 0) {
    throw new Error(`${tool} rejected ${file}: ${r.stdout}${r.stderr}`)
  }
}

beforeAll(async () => {
  if (need.skip) {
    return
  }
  adapter = await startManaged()
  exporter = createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4' })
    res.end(`# TYPE e2e_trouble gauge\ne2e_trouble ${flag}\n`)
  })
  await new Promise<void>((resolve) => exporter.listen(0, '127.0.0.1', resolve))
  exporterTarget = `127.0.0.1:${(exporter.address() as AddressInfo).port}`
  const [promPort, amPort] = [await freePort(), await freePort()]
  const manager = new URL(adapter.manager.url)
  checked('amtool', ['check-config'], join(dir, 'alertmanager.yml'), `route:
  receiver: db-adapter
  group_by: [alertname, instance]
  group_wait: 1s
  group_interval: 1s
  repeat_interval: 1h
receivers:
  - name: db-adapter
    webhook_configs:
      - url: http://${manager.host}/api/v1/alerts
        send_resolved: true
        http_config:
          basic_auth: {username: root, password: taosdata}
`)
  checked('promtool', ['check', 'rules'], join(dir, 'rules.yml'), `groups:
  - name: e2e
    interval: 1s
    rules:
      - alert: E2ETrouble
        expr: e2e_trouble > 0
        labels: {severity: critical}
        annotations:
          summary: 'trouble on {{ $labels.instance }}'
          description: 'e2e_trouble is {{ $value }}'
`)
  checked('promtool', ['check', 'config'], join(dir, 'prometheus.yml'), `global: {scrape_interval: 1s, evaluation_interval: 1s}
rule_files: [${join(dir, 'rules.yml')}]
alerting:
  alertmanagers:
    - static_configs: [{targets: ['127.0.0.1:${amPort}']}]
scrape_configs:
  - job_name: e2e
    static_configs: [{targets: ['${exporterTarget}']}]
`)
  launch('alertmanager', 'prometheus-alertmanager', [
    `--config.file=${join(dir, 'alertmanager.yml')}`, `--storage.path=${join(dir, 'am-data')}`,
    `--web.listen-address=127.0.0.1:${amPort}`, '--cluster.listen-address=',
  ])
  launch('prometheus', 'prometheus', [
    `--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'prom-data')}`,
    `--web.listen-address=127.0.0.1:${promPort}`, '--rules.alert.resend-delay=1s',
  ])
}, 60_000)

afterAll(async () => {
  await peers.stop()
  await new Promise((r) => (exporter ? exporter.close(r) : r(undefined)))
  await adapter?.stop()
})

describe.skipIf(need.skip)('Alertmanager -> events API', () => {
  it('a firing rule reaches the events list and resolves when the rule stops firing', async () => {
    const base = adapter.manager.url
    const event = await until('the firing alert as an event', async () => {
      const r = await call(base, 'GET', `/api/v1/events?elementId=${encodeURIComponent(exporterTarget)}`)
      return r.body.total === 1 ? r.body.items[0] : undefined
    })
    expect(event).toMatchObject({
      status: 'active', severity: 'critical', source: 'alertmanager', title: 'E2ETrouble', elementId: exporterTarget,
      message: `trouble on ${exporterTarget}\ne2e_trouble is 1`,
    })
    expect(event.labels).toMatchObject({ alertname: 'E2ETrouble', job: 'e2e', instance: exporterTarget, severity: 'critical' })

    flag = 0
    const resolved = await until('the resolved alert resolving the event', async () => {
      const r = await call(base, 'GET', `/api/v1/events/${event.id}`)
      return r.body.status === 'resolved' ? r.body : undefined
    })
    expect(resolved).toMatchObject({ resolvedBy: 'alertmanager', id: event.id })
    // still one event for the alert: Alertmanager's repeats counted, not duplicated
    expect((await call(base, 'GET', `/api/v1/events?elementId=${encodeURIComponent(exporterTarget)}`)).body.total).toBe(1)
    const metrics = await (await fetch(`${adapter.url}/metrics`)).text()
    expect(metrics).toMatch(/^db_adapter_events_resolved_total\{source="alertmanager"\} 1$/m)
  }, 150_000)
})
