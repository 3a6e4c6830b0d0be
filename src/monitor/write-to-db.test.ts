import { pino } from 'pino'
import { Counter, Gauge, Histogram, Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { startAdapter } from '../lifecycle.js'
import { openStorage } from '../sql/catalog/open.js'
import { createMetricsWriter, metricsToPoints, monitorIdentity } from './write-to-db.js'
import { testAdapterConfig } from '../../test/lib/adapter-config.js'

const AUTH = { Authorization: `Basic ${Buffer.from('root:taosdata').toString('base64')}` }

describe('metricsToPoints', () => {
  it('counters and gauges -> value; histograms -> count and sum; only db_adapter_*; endpoint tag first', async () => {
    const registry = new Registry()
    const c = new Counter({ name: 'db_adapter_x_total', help: 'h', labelNames: ['route', 'method'], registers: [registry] })
    c.inc({ route: '/a', method: 'GET' }, 3)
    new Gauge({ name: 'db_adapter_g', help: 'h', registers: [registry] }).set(7.5)
    // a gauge never set has no finite value: no row
    new Gauge({ name: 'db_adapter_unset', help: 'h', registers: [registry] }).set(NaN)
    const h = new Histogram({ name: 'db_adapter_h_seconds', help: 'h', labelNames: ['route'], buckets: [1], registers: [registry] })
    h.observe({ route: '/a' }, 0.25)
    h.observe({ route: '/a' }, 0.5)
    new Gauge({ name: 'other_metric', help: 'h', registers: [registry] }).set(1)

    const points = await metricsToPoints(registry, 'node1:6041', 5n)
    expect(points).toEqual([
      {
        measurement: 'db_adapter_x_total',
        tags: [['endpoint', 'node1:6041'], ['method', 'GET'], ['route', '/a']],
        fields: [{ name: 'value', type: 'DOUBLE', value: 3 }],
        ts: 5n,
      },
      { measurement: 'db_adapter_g', tags: [['endpoint', 'node1:6041']], fields: [{ name: 'value', type: 'DOUBLE', value: 7.5 }], ts: 5n },
      {
        measurement: 'db_adapter_h_seconds',
        tags: [['endpoint', 'node1:6041'], ['route', '/a']],
        fields: [
          { name: 'count', type: 'DOUBLE', value: 2 },
          { name: 'sum', type: 'DOUBLE', value: 0.75 },
        ],
        ts: 5n,
      },
    ])
  })

  it('identity: monitor.identity, else hostname (max 39 chars):port', () => {
    expect(monitorIdentity('me', 6041, 'h')).toBe('me')
    expect(monitorIdentity('', 6041, 'a'.repeat(50))).toBe(`${'a'.repeat(39)}:6041`)
  })
})

describe('monitor.writeToDB', () => {
  it('writes the adapter metrics into database log on the interval (real adapter, real DuckDB)', async () => {
    const config = testAdapterConfig('write-to-db-')
    config.monitor.writeToDB = true
    config.monitor.writeInterval = 100
    config.monitor.collectDuration = 50
    config.monitor.identity = 'test-node'
    const adapter = await startAdapter(config, { logger: pino({ level: 'silent' }) })
    try {
      for (let i = 0; i < 3; i++) {
        expect((await fetch(`${adapter.url}/-/ping`)).status).toBe(200)
      }
      const query = async (q: string): Promise<unknown[][]> => {
        const res = await fetch(`${adapter.url}/rest/sql`, { method: 'POST', body: q, headers: AUTH })
        const body = (await res.json()) as { code: number; data?: unknown[][]; desc?: string }
        if (body.code !== 0) {
          throw new Error(`${q}: ${body.desc}`)
        }
        return body.data ?? []
      }
      let rows: unknown[][] = []
      const until = Date.now() + 5000
      while (Date.now() < until) {
        try {
          rows = await query(`select last(value) from log.db_adapter_http_requests_total where route = '/-/ping' and status = '200' and endpoint = 'test-node'`)
          if (rows.length > 0 && Number(rows[0][0]) >= 3) {
            break
          }
        } catch {
          // log not created yet
        }
        await new Promise((r) => setTimeout(r, 50))
      }
      expect(Number(rows[0]?.[0])).toBeGreaterThanOrEqual(3)
      const gate = await query(`select last(value) from log.db_adapter_gate_state where endpoint = 'test-node'`)
      expect(gate[0][0]).toBe(0)
      const mem = await query(`select last(value) from log.db_adapter_memory_percent`)
      expect(Number(mem[0][0])).toBeGreaterThan(0)
      expect(Number(mem[0][0])).toBeLessThan(100)
    } finally {
      await adapter.stop()
    }
  })

  it('writes as monitor.user under its privileges: CREATEDB to create log, WRITE to write into it', async () => {
    const storage = await openStorage('duckdb::memory:', { rootPassword: 'taosdata' })
    try {
      const logger = pino({ level: 'silent' })
      const registry = new Registry()
      new Gauge({ name: 'db_adapter_g', help: 'h', registers: [registry] }).set(1)
      await storage.catalog.createUser('mon', 'Pass_1234')
      const writer = createMetricsWriter({ storage, registry, logger, user: 'mon', password: 'Pass_1234', identity: 'x', intervalMs: 1000 })
      expect(await writer.writeOnce()).toBe(0)
      expect(storage.catalog.getDatabase('log')).toBeUndefined()
      await storage.catalog.createDatabase('log', { precision: 'ms' }, false)
      expect(await writer.writeOnce()).toBe(0)
      expect(storage.catalog.getStable('log', 'db_adapter_g')).toBeUndefined()
      await storage.catalog.grant('mon', 'log', ['write'])
      expect(await writer.writeOnce()).toBe(1)
      expect(storage.catalog.getStable('log', 'db_adapter_g')).toBeDefined()
    } finally {
      await storage.close()
    }
  })

  it('bad monitor credentials: logged once, nothing written, no throw', async () => {
    const storage = await openStorage('duckdb::memory:', { rootPassword: 'taosdata' })
    try {
      const lines: Array<{ level: number; msg: string }> = []
      const logger = pino({ level: 'info' }, { write: (s: string) => lines.push(JSON.parse(s) as { level: number; msg: string }) })
      const registry = new Registry()
      new Gauge({ name: 'db_adapter_g', help: 'h', registers: [registry] }).set(1)
      const writer = createMetricsWriter({ storage, registry, logger, user: 'root', password: 'wrong', identity: 'x', intervalMs: 1000 })
      expect(await writer.writeOnce()).toBe(0)
      expect(await writer.writeOnce()).toBe(0)
      const errors = lines.filter((l) => l.level === 50)
      expect(errors).toHaveLength(1)
      expect(errors[0].msg).toMatch(/writing metrics failed/)
      expect(storage.catalog.getDatabase('log')).toBeUndefined()
      // with the right password it writes
      const ok = createMetricsWriter({ storage, registry, logger, user: 'root', password: 'taosdata', identity: 'x', intervalMs: 1000 })
      expect(await ok.writeOnce()).toBe(1)
      expect(storage.catalog.getStable('log', 'db_adapter_g')).toBeDefined()
    } finally {
      await storage.close()
    }
  })
})
