/**
 * The StatsD receiver (statsagent) in a real adapter: datagrams and TCP lines are aggregated and
 * written at each gather into statsagent.db with the original's names and types; malformed lines,
 * the memory gate, the queue bound and the TCP connection cap are counted on /metrics; the gather
 * loop survives all-paused; a clean stop writes what was read; a restart takes input again.
 */
import { createSocket } from 'node:dgram'
import { mkdtempSync, rmSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import type { AppConfig } from '../../src/config/types.js'
import type { RunningAdapter } from '../../src/lifecycle.js'
import { describe as describeTable, sqlRows, startIngestServer } from './server.js'
import { eventually } from '../lib/eventually.js'

const dir = mkdtempSync(join(tmpdir(), 'statsagent-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

let adapter: RunningAdapter | undefined
afterEach(async () => {
  await adapter?.stop()
  adapter = undefined
})

async function sendUdp(port: number, ...datagrams: string[]): Promise<void> {
  const s = createSocket('udp4')
  try {
    for (const d of datagrams) {
      await new Promise<void>((resolve, reject) => s.send(d, port, '127.0.0.1', (err) => (err ? reject(err) : resolve())))
    }
  } finally {
    s.close()
  }
}

function tcpConnect(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => resolve(s))
    s.once('error', reject)
  })
}

async function counter(base: string, name: string, result: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text()
  const m = new RegExp(`^${name}\\{receiver="statsagent",result="${result}"\\} (\\S+)$`, 'm').exec(text)
  return m === null ? 0 : Number(m[1])
}
const packets = (base: string, result: string): Promise<number> => counter(base, 'db_adapter_receiver_packets_total', result)
const points = (base: string, result: string): Promise<number> => counter(base, 'db_adapter_receiver_points_total', result)

async function start(tune: (c: AppConfig) => void = () => {}): Promise<{ base: string; port: number }> {
  adapter = await startIngestServer((c) => {
    c.statsagent.enable = true
    c.statsagent.port = 0
    c.statsagent.gatherInterval = 200
    tune(c)
  })
  return { base: adapter.url, port: adapter.receivers[0].port }
}

async function sum(base: string, table: string): Promise<number> {
  const [[v]] = (await sqlRows(base, `select sum(\`value\`) from statsagent.${table}`)) as [[number | null]]
  return v ?? 0
}

describe('StatsD receiver over UDP', () => {
  it('writes counters, gauges, sets and timings of multi-line, multi-value datagrams with the original types', async () => {
    const { base, port } = await start()
    await sendUdp(
      port,
      'page.views,host=a:3|c:2|c|@0.5\npage.views,host=a:1|c\nload,host=a:0.5|g\nload,host=a:+0.25|g\nusers:alice|s\nusers:bob|s\nusers:alice|s',
      'req.time:10|ms:30|ms\nreq.time:20|ms|@0.5\nsize:5|h',
    )
    await eventually(async () => expect(await sqlRows(base, 'select `value`, host, metric_type from statsagent.page_views')).toEqual([[8, 'a', 'counter']]))
    expect(await sqlRows(base, 'select `value`, metric_type from statsagent.load')).toEqual([[0.75, 'gauge']])
    expect(await sqlRows(base, 'select `value`, metric_type from statsagent.users')).toEqual([[2, 'set']])
    // 10, 30, and 20 counted twice (rate 0.5): mean 20, population stddev sqrt(50)
    const [[mean, stddev, total, upper, lower, count, type]] = (await sqlRows(base, 'select mean, stddev, `sum`, upper, lower, `count`, metric_type from statsagent.req_time')) as [[number, number, number, number, number, number, string]]
    expect([mean, total, upper, lower, count, type]).toEqual([20, 80, 30, 10, 4, 'timing'])
    expect(stddev).toBeCloseTo(Math.sqrt(50), 12)
    expect(await sqlRows(base, 'select `count`, metric_type from statsagent.size')).toEqual([[1, 'histogram']])
    const types = (t: string): Promise<Record<string, unknown>> => describeTable(base, `statsagent.${t}`).then((rows) => Object.fromEntries(rows.map((r) => [r[0], r[1]])))
    expect(await types('page_views')).toMatchObject({ _ts: 'TIMESTAMP', value: 'BIGINT', host: 'NCHAR', metric_type: 'NCHAR' })
    expect(await types('load')).toMatchObject({ value: 'DOUBLE' })
    expect(await types('users')).toMatchObject({ value: 'BIGINT' })
    expect(await types('req_time')).toMatchObject({ mean: 'DOUBLE', stddev: 'DOUBLE', sum: 'DOUBLE', upper: 'DOUBLE', lower: 'DOUBLE', count: 'BIGINT' })
    expect(await sqlRows(base, "select `precision` from information_schema.ins_databases where name = 'statsagent'")).toEqual([['ns']])
    expect(await packets(base, 'accepted')).toBe(2)
  })

  it('counts a datagram with bad lines as malformed, keeps its good lines, and goes on', async () => {
    const { base, port } = await start()
    await sendUdp(port, 'good:1|c\nbad line\nx:1|zz\ngood:2|c')
    await eventually(async () => expect(await sum(base, 'good')).toBe(3))
    expect(await packets(base, 'malformed')).toBe(1)
    await sendUdp(port, 'good:4|c')
    await eventually(async () => expect(await sum(base, 'good')).toBe(7))
    expect(await packets(base, 'accepted')).toBe(1)
  })

  it('keeps gathering through all-paused: input is dropped and counted, later ticks write again', async () => {
    const { base, port } = await start()
    await sendUdp(port, 'before:1|c')
    await eventually(async () => expect(await sum(base, 'before')).toBe(1))
    adapter?.gate.set('all-paused')
    await sendUdp(port, 'paused:1|c', 'paused:1|c')
    await eventually(async () => expect(await packets(base, 'dropped')).toBe(2))
    // several gather ticks pass while paused (the original's loop ended at the first)
    await new Promise((r) => setTimeout(r, 700))
    adapter?.gate.set('normal')
    await sendUdp(port, 'after:5|c')
    await eventually(async () => expect(await sum(base, 'after')).toBe(5))
    await new Promise((r) => setTimeout(r, 300))
    await sendUdp(port, 'after:6|c')
    await eventually(async () => expect(await sum(base, 'after')).toBe(11))
    expect((await sqlRows(base, 'show statsagent.stables')).map((r) => r[0])).not.toContain('paused')
  })

  it('a tick while paused keeps what was aggregated for the next one', async () => {
    const { base, port } = await start((c) => {
      c.statsagent.gatherInterval = 400
    })
    await sendUdp(port, 'held:3|c')
    await eventually(async () => expect(await packets(base, 'accepted')).toBe(1))
    adapter?.gate.set('all-paused')
    await new Promise((r) => setTimeout(r, 900))
    adapter?.gate.set('normal')
    await eventually(async () => expect(await sum(base, 'held')).toBe(3))
  })

  it('drops and counts datagrams beyond allowPendingMessages; what was accepted is all stored', async () => {
    const { base, port } = await start((c) => {
      c.statsagent.allowPendingMessages = 3
    })
    const s = createSocket('udp4')
    // sent without waiting, in bursts: the receiver's event loop sees many at once
    for (let burst = 0; burst < 20; burst++) {
      await Promise.all(Array.from({ length: 50 }, () => new Promise<void>((resolve, reject) => s.send('flood:1|c', port, '127.0.0.1', (err) => (err ? reject(err) : resolve())))))
    }
    s.close()
    await eventually(async () => {
      const accepted = await packets(base, 'accepted')
      const dropped = await packets(base, 'dropped')
      expect(dropped).toBeGreaterThan(0)
      expect(accepted + dropped).toBeLessThanOrEqual(1000)
      expect(await sum(base, 'flood')).toBe(accepted)
    })
  })

  it('writes what it read when the adapter stops, and takes input again after a restart on the same port', async () => {
    const url = `duckdb:${join(dir, 'restart.duckdb')}`
    const { port } = await start((c) => {
      c.storage.url = url
      // no tick before the stop: only the stop's own gather can write
      c.statsagent.gatherInterval = 3_600_000
    })
    await sendUdp(port, 'restart:2|c\nrestart.g:7|g')
    await eventually(async () => expect(await packets(adapter!.url, 'accepted')).toBe(1))
    await adapter?.stop()
    const again = await start((c) => {
      c.storage.url = url
      c.statsagent.port = port
    })
    expect(again.port).toBe(port)
    expect(await sqlRows(again.base, 'select `value` from statsagent.restart_g')).toEqual([[7]])
    await sendUdp(port, 'restart:3|c')
    await eventually(async () => expect(await sum(again.base, 'restart')).toBe(5))
  })

  it('drops and counts when statsagent.user cannot log in', async () => {
    const { base, port } = await start((c) => {
      c.statsagent.password = 'wrong'
    })
    await sendUdp(port, 'a:1|c\nb:1|g')
    await eventually(async () => expect(await points(base, 'dropped')).toBe(2))
    expect((await sqlRows(base, 'show databases')).map((r) => r[0])).not.toContain('statsagent')
  })

  it('re-emits held values each gather when the delete flags are off', async () => {
    const { base, port } = await start((c) => {
      c.statsagent.deleteCounters = false
      c.statsagent.deleteGauges = false
    })
    await sendUdp(port, 'kept:2|c\nkeptg:1|g')
    await eventually(async () => {
      const rows = (await sqlRows(base, 'select `value` from statsagent.kept')) as number[][]
      expect(rows.length).toBeGreaterThanOrEqual(3)
      expect(new Set(rows.map((r) => r[0]))).toEqual(new Set([2]))
    })
    await sendUdp(port, 'keptg:+1|g')
    await eventually(async () => expect((await sqlRows(base, 'select last(`value`) from statsagent.keptg'))[0][0]).toBe(2))
  })
})

describe('StatsD receiver over TCP', () => {
  it('reads newline-separated lines, a last line without newline included, and refuses connections beyond maxTCPConnections', async () => {
    const { base, port } = await start((c) => {
      c.statsagent.protocol = 'tcp'
      c.statsagent.maxTCPConnections = 1
      c.statsagent.tcpKeepAlive = true
    })
    const a = await tcpConnect(port)
    a.write('tcp.c:1|c\ntcp.c:2|c\r\nbroken\n')
    await eventually(async () => expect(await packets(base, 'accepted')).toBe(2))
    // a second connection is closed at once
    const b = await tcpConnect(port)
    await new Promise<void>((resolve) => b.once('close', () => resolve()))
    a.end('tcp.c:4|c')
    await new Promise<void>((resolve) => a.once('close', () => resolve()))
    await eventually(async () => expect(await sum(base, 'tcp_c')).toBe(7))
    expect(await packets(base, 'malformed')).toBe(1)
    // a new connection once the first has gone
    const c = await tcpConnect(port)
    c.end('tcp.c:10|c\n')
    await eventually(async () => expect(await sum(base, 'tcp_c')).toBe(17))
  })

  it('loses no line read over TCP when the adapter stops', async () => {
    const { port } = await start((c) => {
      c.statsagent.protocol = 'tcp'
      c.statsagent.gatherInterval = 3_600_000
      c.statsagent.allowPendingMessages = 10
      c.storage.url = `duckdb:${join(dir, 'tcp-stop.duckdb')}`
    })
    const s = await tcpConnect(port)
    const lines = Array.from({ length: 5000 }, (_, i) => `n,k=${i % 7}:1|c`).join('\n') + '\n'
    await new Promise<void>((resolve) => s.end(lines, () => resolve()))
    await new Promise<void>((resolve) => s.once('close', () => resolve()))
    await adapter?.stop()
    adapter = await startIngestServer((c) => {
      c.storage.url = `duckdb:${join(dir, 'tcp-stop.duckdb')}`
    })
    expect(await sum(adapter.url, 'n')).toBe(5000)
  })

  it('fails the start naming the flag when the port is taken', async () => {
    const { port } = await start((c) => {
      c.statsagent.protocol = 'tcp'
    })
    await expect(
      startIngestServer((c) => {
        c.statsagent.enable = true
        c.statsagent.protocol = 'tcp'
        c.statsagent.port = port
      }),
    ).rejects.toThrow(/statsagent\.port \d+: cannot listen on TCP .*EADDRINUSE/)
  })
})
