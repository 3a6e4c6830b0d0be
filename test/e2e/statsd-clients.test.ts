/**
 * End-to-end with real StatsD clients: npm's hot-shots (telegraf-style tags in the bucket) and
 * Debian's python3-statsd (pystatsd 4, run by /usr/bin/python3; installed by
 * test/lib/debian-package.ts when it can be, else skipped with one line; .ci/run requires it),
 * each over UDP and TCP, against the statsagent receiver of a real adapter. The gather interval is
 * an hour, so what is stored comes from the adapter's last gather on a clean stop: one row per
 * series, read back (values and column types) through /rest/sql after a restart.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { StatsD } from 'hot-shots'
import { afterAll, describe, expect, it } from 'vitest'
import type { RunningAdapter } from '../../src/lifecycle.js'
import { describe as describeTable, sqlRows, startIngestServer } from '../ingest/server.js'
import { needDebianPackages, pythonModule } from '../lib/debian-package.js'

const PYTHON = '/usr/bin/python3'
const need = needDebianPackages('python3-statsd client', [{ pkg: 'python3-statsd', present: pythonModule('statsd') }])
const dir = mkdtempSync(join(tmpdir(), 'statsd-clients-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

type Protocol = 'udp' | 'tcp'

async function accepted(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text()
  const m = /^db_adapter_receiver_packets_total\{receiver="statsagent",result="accepted"\} (\S+)$/m.exec(text)
  return m === null ? 0 : Number(m[1])
}

/**
 * Starts an adapter with the receiver on `protocol`, lets `send` run a client against its port,
 * waits until `messages` datagrams or lines were accepted, stops the adapter (its last gather
 * writes everything) and answers a restarted adapter on the same data to read from.
 */
async function roundTrip(name: string, protocol: Protocol, messages: number, send: (port: number) => Promise<void>): Promise<RunningAdapter> {
  const url = `duckdb:${join(dir, `${name}-${protocol}.duckdb`)}`
  const adapter = await startIngestServer((c) => {
    c.storage.url = url
    c.statsagent.enable = true
    c.statsagent.port = 0
    c.statsagent.protocol = protocol
    c.statsagent.gatherInterval = 3_600_000
  })
  try {
    await send(adapter.receivers[0].port)
    const until = Date.now() + 10_000
    while ((await accepted(adapter.url)) < messages && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 50))
    }
    expect(await accepted(adapter.url)).toBe(messages)
  } finally {
    await adapter.stop()
  }
  return startIngestServer((c) => {
    c.storage.url = url
  })
}

async function columnTypes(base: string, table: string): Promise<Record<string, unknown>> {
  return Object.fromEntries((await describeTable(base, `statsagent.${table}`)).map((r) => [r[0], r[1]]))
}

describe.each<Protocol>(['udp', 'tcp'])('hot-shots over %s', (protocol) => {
  it('stores counters, gauges with deltas, sets, timings and histograms with their tags', async () => {
    const reader = await roundTrip('hot-shots', protocol, 13, async (port) => {
      const errors: Error[] = []
      const client = new StatsD({ host: '127.0.0.1', port, protocol, telegraf: true, globalTags: { env: 'test' }, errorHandler: (e) => errors.push(e) })
      client.increment('hs.requests', 2, { route: 'home' })
      client.increment('hs.requests', 3, { route: 'home' })
      client.decrement('hs.requests', 1, { route: 'home' })
      client.gauge('hs.queue', 10)
      client.gaugeDelta('hs.queue', -4)
      client.set('hs.users', 'a')
      client.set('hs.users', 'b')
      client.set('hs.users', 'a')
      client.timing('hs.latency', 100)
      client.timing('hs.latency', 200)
      client.timing('hs.latency', 300)
      client.histogram('hs.size', 5)
      client.histogram('hs.size', 15)
      await new Promise<void>((resolve, reject) => client.close((err) => (err ? reject(err) : resolve())))
      expect(errors).toEqual([])
    })
    try {
      const base = reader.url
      expect(await sqlRows(base, 'select `value`, route, env, metric_type from statsagent.hs_requests')).toEqual([[4, 'home', 'test', 'counter']])
      expect(await sqlRows(base, 'select `value`, env, metric_type from statsagent.hs_queue')).toEqual([[6, 'test', 'gauge']])
      expect(await sqlRows(base, 'select `value`, metric_type from statsagent.hs_users')).toEqual([[2, 'set']])
      const [[mean, stddev, total, upper, lower, count, type]] = (await sqlRows(
        base,
        'select mean, stddev, `sum`, upper, lower, `count`, metric_type from statsagent.hs_latency',
      )) as [[number, number, number, number, number, number, string]]
      expect([mean, total, upper, lower, count, type]).toEqual([200, 600, 300, 100, 3, 'timing'])
      expect(stddev).toBeCloseTo(Math.sqrt(20000 / 3), 9)
      expect(await sqlRows(base, 'select mean, `count`, metric_type from statsagent.hs_size')).toEqual([[10, 2, 'histogram']])
      expect(await columnTypes(base, 'hs_requests')).toMatchObject({ value: 'BIGINT', route: 'NCHAR', env: 'NCHAR', metric_type: 'NCHAR' })
      expect(await columnTypes(base, 'hs_queue')).toMatchObject({ value: 'DOUBLE' })
      expect(await columnTypes(base, 'hs_users')).toMatchObject({ value: 'BIGINT' })
      expect(await columnTypes(base, 'hs_latency')).toMatchObject({ mean: 'DOUBLE', stddev: 'DOUBLE', sum: 'DOUBLE', upper: 'DOUBLE', lower: 'DOUBLE', count: 'BIGINT' })
    } finally {
      await reader.stop()
    }
  })
})

const PY_CLIENT = `
import sys, statsd
host, port, proto = sys.argv[1], int(sys.argv[2]), sys.argv[3]
c = statsd.TCPStatsClient(host, port, prefix='py') if proto == 'tcp' else statsd.StatsClient(host, port, prefix='py')
c.incr('jobs,queue=mail', 3)
c.incr('jobs,queue=mail')
c.decr('jobs,queue=mail', 2)
c.gauge('temp', 20.5)
c.gauge('temp', 1.5, delta=True)
c.gauge('temp', -2, delta=True)
c.set('visitors', 'alice')
c.set('visitors', 'bob')
c.set('visitors', 'alice')
c.timing('render', 10)
c.timing('render', 30)
with c.pipeline() as p:
    p.incr('batch')
    p.incr('batch', 4)
    p.timing('render', 20)
if proto == 'tcp':
    c.close()
`

describe.skipIf(need.skip).each<Protocol>(['udp', 'tcp'])('python3-statsd over %s', (protocol) => {
  it('stores what pystatsd sends, its pipeline as several lines in one message', async () => {
    // 12 calls; the pipeline is one datagram over UDP, three lines over TCP
    const reader = await roundTrip('python', protocol, protocol === 'udp' ? 12 : 14, async (port) => {
      const r = spawnSync(PYTHON, ['-c', PY_CLIENT, '127.0.0.1', String(port), protocol], { encoding: 'utf8', timeout: 20_000 })
      expect(r.status, r.stderr).toBe(0)
    })
    try {
      const base = reader.url
      expect(await sqlRows(base, 'select `value`, queue, metric_type from statsagent.py_jobs')).toEqual([[2, 'mail', 'counter']])
      expect(await sqlRows(base, 'select `value`, metric_type from statsagent.py_temp')).toEqual([[20, 'gauge']])
      expect(await sqlRows(base, 'select `value` from statsagent.py_visitors')).toEqual([[2]])
      expect(await sqlRows(base, 'select `value` from statsagent.py_batch')).toEqual([[5]])
      expect(await sqlRows(base, 'select mean, `sum`, upper, lower, `count`, metric_type from statsagent.py_render')).toEqual([[20, 60, 30, 10, 3, 'timing']])
      expect(await columnTypes(base, 'py_jobs')).toMatchObject({ value: 'BIGINT' })
      expect(await columnTypes(base, 'py_temp')).toMatchObject({ value: 'DOUBLE' })
    } finally {
      await reader.stop()
    }
  })
})
