/**
 * @module
 * Health endpoints. `/-/ping` is readiness as the spec defines it (memory gate, `action=query`),
 * plus 503 while draining at shutdown. `/-/live` is liveness: 200, never gated, so an
 * orchestrator does not restart a process that is merely shedding load; 503 only when storage has
 * failed for good (an embedded database DuckDB invalidated), which only a restart cures.
 */
import { Hono } from 'hono'
import type { Gate } from './gate.js'

const EMPTY = { 'Content-Length': '0' }

export interface HealthDeps {
  gate: Gate
  /**
   * Storage readiness (catalog loaded and the backend answers). When given, `/-/ping?action=query`
   * is 503 while it is false: queries cannot be served (e.g. PostgreSQL is down).
   */
  storageHealthy?: () => Promise<boolean>
  /** the backend's fatal error (Engine.fatalError): `/-/live` answers 503 so the pod is restarted */
  storageFatal?: () => Promise<string | undefined>
}

export function createHealthRoutes({ gate, storageHealthy, storageFatal }: HealthDeps): Hono {
  const app = new Hono()

  app.get('/-/ping', async function ping(c) {
    const query = c.req.query('action') === 'query'
    const refused =
      gate.draining ||
      (query ? gate.queryPaused() : gate.allPaused()) ||
      (query && storageHealthy !== undefined && !(await storageHealthy()))
    // Empty body, no content type, explicit length 0 (as the original): status only.
    return c.body(null, refused ? 503 : 200, EMPTY)
  })

  app.get('/-/live', async function live(c) {
    const fatal = storageFatal === undefined ? undefined : await storageFatal()
    return c.body(null, fatal === undefined ? 200 : 503, EMPTY)
  })

  return app
}
