/**
 * @module
 * The app's error handlers: handlers and middleware throw `GatewayError` (gateway-error.ts) for
 * expected failures; `createErrorHandler` answers every thrown error through the error table
 * (`{"code": <int>, "desc": <string>}`, the spec's error body) and never sends a stack trace.
 */
import type { ErrorHandler, NotFoundHandler } from 'hono'
import { HTTPException } from 'hono/http-exception'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import type { Logger } from '../logger.js'
import { storageUnavailableIn } from '../storage/errors.js'
import { inputTooComplex, problemBody, problems, STATUS, type Problem } from './error-table.js'
import { GatewayError } from './gateway-error.js'

/** The gateway's body of `problem`, through the context (so headers set on it stay). */
function answer(c: Parameters<ErrorHandler>[1], problem: Problem): Response {
  for (const [name, value] of Object.entries(problem.headers ?? {})) {
    c.header(name, value)
  }
  return c.body(problemBody('gateway', problem), problem.status as ContentfulStatusCode, { 'Content-Type': 'application/json' })
}

export function notFoundHandler(): NotFoundHandler {
  return function notFound(c) {
    return answer(c, { status: 404, desc: `endpoint does not exist: ${c.req.path}` })
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
      if (err.code === 'internal' || err.code === 'unavailable') {
        logger.error({ err, reqId: requestId }, 'request failed')
      } else {
        logger.debug({ reqId: requestId, code: err.code, msg: err.message }, 'request rejected')
      }
      return answer(c, { status: err.status, desc: err.message })
    }
    if (err instanceof HTTPException) {
      // Hono's own middleware (body limit, basic auth ...) carry a prepared response or status.
      if (err.res) {
        return err.getResponse()
      }
      return answer(c, { status: err.status, desc: err.message || 'request failed' })
    }
    const tooComplex = inputTooComplex(err)
    if (tooComplex !== undefined) {
      // a stack overflow on hostile input is the input's fault, and the server runs on
      logger.debug({ reqId: requestId, msg: err.message }, 'request rejected')
      return answer(c, problems.badRequest(tooComplex))
    }
    const unavailable = storageUnavailableIn(err)
    if (unavailable) {
      // storage down at any step of any route (a login check before the catalog has loaded):
      // transient, so 503 and a retry hint rather than a 500 that agents treat as final
      logger.warn({ reqId: requestId, reason: unavailable.message }, 'storage unavailable')
      return answer(c, problems.storageUnavailable(unavailable.message))
    }
    logger.error({ err, reqId: requestId }, 'unhandled error')
    return answer(c, {
      status: STATUS.internal,
      desc: requestId ? `internal error (request id ${requestId})` : 'internal error',
    })
  }
}
