/**
 * @module
 * One error model for the HTTP layer: handlers and middleware throw `GatewayError` for expected
 * failures; one table maps its code to an HTTP status; `createErrorHandler` renders every error as
 * `{"code": <int>, "desc": <string>}` (the spec's error body) and never sends a stack trace.
 */
import type { ErrorHandler, NotFoundHandler } from 'hono'
import { HTTPException } from 'hono/http-exception'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import type { Logger } from '../logger.js'
import { storageUnavailableIn } from '../storage/errors.js'

export type GatewayErrorCode =
  | 'invalid_argument'
  | 'unauthorized'
  | 'not_found'
  | 'payload_too_large'
  | 'resource_exhausted'
  | 'unavailable'
  | 'timeout'
  | 'internal'

export const STATUS_BY_CODE: Record<GatewayErrorCode, ContentfulStatusCode> = {
  invalid_argument: 400,
  unauthorized: 401,
  not_found: 404,
  payload_too_large: 413,
  resource_exhausted: 503,
  unavailable: 503,
  timeout: 504,
  internal: 500,
}

export class GatewayError extends Error {
  readonly code: GatewayErrorCode

  constructor(code: GatewayErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'GatewayError'
    this.code = code
  }

  get status(): ContentfulStatusCode {
    return STATUS_BY_CODE[this.code]
  }
}

/** The spec's error body: `code` (int) and `desc` (string). */
export interface ErrorBody {
  code: number
  desc: string
}

export function notFoundHandler(): NotFoundHandler {
  return function notFound(c) {
    const body: ErrorBody = { code: 404, desc: `endpoint does not exist: ${c.req.path}` }
    return c.json(body, 404)
  }
}

/**
 * Renders thrown errors. Expected errors (GatewayError below 500, HTTPException) log at debug;
 * internal ones log once at error level with the stack (logs only, never the response).
 */
export function createErrorHandler(logger: Logger): ErrorHandler {
  return function onError(err, c) {
    const requestId = c.get('requestId') as string | undefined
    if (err instanceof GatewayError) {
      const status = err.status
      if (err.code === 'internal' || err.code === 'unavailable') {
        logger.error({ err, reqId: requestId }, 'request failed')
      } else {
        logger.debug({ reqId: requestId, code: err.code, msg: err.message }, 'request rejected')
      }
      const body: ErrorBody = { code: status, desc: err.message }
      return c.json(body, status)
    }
    if (err instanceof HTTPException) {
      // Hono's own middleware (body limit, basic auth ...) carry a prepared response or status.
      if (err.res) {
        return err.getResponse()
      }
      const status = err.status as ContentfulStatusCode
      const body: ErrorBody = { code: status, desc: err.message || 'request failed' }
      return c.json(body, status)
    }
    const unavailable = storageUnavailableIn(err)
    if (unavailable) {
      // storage down at any step of any route (a login check before the catalog has loaded):
      // transient, so 503 and a retry hint rather than a 500 that agents treat as final
      logger.warn({ reqId: requestId, reason: unavailable.message }, 'storage unavailable')
      c.header('Retry-After', '1')
      const body: ErrorBody = { code: 503, desc: unavailable.message }
      return c.json(body, 503)
    }
    logger.error({ err, reqId: requestId }, 'unhandled error')
    const body: ErrorBody = {
      code: 500,
      desc: requestId ? `internal error (request id ${requestId})` : 'internal error',
    }
    return c.json(body, 500)
  }
}
