import { IncomingMessage } from 'node:http'
import { GatewayError } from '../http/errors.js'
import { BodyLease, type BodyPool } from '../ingest/body-pool.js'
import { BodyTooLarge, readBodyBytes } from '../ingest/schemaless/request.js'

/** Why a body could not be read, as the status the write endpoints answer. */
export interface BodyRefusal {
  status: number
  message: string
}

/**
 * The request body under the size cap, or the refusal: 413 past http.maxBodySize (decompressed
 * size included), the gateway's own status (corrupt gzip ...), else 400. Each endpoint renders
 * the refusal in its own error format. `incoming`: Node's request stream, when served by
 * @hono/node-server (`c.env.incoming`); a body of declared length is then read from it directly,
 * into memory from `alloc`.
 */
export async function readIngestBody(
  req: Request,
  limit: number,
  incoming?: IncomingMessage,
  alloc?: (n: number) => Buffer,
): Promise<Buffer | BodyRefusal> {
  try {
    return await readBodyBytes(req, limit, incoming, alloc)
  } catch (err) {
    return refusal(err)
  }
}

/**
 * readIngestBody into a slab of `pool` when the body can be read from `incoming` directly; other
 * bodies (gzip, chunked, no Node stream) come in a lease of their own memory. The caller
 * releases the lease when it no longer reads the bytes.
 */
export async function leaseIngestBody(req: Request, limit: number, incoming: IncomingMessage | undefined, pool: BodyPool): Promise<BodyLease | BodyRefusal> {
  let lease: BodyLease | undefined
  const read = await readIngestBody(req, limit, incoming, (n) => (lease = pool.lease(n)).bytes)
  if (!Buffer.isBuffer(read)) {
    lease?.release()
    return read
  }
  return lease ?? new BodyLease(read)
}

function refusal(err: unknown): BodyRefusal {
  if (err instanceof BodyTooLarge) {
    return { status: 413, message: err.message }
  }
  if (err instanceof GatewayError) {
    return { status: err.status, message: err.message }
  }
  return { status: 400, message: `reading the request body failed: ${err instanceof Error ? err.message : String(err)}` }
}

/** Node's request stream behind a Hono context served by @hono/node-server (absent under app.request in tests). */
export function nodeIncoming(env: unknown): IncomingMessage | undefined {
  const incoming = (env as { incoming?: unknown } | undefined)?.incoming
  return incoming instanceof IncomingMessage ? incoming : undefined
}
