/**
 * @module
 * Limits of the HTTP server itself, below the routes: how long a client may take to send its
 * headers and its whole request (a slow body holds a connection and a body buffer), how many
 * connections may be open at once, and the answers Node's HTTP parser gives on its own (headers
 * too large, malformed requests, timeouts), as JSON in the format of the endpoint asked for
 * instead of Node's bare status lines.
 * Keep-alive and the drain on shutdown are src/lifecycle.ts's.
 */
import type { Server } from 'node:http'
import type { Socket } from 'node:net'
import { problemBody, type Protocol } from './error-table.js'

export interface ServerLimits {
  /** the whole request (headers and body) must arrive within this (ms) */
  requestTimeoutMs: number
  /** the headers must arrive within this (ms) */
  headersTimeoutMs: number
  /** how often Node checks the two timeouts (ms): the precision of both */
  checkIntervalMs: number
  /** connections open at once; more are closed as they arrive (0: no cap) */
  maxConnections: number
}

/**
 * 64 MB (http.maxBodySize's default) at 0.5 MB/s fits in two minutes; headers are a few KB.
 * Node's defaults (300 s, 60 s, checked every 30 s) let a slow client hold a connection for
 * five minutes.
 */
export const DEFAULT_SERVER_LIMITS: ServerLimits = {
  requestTimeoutMs: 120_000,
  headersTimeoutMs: 20_000,
  checkIntervalMs: 1_000,
  maxConnections: 0,
}

/** The status and text of each error Node's HTTP parser reports (`clientError`). */
function clientProblem(err: Error & { code?: string }): { status: number; reason: string; desc: string } {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, reason: 'Request Header Fields Too Large', desc: 'request headers too large (more than Node\'s --max-http-header-size, 16 KB by default)' }
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, reason: 'Payload Too Large', desc: 'chunk extensions of the request body too large' }
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, reason: 'Request Timeout', desc: 'the request did not arrive in time (headers or body too slow)' }
    default:
      return { status: 400, reason: 'Bad Request', desc: `malformed HTTP request: ${err.message}${err.code ? ` (${err.code})` : ''}` }
  }
}

/** The request path in the request line at the start of `raw`, if any. */
export function pathOfPacket(raw: Buffer | undefined): string | undefined {
  const line = raw?.subarray(0, 256).toString('latin1') ?? ''
  return /^[A-Z]+ (\/\S*)/.exec(line)?.[1]
}

/** The endpoint's error format for a request path (gateway when unknown). */
export function protocolOfPath(path: string | undefined): Protocol {
  const p = path ?? ''
  if (p.startsWith('/rest/')) {
    return 'tdengine'
  }
  if (p.startsWith('/lineproto/')) {
    return 'influxdb'
  }
  if (p.startsWith('/tsdbproto/')) {
    return 'opentsdb'
  }
  if (p.startsWith('/metricsproto/')) {
    return 'prometheus'
  }
  return 'gateway'
}

/** The raw HTTP answer to a parser error or timeout on a request for `path`; the connection closes after it. */
export function clientErrorResponse(err: Error & { code?: string }, path: string | undefined): string {
  const { status, reason, desc } = clientProblem(err)
  const body = problemBody(protocolOfPath(path), { status, desc })
  return (
    `HTTP/1.1 ${status} ${reason}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  )
}

/** How long a socket answered with a parser error may linger before it is destroyed (ms). */
const LINGER_MS = 2_000

/**
 * Applies `limits` to `server` (before it listens: Node starts its timeout checks on
 * 'listening'), and answers parser errors as JSON.
 */
export function applyServerLimits(server: Server, limits: ServerLimits = DEFAULT_SERVER_LIMITS): void {
  server.requestTimeout = limits.requestTimeoutMs
  // Node requires headersTimeout <= requestTimeout
  server.headersTimeout = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs)
  ;(server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = limits.checkIntervalMs
  if (limits.maxConnections > 0) {
    server.maxConnections = limits.maxConnections
  }
  const answered = new WeakSet<Socket>()
  server.on('clientError', (err: Error & { code?: string }, socket: Socket) => {
    if (answered.has(socket)) {
      // the parser fails again on bytes still arriving: the answer is already on its way
      return
    }
    answered.add(socket)
    // a reset client, or a response in flight that has started: nothing sensible to write
    // (as Node's own handler decides; `_httpMessage` is the socket's in-flight ServerResponse)
    const inflight = (socket as Socket & { _httpMessage?: { headersSent?: boolean; req?: { url?: string } } | null })._httpMessage
    if (err.code === 'ECONNRESET' || !socket.writable || inflight?.headersSent === true) {
      socket.destroy()
      return
    }
    // the path: from the bytes the parser failed on, or the request whose body timed out
    const path = pathOfPacket((err as { rawPacket?: Buffer }).rawPacket) ?? inflight?.req?.url
    socket.end(clientErrorResponse(err, path))
    setTimeout(() => socket.destroy(), LINGER_MS).unref()
  })
}
