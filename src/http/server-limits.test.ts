import { createServer, type Server } from 'node:http'
import { connect, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { applyServerLimits, clientErrorResponse, DEFAULT_SERVER_LIMITS, pathOfPacket, protocolOfPath, type ServerLimits } from './server-limits.js'

/** A real HTTP server with the limits, whose handler reads the whole body and answers 200. */
async function serve(limits: Partial<ServerLimits>): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => res.end('ok'))
  })
  applyServerLimits(server, { ...DEFAULT_SERVER_LIMITS, ...limits })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, port: (server.address() as AddressInfo).port }
}

/** Everything the server sends on a raw connection until it closes it (or `ms` pass). */
function exchange(port: number, send: (s: Socket) => void, ms = 10_000): Promise<{ text: string; closed: boolean; elapsed: number }> {
  return new Promise((resolve) => {
    const started = Date.now()
    const socket = connect(port, '127.0.0.1')
    let text = ''
    const timer = setTimeout(() => {
      socket.destroy()
      resolve({ text, closed: false, elapsed: Date.now() - started })
    }, ms)
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1')
    })
    socket.on('error', () => undefined)
    socket.on('close', () => {
      clearTimeout(timer)
      resolve({ text, closed: true, elapsed: Date.now() - started })
    })
    socket.on('connect', () => send(socket))
  })
}

function jsonOf(text: string): unknown {
  return JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))
}

describe('HTTP server limits', () => {
  let server: Server | undefined

  afterEach(async () => {
    const s = server
    server = undefined
    if (s !== undefined) {
      s.closeAllConnections()
      await new Promise((r) => s.close(r))
    }
  })

  it('a request whose headers never finish gets a JSON 408 after headersTimeout', async () => {
    // (the path is unknown until the headers are parsed: the gateway's format)
    const s = await serve({ headersTimeoutMs: 500, requestTimeoutMs: 5_000, checkIntervalMs: 100 })
    server = s.server
    const got = await exchange(s.port, (sock) => sock.write('POST /lineproto/v1/write HTTP/1.1\r\nHost: x\r\n'))
    expect(got.closed).toBe(true)
    expect(got.elapsed).toBeGreaterThanOrEqual(400)
    expect(got.elapsed).toBeLessThan(3_000)
    expect(got.text).toMatch(/^HTTP\/1\.1 408 /)
    expect(got.text).toContain('Content-Type: application/json')
    expect(jsonOf(got.text)).toEqual({ code: 408, desc: 'the request did not arrive in time (headers or body too slow)' })
  })

  it('a body that trickles in slower than requestTimeout allows gets a JSON 408 and the connection closes', async () => {
    const s = await serve({ headersTimeoutMs: 500, requestTimeoutMs: 1_000, checkIntervalMs: 100 })
    server = s.server
    let timer: NodeJS.Timeout | undefined
    const got = await exchange(s.port, (sock) => {
      sock.write('POST /rest/sql HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n')
      // one byte every 100 ms: 1000 bytes would take 100 s
      timer = setInterval(() => sock.writable && sock.write('x'), 100)
    })
    clearInterval(timer)
    expect(got.closed).toBe(true)
    expect(got.elapsed).toBeLessThan(4_000)
    expect(got.text).toMatch(/^HTTP\/1\.1 408 /)
    expect(jsonOf(got.text)).toEqual({ code: 65535, desc: 'the request did not arrive in time (headers or body too slow)' })
  })

  it('a request that arrives in time is answered normally', async () => {
    const s = await serve({ headersTimeoutMs: 500, requestTimeoutMs: 1_000, checkIntervalMs: 100 })
    server = s.server
    const got = await exchange(s.port, (sock) => sock.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi'))
    expect(got.text).toMatch(/^HTTP\/1\.1 200 /)
  })

  it('headers over Node\'s limit get a JSON 431', async () => {
    const s = await serve({})
    server = s.server
    const got = await exchange(s.port, (sock) => sock.write(`GET /-/ping HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`))
    expect(got.text).toMatch(/^HTTP\/1\.1 431 /)
    expect(jsonOf(got.text)).toMatchObject({ code: 431, desc: expect.stringContaining('headers too large') })
  })

  it('a malformed request gets a JSON 400 naming what is wrong', async () => {
    const s = await serve({})
    server = s.server
    const got = await exchange(s.port, (sock) => sock.write('GET /-/ping HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n'))
    expect(got.text).toMatch(/^HTTP\/1\.1 400 /)
    expect(jsonOf(got.text)).toMatchObject({ code: 400, desc: expect.stringMatching(/^malformed HTTP request: .*HPE_/) })
  })

  it('connections beyond maxConnections are closed as they arrive; those within are served', async () => {
    const s = await serve({ maxConnections: 2 })
    server = s.server
    const held = [connect(s.port, '127.0.0.1'), connect(s.port, '127.0.0.1')]
    await Promise.all(held.map((c) => new Promise((r) => c.on('connect', r))))
    // give the server the time to accept both
    await new Promise((r) => setTimeout(r, 100))
    const third = await exchange(s.port, (sock) => sock.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n'), 3_000)
    expect(third.closed).toBe(true)
    expect(third.text).toBe('')
    held[0].destroy()
    await new Promise((r) => setTimeout(r, 100))
    const later = await exchange(s.port, (sock) => sock.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'))
    expect(later.text).toMatch(/^HTTP\/1\.1 200 /)
    held[1].destroy()
  })

  it('writes each endpoint\'s error format', () => {
    expect(pathOfPacket(Buffer.from('POST /rest/sql HTTP/1.1\r\n'))).toBe('/rest/sql')
    expect(pathOfPacket(Buffer.from('X-Header: 1\r\n'))).toBeUndefined()
    expect(protocolOfPath('/rest/sql')).toBe('tdengine')
    expect(protocolOfPath('/lineproto/v1/write')).toBe('influxdb')
    expect(protocolOfPath('/tsdbproto/v1/put/json/db')).toBe('opentsdb')
    expect(protocolOfPath('/metricsproto/v1/remote_write/db')).toBe('prometheus')
    expect(protocolOfPath(undefined)).toBe('gateway')
    const text = clientErrorResponse(Object.assign(new Error('x'), { code: 'HPE_HEADER_OVERFLOW' }), '/rest/sql')
    const body = text.slice(text.indexOf('\r\n\r\n') + 4)
    expect(text).toContain(`Content-Length: ${Buffer.byteLength(body)}\r\n`)
    expect(JSON.parse(body)).toMatchObject({ code: 65535 })
  })
})
