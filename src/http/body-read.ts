/**
 * @module
 * Reading a request body under http.maxBodySize, for every route that reads one: the declared
 * Content-Length is checked before reading (413), bytes are counted while reading (413 past the
 * cap, gunzip's decompressed bytes included), and a body of declared length is read straight from
 * Node's request stream into memory of the caller's choice (a BodyPool slab: no copy).
 */
import { IncomingMessage } from 'node:http'
import { GatewayError } from './gateway-error.js'
import { BodyLease, type BodyPool } from '../ingest/body-pool.js'

/** Thrown when a body is larger than allowed; endpoints answer 413. */
export class BodyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`request body exceeds http.maxBodySize (${limit} bytes)`)
    this.name = 'BodyTooLarge'
  }
}

/** The request's Content-Length, when it declares a usable one. */
function declaredLength(req: Request): number | undefined {
  const cl = req.headers.get('Content-Length')
  return cl === null || !/^\d+$/.test(cl.trim()) ? undefined : Number(cl)
}

/** The declared Content-Length when it is already over `limit` (checked before reading anything). */
export function declaredTooLarge(req: Request, limit: number): boolean {
  const declared = declaredLength(req)
  return limit > 0 && declared !== undefined && declared > limit
}

/**
 * The length of a body that can be read straight from Node's request stream (`incoming`): one
 * that declares its Content-Length within `limit` and that no middleware replaced (gunzip gives
 * the handler a decompressed stream without a Content-Length).
 */
export function directLength(req: Request, incoming: IncomingMessage | undefined, limit: number): number | undefined {
  const declared = declaredLength(req)
  if (incoming === undefined || declared === undefined || (limit > 0 && declared > limit) || req.headers.has('Content-Encoding')) {
    return undefined
  }
  // someone read (part of) it already: the stream cannot give the whole body any more
  return incoming.readableDidRead || incoming.headers['content-length'] !== String(declared) ? undefined : declared
}

/**
 * Reads exactly `into.length` body bytes from Node's request stream into `into`. Node's HTTP
 * parser hands over exactly the declared bytes, so nothing is read past them; a client that
 * goes away first fails the read. Each chunk is copied once, where it belongs.
 */
export function readIncomingInto(incoming: IncomingMessage, into: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    let at = 0
    let settled = false
    const finish = (err?: Error): void => {
      if (settled) {
        return
      }
      settled = true
      incoming.off('data', onData)
      incoming.off('end', onEnd)
      incoming.off('error', onError)
      incoming.off('close', onClose)
      if (err === undefined) {
        resolve()
      } else {
        reject(err)
      }
    }
    const onData = (chunk: Buffer): void => {
      if (at + chunk.length > into.length) {
        finish(new Error(`request body is longer than its Content-Length (${into.length} bytes)`))
        return
      }
      into.set(chunk, at)
      at += chunk.length
    }
    const onEnd = (): void =>
      finish(at === into.length ? undefined : new Error(`request body ended after ${at} of its ${into.length} bytes`))
    // Node reports a client that went away as an error "aborted" (ECONNRESET), or only closes
    const gone = (why: string, cause?: Error): Error => new Error(`client connection ${why} after ${at} of the body's ${into.length} bytes`, { cause })
    const onError = (err: Error & { code?: string }): void => finish(err.code === 'ECONNRESET' ? gone('reset', err) : err)
    const onClose = (): void => finish(gone('closed'))
    incoming.on('data', onData)
    incoming.on('end', onEnd)
    incoming.on('error', onError)
    incoming.on('close', onClose)
    if (incoming.readableEnded) {
      onEnd()
    } else if (incoming.errored !== null) {
      onError(incoming.errored)
    } else if (incoming.destroyed) {
      onClose()
    }
  })
}

/**
 * Reads the whole body, failing with BodyTooLarge past `limit` bytes (0 or less: no cap).
 * Chunked uploads and decompressed gzip bodies carry no usable Content-Length, so bytes are
 * counted as they arrive and reading stops at the cap. With Node's request stream (`incoming`)
 * a body of declared length is read from it into one buffer from `alloc` (see readIncomingInto).
 */
export async function readBodyBytes(
  req: Request,
  limit: number,
  incoming?: IncomingMessage,
  alloc: (n: number) => Buffer = Buffer.allocUnsafe,
): Promise<Buffer> {
  const direct = directLength(req, incoming, limit)
  if (direct !== undefined && incoming !== undefined) {
    const into = alloc(direct)
    await readIncomingInto(incoming, into)
    return into
  }
  const declared = declaredLength(req)
  if (declared !== undefined && (limit <= 0 || declared <= limit)) {
    // Node's HTTP parser hands over exactly the declared bytes, so reading them whole is bounded.
    // @hono/node-server reads them straight from the socket's stream this way, without building
    // a fetch Request and web streams around it: ~0.35 ms of the main thread per 5000-line write.
    return Buffer.from(await req.arrayBuffer())
  }
  const body = req.body
  if (body === null) {
    return Buffer.alloc(0)
  }
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) {
      break
    }
    total += value.byteLength
    if (limit > 0 && total > limit) {
      await reader.cancel().catch(() => undefined)
      throw new BodyTooLarge(limit)
    }
    chunks.push(value)
  }
  if (chunks.length === 1) {
    return Buffer.from(chunks[0].buffer, chunks[0].byteOffset, chunks[0].byteLength)
  }
  return Buffer.concat(chunks, total)
}

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
