/**
 * startAdapter in-process: port 0 reporting, the real app over a real socket, graceful stop that
 * lets an in-flight request finish, and draining readiness.
 */
import { Agent, get } from 'node:http'
import { join } from 'node:path'
import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import { redactUrl, startAdapter } from '../../src/lifecycle.js'
import { testAdapterConfig } from '../lib/adapter-config.js'

function testConfig() {
  return testAdapterConfig('lifecycle-')
}

describe('startAdapter', () => {
  it('gives the storage memory back when the memory gate pauses (DuckDB file), and still answers after', async () => {
    const config = testConfig()
    config.storage.url = `duckdb:${join(config.log.path, 'release.duckdb')}`
    const lines: Array<{ msg: string; state?: string }> = []
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as { msg: string; state?: string }) })
    const adapter = await startAdapter(config, { logger })
    try {
      adapter.gate.set('query-paused')
      const until = Date.now() + 5000
      while (!lines.some((l) => l.msg === 'memory gate paused: storage memory released') && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 20))
      }
      expect(lines.filter((l) => l.msg.startsWith('memory gate paused')).map((l) => [l.msg, l.state])).toEqual([
        ['memory gate paused: storage memory released', 'query-paused'],
      ])
      adapter.gate.set('normal')
      const res = await fetch(`${adapter.url}/rest/sql`, {
        method: 'POST',
        body: 'show databases',
        headers: { Authorization: `Basic ${Buffer.from('root:taosdata').toString('base64')}` },
      })
      expect(((await res.json()) as { code: number }).code).toBe(0)
    } finally {
      await adapter.stop()
    }
  })

  it('listens on a free port when port is 0 and stops cleanly', async () => {
    const adapter = await startAdapter(testConfig(), { logger: pino({ level: 'silent' }) })
    try {
      expect(adapter.port).toBeGreaterThan(0)
      expect(adapter.url).toBe(`http://127.0.0.1:${adapter.port}`)
      const ping = await fetch(`${adapter.url}/-/ping`)
      expect(ping.status).toBe(200)
      adapter.gate.set('all-paused')
      expect((await fetch(`${adapter.url}/-/ping`)).status).toBe(503)
      adapter.gate.set('normal')
      const sql = await fetch(`${adapter.url}/rest/sql`, {
        method: 'POST',
        body: 'show databases',
        headers: { Authorization: `Basic ${Buffer.from('root:taosdata').toString('base64')}` },
      })
      expect(sql.status).toBe(200)
    } finally {
      await adapter.stop()
    }
    await expect(fetch(`${adapter.url}/-/live`)).rejects.toThrow()
    // a second stop is a no-op
    await adapter.stop()
  })

  it('stop() lets an in-flight request finish and reports draining meanwhile', async () => {
    const adapter = await startAdapter(testConfig(), { logger: pino({ level: 'silent' }) })
    let entered!: () => void
    const inHandler = new Promise<void>((r) => (entered = r))
    let release!: () => void
    const released = new Promise<void>((r) => (release = r))
    // added before the first request, while Hono's router can still take routes
    adapter.app.get('/test/slow', async (c) => {
      entered()
      await released
      return c.text('finished')
    })
    const slow = fetch(`${adapter.url}/test/slow`)
    await inHandler
    let stopped = false
    const stopping = adapter.stop().then(() => {
      stopped = true
    })
    await new Promise((r) => setTimeout(r, 100))
    expect(stopped).toBe(false)
    expect((await adapter.app.request('/-/ping')).status).toBe(503)
    expect((await adapter.app.request('/-/live')).status).toBe(200)
    release()
    const res = await slow
    expect(res.status).toBe(200)
    expect(await res.text()).toBe('finished')
    await stopping
    expect(stopped).toBe(true)
  })

  it('stop() cuts requests still running after shutdown.gracePeriod', async () => {
    const config = testConfig()
    config.shutdown.gracePeriod = 1500
    const SHUTDOWN_GRACE_MS = config.shutdown.gracePeriod
    const adapter = await startAdapter(config, { logger: pino({ level: 'silent' }) })
    adapter.app.get('/test/hang', () => new Promise<Response>(() => undefined))
    const hung = fetch(`${adapter.url}/test/hang`).then(
      () => 'answered',
      () => 'cut',
    )
    await new Promise((r) => setTimeout(r, 100))
    const t0 = Date.now()
    await adapter.stop()
    const took = Date.now() - t0
    expect(took).toBeGreaterThanOrEqual(SHUTDOWN_GRACE_MS - 100)
    expect(took).toBeLessThan(SHUTDOWN_GRACE_MS + 3000)
    expect(await hung).toBe('cut')
  }, 15_000)

  it('keeps an idle keep-alive connection past Node\'s 5 s default (clients such as Prometheus idle for 90 s)', async () => {
    const adapter = await startAdapter(testConfig(), { logger: pino({ level: 'silent' }) })
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    const ping = (): Promise<{ status: number; reused: boolean }> =>
      new Promise((resolve, reject) => {
        const req = get(`${adapter.url}/-/ping`, { agent }, (res) => {
          res.resume()
          res.on('end', () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket }))
        })
        req.on('error', reject)
      })
    try {
      expect(await ping()).toEqual({ status: 200, reused: false })
      await new Promise((r) => setTimeout(r, 6500))
      // the same connection still serves: the server did not close it while idle
      expect(await ping()).toEqual({ status: 200, reused: true })
    } finally {
      agent.destroy()
      await adapter.stop()
    }
  }, 20_000)

  it('fails with the storage error for a bad storage URL', async () => {
    const config = testConfig()
    config.storage.url = 'nosuchengine:whatever'
    await expect(startAdapter(config, { logger: pino({ level: 'silent' }) })).rejects.toThrow()
  })

  it('fails when the port is taken', async () => {
    const first = await startAdapter(testConfig(), { logger: pino({ level: 'silent' }) })
    try {
      const config = testConfig()
      config.port = first.port
      await expect(startAdapter(config, { logger: pino({ level: 'silent' }) })).rejects.toThrow(/EADDRINUSE/)
    } finally {
      await first.stop()
    }
  })
})

describe('redactUrl', () => {
  it.each([
    ['postgres://user:secret@db:5432/x', 'postgres://user:***@db:5432/x'],
    ['postgresql://u:p%40ss@h/x', 'postgresql://u:***@h/x'],
    ['postgres://user@db/x', 'postgres://user@db/x'],
    ['duckdb:./data/a.duckdb', 'duckdb:./data/a.duckdb'],
  ])('%s -> %s', (from, to) => {
    expect(redactUrl(from)).toBe(to)
  })
})
