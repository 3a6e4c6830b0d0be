/**
 * End-to-end with a real node_exporter (Debian's prometheus-node-exporter 1.5, installed by
 * test/lib/debian-package.ts when it can be, else skipped; .ci/run requires it), twice: over
 * plain HTTP and over HTTPS (its --web.config.file with a certificate made by openssl, verified
 * through hostexporter.caCertFile). The adapter scrapes both; every metric family node_exporter
 * exposes must be a super table of hostexporter.db with the field its type gives, the label sets
 * must match, and values that do not change (memory size, build info) must be node_exporter's.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningAdapter } from '../../src/lifecycle.js'
import { makeCerts, type TestCerts } from '../ingest/exporters.js'
import { sqlRows, startIngestServer } from '../ingest/server.js'
import { needDebianPackages, program } from '../lib/debian-package.js'
import { freePort } from '../lib/free-port.js'

const need = needDebianPackages('real node_exporter end-to-end', [
  { pkg: 'prometheus-node-exporter', present: program('prometheus-node-exporter') },
  { pkg: 'openssl', present: program('openssl') },
])
const procs: Array<{ child: ChildProcess; log: string[] }> = []
let certs: TestCerts | undefined
let adapter: RunningAdapter
let plainUrl = ''
let tlsUrl = ''

function launch(args: string[]): void {
  const child = spawn('prometheus-node-exporter', args, { stdio: ['ignore', 'pipe', 'pipe'] })
  const log: string[] = []
  child.stdout?.on('data', (d: Buffer) => log.push(d.toString()))
  child.stderr?.on('data', (d: Buffer) => log.push(d.toString()))
  procs.push({ child, log })
}

// collectors that read only /proc and /sys: quick, and the same on any Linux
const COLLECTORS = ['--collector.disable-defaults', '--collector.cpu', '--collector.meminfo', '--collector.loadavg', '--collector.uname', '--collector.stat']

/** node_exporter's own answer, read directly (Node's fetch, TLS checks off for the HTTPS one). */
async function direct(): Promise<string> {
  return (await fetch(`${plainUrl}/metrics`)).text()
}

async function scrapesOk(url: string): Promise<number> {
  const text = await (await fetch(`${adapter.url}/metrics`)).text()
  const line = text.split('\n').find((l) => l.startsWith(`db_adapter_hostexporter_scrapes_total{url="${url}",result="ok"}`))
  return line === undefined ? 0 : Number(line.split(' ').pop())
}

beforeAll(async () => {
  if (need.skip) {
    return
  }
  certs = makeCerts()
  const webConfig = join(certs.dir, 'web.yml')
  writeFileSync(webConfig, `tls_server_config:\n  cert_file: ${certs.serverCert}\n  key_file: ${certs.serverKey}\n`)
  const [plainPort, tlsPort] = [await freePort(), await freePort()]
  launch([`--web.listen-address=127.0.0.1:${plainPort}`, ...COLLECTORS])
  launch([`--web.listen-address=127.0.0.1:${tlsPort}`, `--web.config.file=${webConfig}`, ...COLLECTORS])
  plainUrl = `http://127.0.0.1:${plainPort}`
  tlsUrl = `https://localhost:${tlsPort}`
  const until = Date.now() + 20_000
  while ((await fetch(`${plainUrl}/metrics`).then((r) => r.ok).catch(() => false)) === false) {
    if (Date.now() > until) {
      throw new Error(`node_exporter did not start: ${procs.map((p) => p.log.join('')).join('\n')}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  adapter = await startIngestServer((c) => {
    c.hostexporter.enable = true
    c.hostexporter.urls = [plainUrl, tlsUrl]
    c.hostexporter.gatherDuration = 500
    c.hostexporter.insecureSkipVerify = false
    c.hostexporter.caCertFile = certs?.serverCert ?? ''
  })
  // two good scrapes of each (the first HTTPS one proves the CA file works)
  const deadline = Date.now() + 20_000
  while (Math.min(await scrapesOk(plainUrl), await scrapesOk(tlsUrl)) < 2) {
    if (Date.now() > deadline) {
      throw new Error(`no two good scrapes of each URL within 20 s: ${await (await fetch(`${adapter.url}/metrics`)).text()}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
}, 60_000)

afterAll(async () => {
  await adapter?.stop()
  for (const p of procs) {
    if (p.child.exitCode === null) {
      const exited = new Promise((r) => p.child.once('exit', r))
      p.child.kill('SIGTERM')
      await exited
    }
  }
  if (certs !== undefined) {
    rmSync(certs.dir, { recursive: true, force: true })
  }
})

/** What of node_exporter's families is not (yet) in hostexporter.db as its type says; [] when all is. */
async function missingFamilies(text: string): Promise<string[]> {
  const types = [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1], m[2]] as const)
  const samples = text.replace(/^#.*$/gm, '')
  const stables = new Set((await sqlRows(adapter.url, "select stable_name from information_schema.ins_stables where db_name = 'hostexporter'")).map((r) => r[0]))
  const missing: string[] = []
  for (const [name, type] of types) {
    // a family without samples (none of its kind on this host) makes no table
    if (!new RegExp(`^${name}[ {_]`, 'm').test(samples)) {
      continue
    }
    if (!stables.has(name)) {
      missing.push(`${type} ${name}: no table`)
      continue
    }
    const columns = (await sqlRows(adapter.url, `describe hostexporter.\`${name}\``)).map((r) => r[0])
    const expected = { counter: ['counter'], gauge: ['gauge'], untyped: ['value'], summary: ['count', 'sum'], histogram: ['count', 'sum', '+Inf'] }[type] ?? [`(type ${type})`]
    for (const col of [...expected, 'url']) {
      if (!columns.includes(col)) {
        missing.push(`${type} ${name}: no column ${col} in ${columns.join(',')}`)
      }
    }
    const urls = (await sqlRows(adapter.url, `select distinct url from hostexporter.\`${name}\``)).map((r) => r[0])
    for (const url of [plainUrl, tlsUrl]) {
      if (!urls.includes(url)) {
        missing.push(`${type} ${name}: nothing from ${url}`)
      }
    }
  }
  return missing
}

describe.skipIf(need.skip)('real node_exporter -> hostexporter scraper', () => {
  it('stores every family node_exporter exposes, from both URLs, with the field its type gives', async () => {
    const text = await direct()
    expect([...text.matchAll(/^# TYPE /gm)].length, text.slice(0, 2000)).toBeGreaterThan(20)
    // the scraper's writes lag its scrapes by the writer's linger
    await expect.poll(() => missingFamilies(text), { timeout: 20_000, interval: 200 }).toEqual([])
    // the summary's quantiles, named as the original names them
    const gc = (await sqlRows(adapter.url, 'describe hostexporter.go_gc_duration_seconds')).map((r) => r[0])
    expect(gc).toEqual(['_ts', '0', '0.25', '0.5', '0.75', '1', 'sum', 'count', 'url'])
  })

  it('has every label set node_exporter has, for both URLs, and its values', async () => {
    const text = await direct()
    const cpuSeries = [...text.matchAll(/^node_cpu_seconds_total\{cpu="(\d+)",mode="(\w+)"\}/gm)].map((m) => `${m[1]}/${m[2]}`).sort()
    expect(cpuSeries.length).toBeGreaterThan(0)
    for (const url of [plainUrl, tlsUrl]) {
      // two scrapes' rows of every series
      await expect
        .poll(async () => (await sqlRows(adapter.url, `select count(*) from hostexporter.node_cpu_seconds_total where url = '${url}' and cpu = '0' and mode = 'idle'`))[0][0], { timeout: 20_000, interval: 200 })
        .toBeGreaterThanOrEqual(2)
      const stored = (await sqlRows(adapter.url, `select distinct cpu, mode from hostexporter.node_cpu_seconds_total where url = '${url}'`)).map((r) => `${String(r[0])}/${String(r[1])}`).sort()
      expect(stored, url).toEqual(cpuSeries)
      // values that do not change while the test runs
      const memTotal = Number(/^node_memory_MemTotal_bytes (\S+)$/m.exec(text)?.[1])
      expect(await sqlRows(adapter.url, `select last(gauge) from hostexporter.\`node_memory_MemTotal_bytes\` where url = '${url}'`)).toEqual([[memTotal]])
      const build = /^node_exporter_build_info\{(.*)\} 1$/m.exec(text)?.[1] ?? ''
      const version = /(?:^|,)version="([^"]*)"/.exec(build)?.[1]
      expect(await sqlRows(adapter.url, `select last(gauge), version from hostexporter.node_exporter_build_info where url = '${url}' group by version`)).toEqual([[1, version]])
      // counters only grow between scrapes
      const idle = await sqlRows(adapter.url, `select counter from hostexporter.node_cpu_seconds_total where url = '${url}' and cpu = '0' and mode = 'idle' order by _ts`)
      expect(Number(idle.at(-1)?.[0])).toBeGreaterThanOrEqual(Number(idle[0][0]))
    }
  })
})
