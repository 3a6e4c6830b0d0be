import { Hono } from 'hono'
import { Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { countRows, createIngestMetrics, ingestMetricsScope, rejectedSamples } from './ingest-metrics.js'

describe('countRows', () => {
  it('counts into the scope installed in front of the handler, and is a no-op without one', async () => {
    const registry = new Registry()
    const metrics = createIngestMetrics(registry)
    const handler = new Hono()
    handler.post('/write', (c) => {
      countRows(c, 'lineproto', 3, 1)
      return c.body(null, 204)
    })
    const scoped = new Hono()
    scoped.use('*', ingestMetricsScope(metrics))
    scoped.route('/', handler)

    await scoped.request('/write', { method: 'POST' })
    await scoped.request('/write', { method: 'POST' })
    await handler.request('/write', { method: 'POST' })
    const text = await registry.metrics()
    expect(text).toContain('db_adapter_rows_total{protocol="lineproto",result="written"} 6')
    expect(text).toContain('db_adapter_rows_total{protocol="lineproto",result="rejected"} 2')
  })

  it('adds no series for zero counts', async () => {
    const registry = new Registry()
    const app = new Hono()
    app.use('*', ingestMetricsScope(createIngestMetrics(registry)))
    app.post('/w', (c) => {
      countRows(c, 'tsdbproto_json', 2, 0)
      return c.body(null, 204)
    })
    await app.request('/w', { method: 'POST' })
    const text = await registry.metrics()
    expect(text).toContain('result="written"} 2')
    expect(text).not.toContain('result="rejected"')
  })
})

describe('rejectedSamples', () => {
  it('is every sample of the request not written', () => {
    const req = { timeseries: [{ samples: [1, 2, 3] }, { samples: [] }, { samples: [4, 5] }] }
    expect(rejectedSamples(req, 3)).toBe(2)
    expect(rejectedSamples(req, 5)).toBe(0)
  })
})
