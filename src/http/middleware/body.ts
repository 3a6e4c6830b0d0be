/**
 * @module
 * Request-body admission as route middleware: `declaredSize` refuses a Content-Length over the
 * cap before anything is read; `readBody` reads the body under the cap (counted while reading,
 * decompressed bytes included) onto the context as a BodyLease, released when the route is done.
 * With a BodyPool the body is read straight into a shared slab (no copy on its way to the parse
 * workers). Refusals are rendered by the route (src/http/error-table.ts).
 */
import type { MiddlewareHandler } from 'hono'
import { BodyLease, type BodyPool } from '../../ingest/body-pool.js'
import { declaredTooLarge, leaseIngestBody, nodeIncoming, readIngestBody, type BodyRefusal } from '../body-read.js'
import '../context.js'

/** 413 (by `refuse`) when the declared Content-Length is over `limit` bytes (0: no cap). */
export function declaredSize(limit: number, refuse: (limit: number) => Response): MiddlewareHandler {
  return async function declaredSize(c, next) {
    if (declaredTooLarge(c.req.raw, limit)) {
      return refuse(limit)
    }
    await next()
  }
}

export interface ReadBodyOptions {
  /** http.maxBodySize (0: no cap) */
  limit: number
  /** read bodies of declared length into slabs of this pool */
  pool?: BodyPool
  refuse: (refusal: BodyRefusal) => Response
}

export function readBody(opts: ReadBodyOptions): MiddlewareHandler {
  const { limit, pool, refuse } = opts
  return async function readBody(c, next) {
    const incoming = nodeIncoming(c.env)
    let lease: BodyLease
    if (pool === undefined) {
      const read = await readIngestBody(c.req.raw, limit, incoming)
      if (!Buffer.isBuffer(read)) {
        return refuse(read)
      }
      lease = new BodyLease(read)
    } else {
      const read = await leaseIngestBody(c.req.raw, limit, incoming, pool)
      if (!(read instanceof BodyLease)) {
        return refuse(read)
      }
      lease = read
    }
    c.set('body', lease)
    try {
      await next()
    } finally {
      lease.release()
    }
  }
}
