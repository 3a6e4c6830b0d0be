/**
 * @module
 * HTTP request metrics: counter and latency histogram by method, route TEMPLATE and status, and
 * the in-flight gauge. Labels use the matched route (`/rest/sql/:db`), never the raw URL, so label
 * cardinality stays bounded whatever clients send; unmatched paths share one label. With client IP
 * collection on, requests are also counted by client address in a separate, bounded metric.
 */
import type { MiddlewareHandler } from 'hono'
import type { HttpMetrics } from '../../monitor/metrics.js'
import { routeLabel } from '../../monitor/route-label.js'
import { clientIp } from '../context.js'

export interface HttpMetricsOptions {
  metrics: HttpMetrics
  now?: () => number
}

export function httpMetrics({ metrics, now = () => performance.now() }: HttpMetricsOptions): MiddlewareHandler {
  return async function httpMetrics(c, next) {
    const start = now()
    metrics.inFlight.inc()
    try {
      await next()
    } finally {
      metrics.inFlight.dec()
      const labels = { method: c.req.method, route: routeLabel(c), status: String(c.res.status) }
      metrics.requests.inc(labels)
      metrics.duration.observe(labels, (now() - start) / 1000)
      // the access log already worked the address out; on its own this middleware does it
      metrics.byClient?.inc((c.get('clientIp') as string | undefined) ?? clientIp(c))
    }
  }
}
