/**
 * The OpenTSDB telnet receivers (tsdbproto_telnet) in a real adapter, over real TCP sockets:
 * each port writes into the database at its position of `dbs`; `version` answers `1`; batching
 * by batchSize / flushInterval / connection close; bad and over-long lines are counted and do not
 * stop the connection; connections beyond maxTCPConnections are closed at once; while all-paused
 * lines are read and dropped; the configured user's privileges apply; stop writes what is cached.
 */
import { connect, createServer, type Socket } from 'node:net'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pino } from 'pino'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import type { AppConfig } from '../../src/config/types.js'
import type { RunningAdapter } from '../../src/lifecycle.js'
import { startAdapter } from '../../src/lifecycle.js'
import { openStorage } from '../../src/sql/catalog/open.js'
import { testAdapterConfig } from '../lib/adapter-config.js'
import { sqlRows, startIngestServer } from './server.js'
import { eventually } from '../lib/eventually.js'

const dir = mkdtempSync(join(tmpdir(), 'telnet-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

let adapter: RunningAdapter | undefined
const sockets: Socket[] = []
afterEach(async () => {
  for (const s of sockets.splice(0)) {
    s.destroy()
  }
  await adapter?.stop()
  adapter = undefined
})

const T0 = 1_700_000_000

async function start(tune: (c: AppConfig) => void = () => {}): Promise<{ base: string; ports: number[] }> {
  adapter = await startIngestServer((c) => {
    c.tsdbproto_telnet.enable = true
    c.tsdbproto_telnet.ports = [0]
    c.tsdbproto_telnet.dbs = ['tel']
    tune(c)
  })
  return { base: adapter.url, ports: adapter.receivers.map((r) => r.port) }
}

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => resolve(s))
    s.once('error', reject)
    s.on('error', () => undefined)
    sockets.push(s)
  })
}

/** sends `version` and waits for the `1`: every line written before it has been read */
async function acked(s: Socket): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer): void => {
      if (d.toString().includes('1')) {
        s.off('data', onData)
        resolve()
      }
    }
    s.on('data', onData)
    s.once('close', () => reject(new Error('closed before the version answer')))
    s.write('version\n')
  })
}

async function counter(base: string, name: string, result: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text()
  const m = new RegExp(`^${name}\\{receiver="tsdbproto_telnet",result="${result}"\\} (\\S+)$`, 'm').exec(text)
  return m === null ? 0 : Number(m[1])
}

const count = async (base: string, table: string): Promise<unknown> => {
  try {
    return (await sqlRows(base, `select count(*) from ${table}`))[0][0]
  } catch {
    return 0
  }
}

describe('telnet receiver', () => {
  it('writes each port into the database at its position, in the forms collectd and icinga2 send', async () => {
    const { base, ports } = await start((c) => {
      c.tsdbproto_telnet.ports = [0, 0]
      c.tsdbproto_telnet.dbs = ['tel_a', 'tel_b']
    })
    expect(ports).toHaveLength(2)
    const a = await open(ports[0])
    a.write(`put cpu ${T0} 1.5 host=h1 cpu=0\r\n`)
    a.write(`cpu ${T0 + 1} 2.5 host=h1  cpu=0\n`)
    a.write(`put mem ${T0}000 1024 host=h1\n`)
    const b = await open(ports[1])
    b.write(`put cpu ${T0} 7 host=h2 cpu=1\n`)
    await eventually(async () => expect(await count(base, 'tel_a.cpu')).toBe(2))
    expect(await sqlRows(base, 'select _ts, _value, host, cpu from tel_a.cpu order by _ts')).toEqual([
      ['2023-11-14T22:13:20.000000000Z', 1.5, 'h1', '0'],
      ['2023-11-14T22:13:21.000000000Z', 2.5, 'h1', '0'],
    ])
    await eventually(async () => expect(await count(base, 'tel_a.mem')).toBe(1))
    await eventually(async () => expect(await sqlRows(base, 'select _value, host from tel_b.cpu')).toEqual([[7, 'h2']]))
    expect(await count(base, 'tel_b.mem')).toBe(0)
    expect(await counter(base, 'db_adapter_receiver_points_total', 'written')).toBe(4)
    expect(await counter(base, 'db_adapter_receiver_packets_total', 'accepted')).toBe(4)
  })

  it('answers version with 1 and stores nothing for it', async () => {
    const { base, ports } = await start()
    const s = await open(ports[0])
    let got = ''
    s.on('data', (d: Buffer) => (got += d.toString()))
    s.write('version\n')
    await eventually(async () => expect(got).toBe('1'))
    s.write('version\r\n')
    await eventually(async () => expect(got).toBe('11'))
    expect((await sqlRows(base, 'show databases')).map((r) => r[0])).not.toContain('tel')
    expect(await counter(base, 'db_adapter_receiver_packets_total', 'accepted')).toBe(0)
  })

  it('counts bad and over-long lines, and the connection goes on with its later lines', async () => {
    const { base, ports } = await start()
    const s = await open(ports[0])
    s.write(`put cpu ${T0} 1 host=a\n`)
    s.write(`put cpu notatime 1 host=a\n`)
    s.write(`put cpu ${T0} abc host=a\n`)
    s.write(`put cpu ${T0}\n`)
    s.write('GET / HTTP/1.1\n')
    s.write(`put cpu ${T0} 1 host=${'x'.repeat(70 * 1024)}\n`)
    s.write(`put cpu ${T0 + 1} 2 host=a\n`)
    await acked(s)
    await eventually(async () => expect(await count(base, 'tel.cpu')).toBe(2))
    expect(await counter(base, 'db_adapter_receiver_packets_total', 'malformed')).toBe(5)
    expect(await counter(base, 'db_adapter_receiver_packets_total', 'accepted')).toBe(2)
    expect(s.destroyed).toBe(false)
  })

  it('holds lines until batchSize, writes the rest when the connection closes', async () => {
    const { base, ports } = await start((c) => {
      c.tsdbproto_telnet.batchSize = 3
    })
    const s = await open(ports[0])
    s.write(`put m ${T0} 1 k=a\nput m ${T0 + 1} 2 k=a\n`)
    await acked(s)
    // two of three: nothing written yet (no flushInterval)
    await new Promise((r) => setTimeout(r, 300))
    expect(await count(base, 'tel.m')).toBe(0)
    s.write(`put m ${T0 + 2} 3 k=a\nput m ${T0 + 3} 4 k=a\n`)
    await eventually(async () => expect(await count(base, 'tel.m')).toBe(4))
    s.end(`put m ${T0 + 4} 5 k=a\n`)
    await eventually(async () => expect(await count(base, 'tel.m')).toBe(5))
  })

  it('writes a partial batch after flushInterval', async () => {
    const { base, ports } = await start((c) => {
      c.tsdbproto_telnet.batchSize = 1000
      c.tsdbproto_telnet.flushInterval = 200
    })
    const s = await open(ports[0])
    s.write(`put m ${T0} 1 k=a\n`)
    await eventually(async () => expect(await count(base, 'tel.m')).toBe(1), 5000)
    expect(s.destroyed).toBe(false)
  })

  it('closes connections beyond maxTCPConnections at once, counts them, and serves the others', async () => {
    const { base, ports } = await start((c) => {
      c.tsdbproto_telnet.maxTCPConnections = 3
    })
    const kept = await Promise.all([0, 1, 2].map(() => open(ports[0])))
    // each admitted connection proves it is served before the flood
    await Promise.all(kept.map((s) => acked(s)))
    const flood = await Promise.all(Array.from({ length: 30 }, () => open(ports[0])))
    await Promise.all(flood.map((s) => new Promise((resolve) => (s.destroyed ? resolve(null) : s.once('close', resolve)))))
    expect(await counter(base, 'db_adapter_receiver_connections_total', 'refused')).toBe(30)
    kept.forEach((s, i) => s.write(`put m ${T0 + i} ${i} k=a\n`))
    await eventually(async () => expect(await count(base, 'tel.m')).toBe(3))
    expect(await counter(base, 'db_adapter_receiver_connections_total', 'accepted')).toBe(3)
  })

  it('reads and drops lines while all-paused, and writes again after', async () => {
    const { base, ports } = await start()
    const s = await open(ports[0])
    adapter?.gate.set('all-paused')
    s.write(`put m ${T0} 1 k=a\nput m ${T0 + 1} 2 k=a\n`)
    await acked(s)
    expect(await counter(base, 'db_adapter_receiver_packets_total', 'dropped')).toBe(2)
    adapter?.gate.set('normal')
    s.write(`put m ${T0 + 2} 3 k=a\n`)
    await eventually(async () => expect(await count(base, 'tel.m')).toBe(1))
  })

  it('writes as tsdbproto_telnet.user under its privileges', async () => {
    const { base, ports } = await start((c) => {
      c.tsdbproto_telnet.user = 'tel_agent'
      c.tsdbproto_telnet.password = 'Pass_1234'
    })
    await sqlRows(base, "create user tel_agent pass 'Pass_1234'")
    const s = await open(ports[0])
    s.write(`put m ${T0} 1 k=a\n`)
    await eventually(async () => expect(await counter(base, 'db_adapter_receiver_points_total', 'dropped')).toBe(1))
    expect((await sqlRows(base, 'show databases')).map((r) => r[0])).not.toContain('tel')
    await sqlRows(base, "create database tel precision 'ns'")
    await sqlRows(base, 'grant write on tel.* to tel_agent')
    s.write(`put m ${T0 + 1} 2 k=a\n`)
    await eventually(async () => expect(await count(base, 'tel.m')).toBe(1))
  })

  it('writes the lines it holds when the adapter stops', async () => {
    let url = ''
    const { ports } = await start((c) => {
      c.storage.url = `duckdb:${join(dir, 'stop.duckdb')}`
      c.tsdbproto_telnet.batchSize = 100_000
      url = c.storage.url
    })
    const conns = await Promise.all([0, 1, 2, 3].map(() => open(ports[0])))
    let n = 0
    for (const s of conns) {
      let body = ''
      for (let i = 0; i < 500; i++) {
        body += `put m ${T0 * 1000 + n++} ${i} conn=c${conns.indexOf(s)}\n`
      }
      s.write(body)
    }
    await Promise.all(conns.map((s) => acked(s)))
    await adapter?.stop()
    adapter = undefined
    const storage = await openStorage(url, { rootPassword: 'taosdata' })
    try {
      const rows = await storage.engine.query('SELECT count(*) FROM "td_tel"."m"')
      expect(Number(rows[0][0])).toBe(2000)
    } finally {
      await storage.close()
    }
  })

  it('fails to start, naming the flag, when a port is taken', async () => {
    const taken = createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', () => resolve()))
    const port = (taken.address() as { port: number }).port
    try {
      const config = testAdapterConfig('telnet-taken-')
      config.monitor.disable = true
      config.tsdbproto_telnet.enable = true
      config.tsdbproto_telnet.ports = [0, port]
      config.tsdbproto_telnet.dbs = ['a', 'b']
      await expect(startAdapter(config, { logger: pino({ level: 'silent' }) })).rejects.toThrow(
        `tsdbproto_telnet.ports ${port}: cannot listen on TCP 127.0.0.1:${port} (EADDRINUSE)`,
      )
    } finally {
      taken.close()
    }
  })
})
