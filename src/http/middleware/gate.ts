/**
 * @module
 * Memory-gate middleware for route modules, checked before any work (auth, body read, parse):
 * `writeGate` for write endpoints (line protocol, OpenTSDB, remote write) refuses while
 * all-paused; `queryGate` for query endpoints (remote read) refuses while query-paused or
 * all-paused. Bodies are the spec's texts as JSON strings (quotes included, src/http/error-table.ts),
 * with `Retry-After` so well-behaved clients back off instead of hammering a full adapter.
 */
import type { MiddlewareHandler } from 'hono'
import { PAUSED_RETRY_AFTER, problems, respond } from '../error-table.js'

/** What the middleware needs of src/monitor/gate.ts `Gate`. */
export interface GateView {
  allPaused(): boolean
  queryPaused(): boolean
}

const allPaused = (): Response => respond('gateway', problems.paused('memory exceeds threshold'))
const queryPaused = (): Response => respond('gateway', problems.paused('query memory exceeds threshold'))

export function writeGate(gate: GateView): MiddlewareHandler {
  return async function writeGate(c, next) {
    if (gate.allPaused()) {
      return allPaused()
    }
    await next()
  }
}

export function queryGate(gate: GateView): MiddlewareHandler {
  return async function queryGate(c, next) {
    if (gate.allPaused()) {
      return allPaused()
    }
    if (gate.queryPaused()) {
      return queryPaused()
    }
    await next()
  }
}

/**
 * For `/rest/*`, whose handlers answer the pauses themselves (all-paused before auth, query-paused
 * after classifying the SQL, both before running anything): refuses all-paused first, with
 * `Retry-After`, and adds `Retry-After` to the handlers' query-paused 503.
 */
export function restRetryAfter(gate: GateView): MiddlewareHandler {
  return async function restGate(c, next) {
    if (gate.allPaused()) {
      return allPaused()
    }
    await next()
    if (c.res.status === 503 && gate.queryPaused() && !c.res.headers.has('Retry-After')) {
      c.res.headers.set('Retry-After', PAUSED_RETRY_AFTER)
    }
  }
}
