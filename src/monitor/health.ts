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
}

export function createHealthRoutes({ gate }: HealthDeps): Hono {
  const app = new Hono()

  app.get('/-/ping', function ping(c) {
    const refused =
      gate.draining || (c.req.query('action') === 'query' ? gate.queryPaused() : gate.allPaused())
    // Empty body, no content type, explicit length 0 (as the original): status only.
    return c.body(null, refused ? 503 : 200, EMPTY)
  })

  app.get('/-/live', function live(c) {
    return c.body(null, 200, EMPTY)
  })

  return app
}
