/**
 * @module
 * Request id: reuses a sane incoming `X-Request-Id` (<= 255 chars of [A-Za-z0-9_-=]) or makes a
 * UUID, stores it as `c.get('requestId')` and echoes it in the response header. Hono's own
 * middleware does exactly this; the wrapper pins our header name and typed context variable.
 */
import type { MiddlewareHandler } from 'hono'
import { requestId as honoRequestId } from 'hono/request-id'

const REQUEST_ID_HEADER = 'X-Request-Id'

export interface RequestIdOptions {
  generator?: () => string
}

export function requestId({ generator }: RequestIdOptions = {}): MiddlewareHandler {
  return honoRequestId({
    headerName: REQUEST_ID_HEADER,
    limitLength: 255,
    ...(generator ? { generator: () => generator() } : {}),
  })
}
