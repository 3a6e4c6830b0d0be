/**
 * @module
 * HTTP request metrics: counter and latency histogram by method, route TEMPLATE and status, and
 * the in-flight gauge. Labels use the matched route (`/rest/sql/:db`), never the raw URL, so label
 * cardinality stays bounded whatever clients send; unmatched paths share one label. With client IP
 * collection on, requests are also counted by client address in a separate, bounded metric.
 */
import type { Context, MiddlewareHandler } from 'hono'
import { matchedRoutes } from 'hono/route'
import { UNMATCHED_ROUTE } from '../../monitor/metrics.js'
import type { HttpMetrics } from '../../monitor/metrics.js'
import { clientIp } from '../context.js'

/**
 * The template of the route that handles the request: the last matched entry registered as a
 * handler rather than a middleware. Middleware take `(c, next)` (two parameters), handlers take
 * `(c)`; that is also how Hono's own route helper tells them apart.
 */
export function routeLabel(c: Context): string {
  const routes = matchedRoutes(c)
  for (let i = routes.length - 1; i >= 0; i--) {
    const route = routes[i]
    if (route.handler.length < 2) {
      return route.path
    }
  }
  return UNMATCHED_ROUTE
}

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
