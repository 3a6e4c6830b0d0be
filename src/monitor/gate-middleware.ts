/**
 * @module
 * Memory-gate middleware for route modules, checked before any work (auth, body read, parse):
 * `writeGate` for write endpoints (line protocol, OpenTSDB, remote write) refuses while
 * all-paused; `queryGate` for query endpoints (remote read) refuses while query-paused or
 * all-paused. Bodies are the spec's texts as JSON strings (quotes included), as the original wrote
 * them, with `Retry-After` so well-behaved clients back off instead of hammering a full adapter.
 */
import type { MiddlewareHandler } from 'hono'

/** What the middleware needs of src/monitor/gate.ts `Gate`. */
export interface GateView {
  allPaused(): boolean
  queryPaused(): boolean
}

/** Seconds clients are asked to wait (the original's value). */
export const RETRY_AFTER_SECONDS = 120

export const ALL_PAUSED_BODY = JSON.stringify('memory exceeds threshold')
export const QUERY_PAUSED_BODY = JSON.stringify('query memory exceeds threshold')

export function pausedResponse(body: string): Response {
  return new Response(body, {
    status: 503,
    headers: { 'Content-Type': 'application/json; charset=utf-8', 'Retry-After': String(RETRY_AFTER_SECONDS) },
  })
}

export function writeGate(gate: GateView): MiddlewareHandler {
  return async function writeGate(c, next) {
    if (gate.allPaused()) {
      return pausedResponse(ALL_PAUSED_BODY)
    }
    await next()
  }
}

export function queryGate(gate: GateView): MiddlewareHandler {
  return async function queryGate(c, next) {
    if (gate.allPaused()) {
      return pausedResponse(ALL_PAUSED_BODY)
    }
    if (gate.queryPaused()) {
      return pausedResponse(QUERY_PAUSED_BODY)
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
      return pausedResponse(ALL_PAUSED_BODY)
    }
    await next()
    if (c.res.status === 503 && gate.queryPaused() && !c.res.headers.has('Retry-After')) {
      c.res.headers.set('Retry-After', String(RETRY_AFTER_SECONDS))
    }
  }
}
