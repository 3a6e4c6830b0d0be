/**
 * @module
 * Access log: one pino line per request after it completes (status, latency, client ip, method,
 * uri, request id), the structured equivalent of the original's
 * `| <status> | <latency> | <client ip> | <method> | <uri> |` line. Also provides the
 * request-scoped child logger `c.get('log')` to handlers. Probes and scrapes (`/-/ping`, `/-/live`,
 * `/metrics`) are logged at debug.
 */
import type { MiddlewareHandler } from 'hono'
import type { Logger } from '../../logger.js'
import { clientIp } from '../context.js'

export interface AccessLogOptions {
  logger: Logger
  /** monotonic clock in ms; injectable for tests */
  now?: () => number
}

/** Query parameters that carry credentials (line protocol's `p`, REST tokens). */
const SECRET_PARAM_VALUE = /(?<=[?&])(p|token|password)=[^&]*/g

/**
 * The request's path and query with credentials masked: `/rest/login/<user>/<password>` keeps
 * the user, `p=`, `token=` and `password=` values become `***`. Logs are shipped and kept far
 * longer than a password should be visible.
 */
export function redactUri(url: URL): string {
  let path = url.pathname
  const login = /^(\/rest\/login\/[^/]*\/)[^/]+/.exec(path)
  if (login) {
    path = `${login[1]}***${path.slice(login[0].length)}`
  }
  // the raw query is kept as sent (its encoding included); only the secret values are replaced
  return path + url.search.replace(SECRET_PARAM_VALUE, '$1=***')
}

/** Probe and scrape paths: every few seconds from the kubelet and Prometheus, so logged at debug
 * (at info they would drown the requests people look for) */
const QUIET_PATHS: ReadonlySet<string> = new Set(['/-/ping', '/-/live', '/metrics'])

export function accessLog({ logger, now = () => performance.now() }: AccessLogOptions): MiddlewareHandler {
  return async function accessLog(c, next) {
    const start = now()
    const reqId = c.get('requestId')
    const ip = clientIp(c)
    c.set('clientIp', ip)
    c.set('log', reqId ? logger.child({ reqId }) : logger)
    try {
      await next()
    } finally {
      const latencyMs = Math.round((now() - start) * 1000) / 1000
      const status = c.res.status
      const method = c.req.method
      const rawUrl = c.req.url
      // after the response is on its way: the line (JSON, two writes queued on libuv's pool)
      // costs the request nothing on its critical path
      setImmediate(() => {
        const url = new URL(rawUrl)
        const level = QUIET_PATHS.has(url.pathname) ? 'debug' : 'info'
        logger[level]({ reqId, status, latencyMs, clientIp: ip, method, uri: redactUri(url) }, 'request')
      })
    }
  }
}
