import type { Context } from 'hono'
import { TdError } from '../td-error.js'
import { storageUnavailableIn } from '../storage/errors.js'
import type { RestFailure } from '../http/auth/authorization.js'
import { errorBody, JSON_CONTENT_TYPE } from './encode.js'
import { statusForDbError } from './http-status.js'

/** A JSON response with the exact bytes given (key order matters to naive clients). */
export function jsonText(text: string, status: number): Response {
  return new Response(text, { status, headers: { 'Content-Type': JSON_CONTENT_TYPE } })
}

/** Request-level failures (auth, params, body): their own fixed status, never remapped. */
export function failure(f: RestFailure): Response {
  return jsonText(errorBody(f.code, f.desc), f.status)
}

/**
 * Database errors (`TdError`) and unexpected errors (reported as 65535 with their message),
 * with the status of `httpCodeServerError`. Authentication failures never get here.
 */
export function dbError(err: unknown, httpCodeServerError: boolean): Response {
  const unavailable = storageUnavailableIn(err)
  if (unavailable) {
    // the database is down or the pool is exhausted: not the request's fault, retry later
    return new Response(errorBody(65535, unavailable.message), {
      status: 503,
      headers: { 'Content-Type': JSON_CONTENT_TYPE, 'Retry-After': '1' },
    })
  }
  if (err instanceof TdError) {
    return jsonText(errorBody(err.code, err.desc), statusForDbError(err.code, httpCodeServerError))
  }
  const message = err instanceof Error ? err.message : String(err)
  return jsonText(errorBody(65535, message), statusForDbError(65535, httpCodeServerError))
}

/** 503 bodies of the memory gate are JSON strings (quotes included), as taosAdapter writes them. */
export function paused(message: 'memory exceeds threshold' | 'query memory exceeds threshold'): Response {
  return jsonText(JSON.stringify(message), 503)
}

export function queryParam(c: Context, name: string): string | undefined {
  return c.req.query(name)
}
