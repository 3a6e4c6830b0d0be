import { Hono } from 'hono'
import { beforeEach, describe, expect, it } from 'vitest'
import { createHttpMetrics } from '../../monitor/metrics.js'
import type { HttpMetrics } from '../../monitor/metrics.js'
import { httpMetrics } from './http-metrics.js'

async function counterValue(m: HttpMetrics, labels: Record<string, string>): Promise<number | undefined> {
  const data = await m.requests.get()
  return data.values.find((v) => Object.entries(labels).every(([k, val]) => (v.labels as Record<string, unknown>)[k] === val))?.value
}

describe('httpMetrics middleware', () => {
  let metrics: HttpMetrics
  let app: Hono
  let inFlightSeen: number | undefined

  beforeEach(() => {
    metrics = createHttpMetrics({ processMetrics: false })
    app = new Hono()
    app.use(httpMetrics({ metrics }))
    const rest = new Hono()
    rest.use('*', async (_c, next) => {
      await next()
    })
    rest.post('/sql/:db', async (c) => {
      inFlightSeen = (await metrics.inFlight.get()).values[0]?.value
      return c.text(c.req.param('db'))
    })
    rest.get('/auth-only', (c) => c.text('x'))
    app.route('/rest', rest)
  })

  it('labels by route template, not by URL', async () => {
    await app.request('/rest/sql/db1', { method: 'POST' })
    await app.request('/rest/sql/db2?x=1', { method: 'POST' })
    expect(await counterValue(metrics, { method: 'POST', route: '/rest/sql/:db', status: '200' })).toBe(2)
    const all = (await metrics.requests.get()).values.map((v) => v.labels.route)
    expect(all).not.toContain('/rest/sql/db1')
  })

  it('labels unknown paths "unmatched", even when a wildcard middleware matched', async () => {
    await app.request('/rest/nothing-here')
    await app.request('/random/path/123')
    expect(await counterValue(metrics, { method: 'GET', route: 'unmatched', status: '404' })).toBe(2)
  })

  it('tracks in-flight requests and records the latency histogram', async () => {
    await app.request('/rest/sql/db1', { method: 'POST' })
    expect(inFlightSeen).toBe(1)
    expect((await metrics.inFlight.get()).values[0]?.value).toBe(0)
    const hist = await metrics.duration.get()
    const count = hist.values.find(
      (v) => v.metricName === 'db_adapter_http_request_duration_seconds_count' && v.labels.route === '/rest/sql/:db',
    )
    expect(count?.value).toBe(1)
  })

  it('counts failed requests with their final status', async () => {
    const failing = new Hono()
    failing.use(httpMetrics({ metrics }))
    failing.get('/x/:id', () => {
      throw new Error('boom')
    })
    failing.onError((_e, c) => c.text('no', 500))
    await failing.request('/x/7')
    expect(await counterValue(metrics, { route: '/x/:id', status: '500' })).toBe(1)
  })

  it('counts by client IP only when asked, in a separate metric, bounded', async () => {
    expect(metrics.byClient).toBeUndefined()
    const byIp = createHttpMetrics({ processMetrics: false, clientIp: true, maxClientIps: 2 })
    const ipApp = new Hono()
    ipApp.use(httpMetrics({ metrics: byIp }))
    ipApp.get('/x', (c) => c.text('x'))
    for (const ip of ['10.0.0.1', '10.0.0.2', '10.0.0.1', '10.0.0.3', '10.0.0.4', 'bogus']) {
      await ipApp.request('/x', { headers: { 'X-Forwarded-For': ip } })
    }
    // app.request has no socket: no peer address
    await ipApp.request('/x')
    const values = (await (byIp.byClient as NonNullable<HttpMetrics['byClient']>).counter.get()).values
    const count = Object.fromEntries(values.map((v) => [v.labels.client_ip, v.value]))
    expect(count).toEqual({ '10.0.0.1': 2, '10.0.0.2': 1, other: 2, unknown: 2 })
    expect((await byIp.requests.get()).values.every((v) => !('client_ip' in v.labels))).toBe(true)
  })
})
