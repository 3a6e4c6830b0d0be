/**
 * @module
 * `GET /-/ping` and `GET /-/live` answered at the Node request listener, before Hono: a probe
 * then costs no Request/Response objects and no six middlewares (its p50 was twice a bare Node
 * server's). The answer is the one the Hono routes give (monitor/health.ts decides the status):
 * `X-Request-Id` reused or made, empty body with `Content-Length: 0`, counted in the HTTP metrics
 * under the route's template, access-logged at debug. A request with an `Origin` (CORS headers to
 * add) or any other method or path goes to Hono, as does one whose storage check throws (Hono's
 * error handler answers it).
 */
import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Logger } from '../logger.js'
import { liveStatus, pingStatus, type HealthDeps } from '../monitor/health.js'
import type { HttpMetrics } from '../monitor/metrics.js'
import { clientIpFrom } from './client-ip.js'
import { redactUri } from './middleware/access-log.js'

export interface ProbeFastPathDeps extends HealthDeps {
  logger: Logger
  metrics: HttpMetrics
}

/** Handles the request and returns true when it is a plain probe; false leaves it to Hono. */
export type ProbeFastPath = (req: IncomingMessage, res: ServerResponse, fallback: () => void) => boolean

/** hono/request-id's rule for a usable incoming id */
const SANE_REQUEST_ID = /^[\w\-=]{1,255}$/

export function createProbeFastPath(deps: ProbeFastPathDeps): ProbeFastPath {
  const { logger, metrics } = deps
  return function probe(req, res, fallback) {
    const url = req.url ?? ''
    const q = url.indexOf('?')
    const path = q < 0 ? url : url.slice(0, q)
    if (req.method !== 'GET' || (path !== '/-/ping' && path !== '/-/live') || req.headers.origin !== undefined) {
      return false
    }
    const start = performance.now()
    metrics.inFlight.inc()
    const incoming = req.headers['x-request-id']
    const reqId = typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID()
    const answer = (status: number): void => {
      res.writeHead(status, { 'content-length': '0', 'x-request-id': reqId })
      res.end()
      metrics.inFlight.dec()
      const labels = { method: 'GET', route: path, status: String(status) }
      metrics.requests.inc(labels)
      metrics.duration.observe(labels, (performance.now() - start) / 1000)
      const ip = metrics.byClient !== undefined || logger.isLevelEnabled('debug') ? clientIpOf(req) : ''
      metrics.byClient?.inc(ip)
      if (logger.isLevelEnabled('debug')) {
        const uri = redactUri(new URL(url, 'http://localhost'))
        logger.debug({ reqId, status, latencyMs: Math.round((performance.now() - start) * 1000) / 1000, clientIp: ip, method: 'GET', uri }, 'request')
      }
    }
    const status = path === '/-/ping' ? pingStatus(deps, q >= 0 && actionIsQuery(url.slice(q + 1))) : liveStatus(deps)
    if (typeof status === 'number') {
      answer(status)
      return true
    }
    status.then(answer, () => {
      // Hono asks again and answers the failure through its error handler
      metrics.inFlight.dec()
      fallback()
    })
    return true
  }
}

function actionIsQuery(search: string): boolean {
  return new URLSearchParams(search).get('action') === 'query'
}

function headerText(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v.join(', ') : v
}

function clientIpOf(req: IncomingMessage): string {
  return clientIpFrom(headerText(req.headers['x-forwarded-for']), headerText(req.headers['x-real-ip']), req.socket.remoteAddress)
}
