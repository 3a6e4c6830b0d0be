/**
 * The collectd receiver (collagent) in a real adapter: the captured collectd 5.12 packet sent over
 * UDP lands in the receiver's database; malformed packets, the memory gate and bad credentials
 * are counted on /metrics instead of vanishing; stop writes what is queued; a taken port fails
 * the start with the flag named.
 */
import { createSocket } from 'node:dgram'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pino } from 'pino'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { defaultConfig } from '../../src/config/index.js'
import type { RunningAdapter } from '../../src/lifecycle.js'
import { startAdapter } from '../../src/lifecycle.js'
import { openStorage } from '../../src/sql/catalog/open.js'
import { sqlRows, startIngestServer } from './server.js'
import { eventually } from '../lib/eventually.js'

const captured = readFileSync(new URL('./fixtures/collectd5.12_network.bin', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'collagent-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

let adapter: RunningAdapter | undefined
afterEach(async () => {
  await adapter?.stop()
  adapter = undefined
})

async function send(port: number, ...packets: Uint8Array[]): Promise<void> {
  const s = createSocket('udp4')
  try {
    for (const p of packets) {
      await new Promise<void>((resolve, reject) => s.send(p, port, '127.0.0.1', (err) => (err ? reject(err) : resolve())))
    }
  } finally {
    s.close()
  }
}

async function counter(base: string, name: string, result: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text()
  const m = new RegExp(`^${name}\\{receiver="collagent",result="${result}"\\} (\\S+)$`, 'm').exec(text)
  return m === null ? 0 : Number(m[1])
}

async function start(tune: (c: ReturnType<typeof defaultConfig>) => void = () => {}): Promise<{ base: string; port: number }> {
  adapter = await startIngestServer((c) => {
    c.collagent.enable = true
    c.collagent.port = 0
    tune(c)
  })
  return { base: adapter.url, port: adapter.receivers[0].port }
}

describe('collectd receiver', () => {
  it('stores the captured collectd packet in collagent.db: one super table per plugin and value', async () => {
    const { base, port } = await start()
    await send(port, captured)
    const counts = await eventually(async () => {
      const rows = await sqlRows(base, 'select count(*) from collagent.cpu_value')
      expect(rows[0][0]).toBe(18)
      return {
        memory: (await sqlRows(base, 'select count(*) from collagent.memory_value'))[0][0],
        load: await Promise.all(['load_0', 'load_1', 'load_2'].map(async (t) => (await sqlRows(base, `select count(*) from collagent.${t}`))[0][0])),
      }
    })
    expect(counts).toEqual({ memory: 12, load: [2, 2, 2] })
    // values, tags and nanosecond times as collectd sent them
    expect(await sqlRows(base, "select _ts, `value`, host, type, type_instance from collagent.memory_value where type_instance = 'used' order by _ts")).toEqual([
      ['2026-11-22T01:07:24.440104082Z', 178503680, 'peers-probe', 'memory', 'used'],
      ['2026-11-22T01:07:26.438986032Z', 179068928, 'peers-probe', 'memory', 'used'],
    ])
    expect(await sqlRows(base, "select `value`, instance from collagent.cpu_value where type_instance = 'idle' order by instance")).toEqual([
      [454938, '0'],
      [449718, '1'],
    ])
    expect(await counter(base, 'db_adapter_receiver_packets_total', 'accepted')).toBe(1)
    expect(await counter(base, 'db_adapter_receiver_points_total', 'written')).toBe(36)
  })

  it('counts a malformed packet, keeps the values before the damage, and goes on receiving', async () => {
    const { base, port } = await start()
    // cut inside the fourth part's value list: the first three memory values survive
    await send(port, captured.subarray(0, 0x60))
    await eventually(async () => expect(await counter(base, 'db_adapter_receiver_packets_total', 'malformed')).toBe(1))
    await eventually(async () => expect((await sqlRows(base, 'select count(*) from collagent.memory_value'))[0][0]).toBe(1))
    await send(port, captured)
    await eventually(async () => expect((await sqlRows(base, 'select count(*) from collagent.memory_value'))[0][0]).toBe(12))
  })

  it('drops and counts packets while the memory gate pauses everything', async () => {
    const { base, port } = await start()
    adapter?.gate.set('all-paused')
    await send(port, captured)
    await eventually(async () => expect(await counter(base, 'db_adapter_receiver_packets_total', 'dropped')).toBe(1))
    adapter?.gate.set('normal')
    expect(await counter(base, 'db_adapter_receiver_points_total', 'written')).toBe(0)
  })

  it('drops and counts points when collagent.user cannot log in', async () => {
    const { base, port } = await start((c) => {
      c.collagent.password = 'wrong'
    })
    await send(port, captured)
    await eventually(async () => expect(await counter(base, 'db_adapter_receiver_points_total', 'dropped')).toBe(36))
    expect((await sqlRows(base, 'show databases')).map((r) => r[0])).not.toContain('collagent')
  })

  it('writes as collagent.user under its privileges: dropped without WRITE, written once granted', async () => {
    const { base, port } = await start((c) => {
      c.collagent.user = 'cd_agent'
      c.collagent.password = 'Pass_1234'
    })
    await sqlRows(base, "create user cd_agent pass 'Pass_1234'")
    // no CREATEDB: the receiver may not create its database
    await send(port, captured)
    await eventually(async () => expect(await counter(base, 'db_adapter_receiver_points_total', 'dropped')).toBe(36))
    expect((await sqlRows(base, 'show databases')).map((r) => r[0])).not.toContain('collagent')
    // an existing database it has no WRITE on: still dropped
    await sqlRows(base, "create database collagent precision 'ns'")
    await send(port, captured)
    await eventually(async () => expect(await counter(base, 'db_adapter_receiver_points_total', 'dropped')).toBe(72))
    expect(await sqlRows(base, "select count(*) from information_schema.ins_stables where db_name = 'collagent'")).toEqual([[0]])
    await sqlRows(base, 'grant write on collagent.* to cd_agent')
    await send(port, captured)
    await eventually(async () => expect(await counter(base, 'db_adapter_receiver_points_total', 'written')).toBe(36))
    expect((await sqlRows(base, 'select count(*) from collagent.cpu_value'))[0][0]).toBe(18)
  })

  it('writes what is queued when the adapter stops', async () => {
    // the storage URL as the adapter got it (test/integration swaps in a PostgreSQL database)
    let config: ReturnType<typeof defaultConfig> | undefined
    const { port } = await start((c) => {
      c.storage.url = `duckdb:${join(dir, 'stop.duckdb')}`
      config = c
    })
    await send(port, captured)
    // give the datagram time to arrive, not to be written (the writer lingers 200 ms)
    await new Promise((r) => setTimeout(r, 50))
    await adapter?.stop()
    adapter = undefined
    const storage = await openStorage(config?.storage.url ?? '', { rootPassword: 'taosdata' })
    try {
      const rows = await storage.engine.query('SELECT count(*) FROM "td_collagent"."cpu_value"')
      expect(Number(rows[0][0])).toBe(18)
    } finally {
      await storage.close()
    }
  })

  it('fails to start, naming the flag, when its UDP port is taken', async () => {
    const taken = createSocket('udp4')
    await new Promise<void>((resolve) => taken.bind(0, '127.0.0.1', () => resolve()))
    try {
      const config = defaultConfig()
      config.port = 0
      config.host = '127.0.0.1'
      config.storage.url = 'duckdb::memory:'
      config.log.path = dir
      config.monitor.disable = true
      config.manager.enable = false
      config.collagent.port = taken.address().port
      await expect(startAdapter(config, { logger: pino({ level: 'silent' }) })).rejects.toThrow(
        `collagent.port ${taken.address().port}: cannot listen on UDP 127.0.0.1:${taken.address().port} (EADDRINUSE)`,
      )
    } finally {
      taken.close()
    }
  })
})
