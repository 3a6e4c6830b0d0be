/**
 * @module
 * The error handlers and middleware throw for expected failures: a code, and the HTTP status the
 * code answers with (rendered by src/http/errors.ts through the error table).
 */
import type { ContentfulStatusCode } from 'hono/utils/http-status'

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
