/**
 * @module
 * Accepts gzip request bodies (`Content-Encoding: gzip`), as the original's gzip middleware does:
 * the body is decompressed as a stream while the handler reads it, so memory stays bounded, and
 * the decompressed size is capped (`http.maxBodySize`) because a few KB of gzip can expand to GBs.
 * Over the cap -> 413; corrupt gzip -> 400 (both via GatewayError). Other encodings (e.g. snappy
 * for remote write) pass through untouched for their handlers.
 */
import type { MiddlewareHandler } from 'hono'
import { GatewayError } from '../gateway-error.js'

export interface GunzipOptions {
  /** maximum decompressed size in bytes; 0 or less disables the cap */
  maxBodySize: number
}

const GZIP_ENCODING = /^\s*(x-)?gzip\s*$/i

export function gunzip({ maxBodySize }: GunzipOptions): MiddlewareHandler {
  return async function gunzip(c, next) {
    const raw = c.req.raw
    const encoding = raw.headers.get('Content-Encoding')
    if (!encoding || !GZIP_ENCODING.test(encoding) || !raw.body) {
      await next()
      return
    }
    const headers = new Headers(raw.headers)
    headers.delete('Content-Encoding')
    headers.delete('Content-Length')
    c.req.raw = new Request(raw.url, {
      method: raw.method,
      headers,
      body: limitedGunzip(raw.body, maxBodySize),
      signal: raw.signal,
      // required by fetch for a streamed request body
      duplex: 'half',
    } as RequestInit)
    await next()
  }
}

/** Streams `body` through gunzip, failing with a GatewayError past `limit` decompressed bytes. */
function limitedGunzip(body: ReadableStream<Uint8Array>, limit: number): ReadableStream<Uint8Array> {
  // the DOM and node typings of DecompressionStream disagree on the chunk type; both are bytes
  const inflate = new DecompressionStream('gzip') as unknown as ReadableWritablePair<Uint8Array, Uint8Array>
  const reader = body.pipeThrough(inflate).getReader()
  let total = 0
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk: Awaited<ReturnType<typeof reader.read>>
      try {
        chunk = await reader.read()
      } catch (cause) {
        const detail = cause instanceof Error ? cause.message : String(cause)
        throw new GatewayError('invalid_argument', `gzip request body cannot be decompressed: ${detail}`, { cause })
      }
      if (chunk.done) {
        controller.close()
        return
      }
      total += chunk.value.byteLength
      if (limit > 0 && total > limit) {
        await reader.cancel().catch(() => undefined)
        throw new GatewayError('payload_too_large', `decompressed request body exceeds http.maxBodySize (${limit} bytes)`)
      }
      controller.enqueue(chunk.value)
    },
    async cancel(reason) {
      await reader.cancel(reason)
    },
  })
}
