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

/** `/-/ping`'s status (`action=query` when `query`); synchronous unless storage must be asked. */
export function pingStatus({ gate, storageHealthy }: HealthDeps, query: boolean): number | Promise<number> {
  if (gate.draining || (query ? gate.queryPaused() : gate.allPaused())) {
    return 503
  }
  if (query && storageHealthy !== undefined) {
    return storageHealthy().then((ok) => (ok ? 200 : 503))
  }
  return 200
}

/** `/-/live`'s status; synchronous when there is no storage check. */
export function liveStatus({ storageFatal }: HealthDeps): number | Promise<number> {
  if (storageFatal === undefined) {
    return 200
  }
  return storageFatal().then((fatal) => (fatal === undefined ? 200 : 503))
}

export function createHealthRoutes(deps: HealthDeps): Hono {
  const app = new Hono()

  app.get('/-/ping', async function ping(c) {
    const status = await pingStatus(deps, c.req.query('action') === 'query')
    // Empty body, no content type, explicit length 0 (as the original): status only.
    return c.body(null, status as 200 | 503, EMPTY)
  })

  app.get('/-/live', async function live(c) {
    return c.body(null, (await liveStatus(deps)) as 200 | 503, EMPTY)
  })

  return app
}
