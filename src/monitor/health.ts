/**
 * @module
 * Health endpoints. `/-/ping` is readiness as the spec defines it (memory gate, `action=query`),
 * plus 503 while draining at shutdown. `/-/live` is liveness: always 200, never gated, so an
 * orchestrator does not restart a process that is merely shedding load.
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
}

export function createHealthRoutes({ gate, storageHealthy }: HealthDeps): Hono {
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

  app.get('/-/live', function live(c) {
    return c.body(null, 200, EMPTY)
  })

  return app
}
