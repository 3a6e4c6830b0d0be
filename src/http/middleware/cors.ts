/**
 * @module
 * CORS exactly per the `cors.*` settings, with the semantics of the original (gin-contrib/cors
 * built from DefaultConfig):
 *  - no `Origin` header: no CORS headers at all;
 *  - `allowAllOrigins` (default true): `Access-Control-Allow-Origin: *`;
 *  - otherwise the origin must match `allowOrigins` (default only `http://127.0.0.1`; `*` is a
 *    wildcard, e.g. `https://*.example.com`), else 403; the origin is echoed and `Vary: Origin` set;
 *  - `OPTIONS` with an Origin is a preflight, answered 204 with allow-* headers and max-age 12 h;
 *  - `Access-Control-Expose-Headers` = `Authorization` plus `cors.exposeHeaders`. The original
 *    read that setting but never applied it (a bug); we apply it and keep `Authorization`, which
 *    the original always exposed, so existing clients see no change.
 */
import type { MiddlewareHandler } from 'hono'
import type { AppConfig } from '../../config/types.js'
import { respond } from '../error-table.js'

const CORS_ALLOWED_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']
const CORS_BASE_HEADERS = ['Origin', 'Content-Length', 'Content-Type', 'Authorization']
const CORS_BASE_EXPOSE = ['Authorization']
const CORS_DEFAULT_ORIGIN = 'http://127.0.0.1'
const CORS_MAX_AGE_SECONDS = 12 * 60 * 60

export type CorsOptions = AppConfig['cors']

/** Union of header names, first spelling wins, case-insensitive. */
function mergeHeaderNames(...lists: string[][]): string[] {
  const seen = new Map<string, string>()
  for (const name of lists.flat()) {
    const trimmed = name.trim()
    if (trimmed && !seen.has(trimmed.toLowerCase())) {
      seen.set(trimmed.toLowerCase(), trimmed)
    }
  }
  return [...seen.values()]
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/**
 * Builds the origin test once (outside the per-request closure). Origins compare
 * case-insensitively; `ws://`/`wss://` entries count only when `allowWebSockets` is on.
 */
export function originMatcher(allowOrigins: string[], allowWebSockets: boolean): (origin: string) => boolean {
  const configured = allowOrigins.map((o) => o.trim()).filter((o) => o !== '')
  const patterns = (configured.length > 0 ? configured : [CORS_DEFAULT_ORIGIN]).filter(
    (o) => allowWebSockets || !/^wss?:\/\//i.test(o),
  )
  if (patterns.includes('*')) {
    return () => true
  }
  const exact = new Set(patterns.filter((p) => !p.includes('*')).map((p) => p.toLowerCase()))
  const wildcards = patterns
    .filter((p) => p.includes('*'))
    .map((p) => new RegExp(`^${p.split('*').map(escapeRegExp).join('.*')}$`, 'i'))
  return (origin) => exact.has(origin.toLowerCase()) || wildcards.some((re) => re.test(origin))
}

export function cors(options: CorsOptions): MiddlewareHandler {
  const allowAll = options.allowAllOrigins
  const isAllowed = originMatcher(options.allowOrigins, options.allowWebSockets)
  const allowMethods = CORS_ALLOWED_METHODS.join(',')
  const allowHeaders = mergeHeaderNames(CORS_BASE_HEADERS, options.allowHeaders).join(',')
  const exposeHeaders = mergeHeaderNames(CORS_BASE_EXPOSE, options.exposeHeaders).join(',')
  const maxAge = String(CORS_MAX_AGE_SECONDS)

  return async function cors(c, next) {
    const origin = c.req.header('Origin')
    if (!origin) {
      await next()
      return
    }
    if (!allowAll && !isAllowed(origin)) {
      // JSON like every other error answer (a browser only sees the missing CORS headers)
      return respond('gateway', { status: 403, desc: `origin ${JSON.stringify(origin)} is not allowed: see cors.allowOrigins` })
    }
    const headers: Record<string, string> = {
      'Access-Control-Allow-Origin': allowAll ? '*' : origin,
    }
    if (options.allowCredentials) {
      headers['Access-Control-Allow-Credentials'] = 'true'
    }
    if (!allowAll) {
      // the answer depends on Origin: caches must key on it
      headers['Vary'] = 'Origin'
    }

    if (c.req.method === 'OPTIONS') {
      headers['Access-Control-Allow-Methods'] = allowMethods
      headers['Access-Control-Allow-Headers'] = allowHeaders
      headers['Access-Control-Max-Age'] = maxAge
      return c.body(null, 204, headers)
    }

    await next()
    headers['Access-Control-Expose-Headers'] = exposeHeaders
    for (const [name, value] of Object.entries(headers)) {
      if (name === 'Vary') {
        const current = c.res.headers.get('Vary')
        c.header('Vary', current && !/(^|,)\s*origin\s*(,|$)/i.test(current) ? `${current}, Origin` : current ?? 'Origin')
      } else {
        c.header(name, value)
      }
    }
  }
}
