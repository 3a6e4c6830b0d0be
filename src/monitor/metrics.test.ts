import { describe, expect, it } from 'vitest'
import { createHttpMetrics, createMetricsRoutes, renderMetrics, wantsOpenMetrics } from './metrics.js'

describe('wantsOpenMetrics', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['text/plain', false],
    ['*/*', false],
    ['application/openmetrics-text', true],
    ['application/openmetrics-text; version=1.0.0; charset=utf-8', true],
    ['text/plain;q=0.5, application/openmetrics-text;version=0.0.1;q=0.9', true],
    ['application/openmetrics-text;q=0', false],
    ['Application/OpenMetrics-Text', true],
  ])('%j -> %s', (accept, expected) => {
    expect(wantsOpenMetrics(accept)).toBe(expected)
  })
})

describe('renderMetrics', () => {
  it('counters keep their _total name in Prometheus format after an OpenMetrics render', async () => {
    const m = createHttpMetrics({ processMetrics: false })
    m.requests.inc({ method: 'GET', route: '/-/ping', status: '200' })
    m.requests.inc({ method: 'GET', route: '/-/ping', status: '200' })

    const om = await renderMetrics(m.registry, true)
    expect(om.contentType).toMatch(/^application\/openmetrics-text/)
    expect(om.body).toContain('# TYPE db_adapter_http_requests counter')
    expect(om.body).toContain('db_adapter_http_requests_total{method="GET",route="/-/ping",status="200"} 2')
    expect(om.body.endsWith('# EOF\n')).toBe(true)

    const prom = await renderMetrics(m.registry, false)
    expect(prom.contentType).toMatch(/^text\/plain; version=0\.0\.4/)
    expect(prom.body).toContain('# TYPE db_adapter_http_requests_total counter')
    expect(prom.body).toContain('db_adapter_http_requests_total{method="GET",route="/-/ping",status="200"} 2')
    expect(prom.body).not.toContain('# EOF')
  })

  it('uses a private registry per instance', async () => {
    const a = createHttpMetrics({ processMetrics: false })
    const b = createHttpMetrics({ processMetrics: false })
    a.inFlight.inc()
    expect(await a.registry.getSingleMetricAsString('db_adapter_http_requests_in_flight')).toContain(' 1')
    expect(await b.registry.getSingleMetricAsString('db_adapter_http_requests_in_flight')).toContain(' 0')
  })
})

describe('GET /metrics', () => {
  it('serves process metrics and the histogram', async () => {
    const metrics = createHttpMetrics()
    metrics.duration.observe({ method: 'POST', route: '/rest/sql/:db', status: '200' }, 0.003)
    const app = createMetricsRoutes({ metrics })
    const res = await app.request('/metrics')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8')
    const text = await res.text()
    expect(text).toContain('process_cpu_user_seconds_total')
    // 0.003 s falls in the 0.005 bucket and above, not in the 0.001 bucket
    expect(text).toContain('db_adapter_http_request_duration_seconds_bucket{le="0.001",method="POST",route="/rest/sql/:db",status="200"} 0')
    expect(text).toContain('db_adapter_http_request_duration_seconds_bucket{le="0.005",method="POST",route="/rest/sql/:db",status="200"} 1')
  })

  it('answers OpenMetrics when asked', async () => {
    const app = createMetricsRoutes({ metrics: createHttpMetrics({ processMetrics: false }) })
    const res = await app.request('/metrics', { headers: { Accept: 'application/openmetrics-text' } })
    expect(res.headers.get('content-type')).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8')
    expect((await res.text()).endsWith('# EOF\n')).toBe(true)
  })
})
