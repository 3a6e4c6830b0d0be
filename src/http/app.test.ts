import { gunzipSync, gzipSync } from 'node:zlib'
import { Hono } from 'hono'
import { pino } from 'pino'
import { beforeEach, describe, expect, it } from 'vitest'
import { defaultConfig } from '../config/index.js'
import { Gate } from '../monitor/gate.js'
import { createHttpMetrics } from '../monitor/metrics.js'
import type { HttpMetrics } from '../monitor/metrics.js'
import { createApp } from './app.js'

describe('createApp', () => {
  let app: Hono
  let gate: Gate
  let metrics: HttpMetrics

  beforeEach(() => {
    const config = defaultConfig()
    gate = new Gate()
    metrics = createHttpMetrics({ processMetrics: false })
    const rest = new Hono()
    rest.post('/sql/:db', async (c) => c.json({ db: c.req.param('db'), sql: await c.req.text() }))
    rest.get('/big', (c) => c.text('x'.repeat(5000)))
    const influx = new Hono()
    influx.post('/write', (c) => c.body(null, 204))
    app = createApp({
      config,
      logger: pino({ level: 'silent' }),
      metrics,
      gate,
      rest,
      routes: [{ prefix: '/influxdb/v1', app: influx }],
    })
  })

  it('mounts health, rest and extra routes', async () => {
    expect((await app.request('/-/ping')).status).toBe(200)
    expect((await app.request('/-/live')).status).toBe(200)
    const res = await app.request('/rest/sql/db1', { method: 'POST', body: 'show databases' })
    expect(await res.json()).toEqual({ db: 'db1', sql: 'show databases' })
    expect((await app.request('/influxdb/v1/write', { method: 'POST' })).status).toBe(204)
  })

  it('pings 503 when the gate is all-paused', async () => {
    gate.set('all-paused')
    expect((await app.request('/-/ping')).status).toBe(503)
    expect((await app.request('/-/live')).status).toBe(200)
  })

  it('every response carries a request id', async () => {
    const res = await app.request('/nowhere')
    expect(res.status).toBe(404)
    expect(res.headers.get('x-request-id')).toBeTruthy()
    expect(await res.json()).toEqual({ code: 404, desc: 'endpoint does not exist: /nowhere' })
  })

  it('accepts gzip request bodies on mounted routes', async () => {
    const res = await app.request('/rest/sql/db2', {
      method: 'POST',
      body: gzipSync('select * from t'),
      headers: { 'Content-Encoding': 'gzip' },
    })
    expect(await res.json()).toEqual({ db: 'db2', sql: 'select * from t' })
  })

  it('gzips responses when asked, exactly once', async () => {
    const res = await app.request('/rest/big', { headers: { 'Accept-Encoding': 'gzip' } })
    expect(res.headers.get('content-encoding')).toBe('gzip')
    const once = gunzipSync(Buffer.from(await res.arrayBuffer())).toString('utf8')
    expect(once).toBe('x'.repeat(5000))
    const plain = await app.request('/rest/big')
    expect(plain.headers.get('content-encoding')).toBeNull()
  })

  it('serves /metrics gzipped once, with route-template counters', async () => {
    await app.request('/rest/sql/abc', { method: 'POST', body: 'x' })
    await app.request('/nowhere/42')
    const res = await app.request('/metrics', { headers: { 'Accept-Encoding': 'gzip' } })
    expect(res.headers.get('content-encoding')).toBe('gzip')
    const text = gunzipSync(Buffer.from(await res.arrayBuffer())).toString('utf8')
    expect(text).toContain('db_adapter_http_requests_total{method="POST",route="/rest/sql/:db",status="200"} 1')
    expect(text).toContain('db_adapter_http_requests_total{method="GET",route="unmatched",status="404"} 1')
    // /metrics itself is counted once its own response is done, i.e. from the next scrape on
    expect(text).not.toContain('route="/metrics"')
    const again = await (await app.request('/metrics')).text()
    expect(again).toContain('db_adapter_http_requests_total{method="GET",route="/metrics",status="200"} 1')
  })

  it('adds CORS headers to error responses too', async () => {
    const res = await app.request('/nowhere', { headers: { Origin: 'http://ui.test' } })
    expect(res.status).toBe(404)
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
  })

  it('answers CORS preflights for any path', async () => {
    const res = await app.request('/rest/sql', {
      method: 'OPTIONS',
      headers: { Origin: 'http://ui.test', 'Access-Control-Request-Method': 'POST' },
    })
    expect(res.status).toBe(204)
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
  })
})
