/**
 * @module
 * Typed context variables set by the shell's middleware (`requestId` is typed by hono/request-id)
 * and by the admission middleware of the routes (middleware/auth.ts, middleware/body.ts).
 */
import type { Context } from 'hono'
import { getConnInfo } from '@hono/node-server/conninfo'
import type { BodyLease } from '../ingest/body-pool.js'
import type { Logger } from '../logger.js'
import type { Credentials } from './auth/basic.js'
import { clientIpFrom } from './client-ip.js'

declare module 'hono' {
  interface ContextVariableMap {
    /** request-scoped child logger carrying `reqId` (set by the access-log middleware) */
    log: Logger
    /** client address: X-Forwarded-For, X-Real-IP, else socket peer */
    clientIp: string
    /** credentials the request presents, not verified yet (basicCredentials) */
    credentials: Credentials
    /** the authenticated user (verifyUser, tdengineAuth) */
    user: string
    /** the request body under http.maxBodySize (readBody); released when the route is done */
    body: BodyLease
  }
}

/** Socket peer address; absent under `app.request()` in tests, where there is no socket. */
export function peerAddress(c: Context): string | undefined {
  try {
    return getConnInfo(c).remote.address
  } catch {
    return undefined
  }
}

export function clientIp(c: Context): string {
  return clientIpFrom(c.req.header('X-Forwarded-For'), c.req.header('X-Real-IP'), peerAddress(c))
}
