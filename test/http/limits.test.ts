/**
 * Issue 33, "every endpoint enforces http.maxBodySize before reading" and "statuses that tell the
 * truth", through a real adapter (http.maxBodySize 512 KiB): declared and chunked oversize bodies
 * on /rest/sql and on every write route answer 413 at once in the route's format; gzip bodies are
 * counted as they inflate; oversized headers, malformed requests, unknown paths and input too
 * deep for the parsers get JSON with a 4xx, and the server runs on.
 */
import { connect } from 'node:net'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningAdapter } from '../../src/lifecycle.js'
import { ROOT_AUTH, sql, sqlRows, startIngestServer } from '../ingest/server.js'
import { sendOversize } from '../lib/oversize.js'

const CAP = 512 * 1024
const CAP_TEXT = `http.maxBodySize (${CAP} bytes)`

interface Route {
  name: string
  path: string
  /** what the route's 413 body looks like */
  check: (json: Record<string, unknown> | undefined) => void
}

const tdengine = (json: Record<string, unknown> | undefined): void => {
  expect(json).toEqual({ code: 65535, desc: `request body exceeds ${CAP_TEXT}` })
}
const influx = (json: Record<string, unknown> | undefined): void => {
  expect(json).toMatchObject({ code: 413, desc: expect.stringContaining(CAP_TEXT), error: expect.stringContaining(CAP_TEXT) })
}
const opentsdb = (json: Record<string, unknown> | undefined): void => {
  expect(json).toMatchObject({ code: 413, message: expect.stringContaining(CAP_TEXT), desc: expect.stringContaining(CAP_TEXT) })
}

const ROUTES: Route[] = [
  { name: '/rest/sql', path: '/rest/sql', check: tdengine },
  { name: '/rest/sql/{db}', path: '/rest/sql/lim', check: tdengine },
  { name: 'vgid POST', path: '/rest/sql/lim/vgid', check: tdengine },
  { name: 'line protocol', path: '/lineproto/v1/write?db=lim', check: influx },
  { name: 'OpenTSDB JSON', path: '/tsdbproto/v1/put/json/lim', check: opentsdb },
  { name: 'OpenTSDB telnet', path: '/tsdbproto/v1/put/telnet/lim', check: opentsdb },
  { name: 'remote write', path: '/metricsproto/v1/remote_write/lim', check: influx },
  { name: 'remote read', path: '/metricsproto/v1/remote_read/lim', check: influx },
]

/** Sends raw bytes and collects what comes back until the server closes the connection. */
function raw(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let text = ''
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`no close within 5 s; got ${text}`))
    }, 5_000)
    socket.on('connect', () => socket.write(bytes))
    socket.on('data', (d: Buffer) => {
      text += d.toString('utf8')
    })
    socket.on('error', () => undefined)
    socket.on('close', () => {
      clearTimeout(timer)
      resolve(text)
    })
  })
}

function bodyOf(response: string): unknown {
  return JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4))
}

describe('request limits through a real adapter (http.maxBodySize 512 KiB)', () => {
  let adapter: RunningAdapter

  beforeAll(async () => {
    adapter = await startIngestServer((c) => {
      c.http.maxBodySize = CAP
    })
    await sql(adapter.url, 'create database lim')
  }, 60_000)

  afterAll(async () => {
    await adapter?.stop()
  })

  describe.each(ROUTES)('$name', (route) => {
    it('a declared Content-Length over the cap answers 413 at once, without reading the body', async () => {
      const answer = await sendOversize(`${adapter.url}${route.path}`, { Authorization: ROOT_AUTH }, { declared: 2_147_483_648 })
      expect(answer.status).toBe(413)
      expect(answer.headers['content-type']).toMatch(/^application\/json/)
      route.check(answer.json)
      expect(answer.ms).toBeLessThan(1_000)
    })

    it('a chunked body is refused with 413 the moment it passes the cap', async () => {
      const answer = await sendOversize(`${adapter.url}${route.path}`, { Authorization: ROOT_AUTH }, { chunk: Buffer.alloc(64 * 1024, 0x41), max: 512 * 1024 * 1024 })
      expect(answer.status).toBe(413)
      route.check(answer.json)
      // the answer came long before the 512 MB were sent (socket buffers hold a few MB)
      expect(answer.sent).toBeLessThan(64 * 1024 * 1024)
      expect(answer.ms).toBeLessThan(5_000)
    })
  })

  it('a body just under the cap is still accepted (a large INSERT)', async () => {
    await sql(adapter.url, 'create table lim.t (ts timestamp, v int)')
    const values: string[] = []
    for (let i = 0, len = 0; len < CAP - 64 * 1024; i++) {
      const v = `(${1_700_000_000_000 + i}, ${i})`
      values.push(v)
      len += v.length + 1
    }
    const statement = `insert into lim.t values ${values.join(' ')}`
    expect(Buffer.byteLength(statement)).toBeLessThan(CAP)
    await sql(adapter.url, statement)
    expect(await sqlRows(adapter.url, 'select count(*) from lim.t')).toEqual([[values.length]])
  })

  it('a gzip body is counted as it inflates: 64 MB of zeros in 64 KB of gzip answer 413, the server stays up', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024))
    for (const [path, check] of [
      ['/lineproto/v1/write?db=lim', influx],
      ['/rest/sql', (json: Record<string, unknown> | undefined) => expect(json).toMatchObject({ code: 65535 })],
    ] as const) {
      const started = Date.now()
      const res = await fetch(`${adapter.url}${path}`, { method: 'POST', headers: { Authorization: ROOT_AUTH, 'Content-Encoding': 'gzip' }, body: bomb })
      const text = await res.text()
      expect(res.status, text).toBe(413)
      check(JSON.parse(text) as Record<string, unknown>)
      expect(text).toContain('http.maxBodySize')
      expect(Date.now() - started).toBeLessThan(2_000)
    }
    expect((await fetch(`${adapter.url}/-/ping`)).status).toBe(200)
  })

  it('headers too large answer 431 with JSON in the endpoint\'s format', async () => {
    const big = 'a'.repeat(20_000)
    const rest = await raw(adapter.port, `POST /rest/sql HTTP/1.1\r\nHost: x\r\nX-Big: ${big}\r\nContent-Length: 8\r\n\r\nselect 1`)
    expect(rest).toMatch(/^HTTP\/1\.1 431 /)
    expect(rest).toMatch(/\r\nContent-Type: application\/json/)
    expect(bodyOf(rest)).toMatchObject({ code: 65535, desc: expect.stringContaining('headers too large') })
    const lp = await raw(adapter.port, `POST /lineproto/v1/write?db=lim HTTP/1.1\r\nHost: x\r\nX-Big: ${big}\r\n\r\n`)
    expect(lp).toMatch(/^HTTP\/1\.1 431 /)
    expect(bodyOf(lp)).toMatchObject({ code: 431, error: expect.stringContaining('headers too large') })
    // fetch sees the same status and a JSON body
    const res = await fetch(`${adapter.url}/-/ping`, { headers: { 'X-Big': big } })
    expect(res.status).toBe(431)
    expect(await res.json()).toMatchObject({ code: 431 })
  })

  it('a malformed request answers 400 with JSON', async () => {
    const answer = await raw(adapter.port, 'POST /rest/sql HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n')
    expect(answer).toMatch(/^HTTP\/1\.1 400 /)
    expect(bodyOf(answer)).toMatchObject({ code: 65535, desc: expect.stringContaining('malformed HTTP request') })
  })

  it('unknown paths and methods answer a JSON 404', async () => {
    for (const [method, path] of [
      ['GET', '/no/such/endpoint'],
      ['POST', '/rest/nothing'],
      ['PUT', '/rest/sql'],
    ]) {
      const res = await fetch(`${adapter.url}${path}`, { method, body: method === 'GET' ? undefined : 'x' })
      expect(res.status).toBe(404)
      expect(res.headers.get('content-type')).toMatch(/^application\/json/)
      expect(await res.json()).toEqual({ code: 404, desc: `endpoint does not exist: ${path}` })
    }
  })

  it('OpenTSDB JSON nested 5,000 deep answers 400 naming the item (or the nesting), never 503; the database takes writes after it', async () => {
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`
    const res = await fetch(`${adapter.url}/tsdbproto/v1/put/json/lim`, { method: 'POST', headers: { Authorization: ROOT_AUTH }, body: deep })
    const text = await res.text()
    expect(res.status, text).toBe(400)
    const json = JSON.parse(text) as Record<string, unknown>
    expect(json.code).toBe(400)
    // the parser reads the nesting without recursion now: item 0 is refused for what it is
    expect(String(json.message)).toMatch(/nest|deep|depth|item 0: expected an object, got an array/i)
    const good = await fetch(`${adapter.url}/tsdbproto/v1/put/json/lim`, {
      method: 'POST',
      headers: { Authorization: ROOT_AUTH },
      body: JSON.stringify({ metric: 'after_deep', timestamp: 1_700_000_000_000, value: 1, tags: { h: 'a' } }),
    })
    expect(good.status).toBe(204)
    expect(await sqlRows(adapter.url, 'select count(*) from lim.after_deep')).toEqual([[1]])
  })

  it('a vgid POST with JSON nested 5,000 deep is a 400 or an answer, never a 5xx', async () => {
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`
    const res = await fetch(`${adapter.url}/rest/sql/lim/vgid`, { method: 'POST', headers: { Authorization: ROOT_AUTH }, body: deep })
    expect(res.status).toBeLessThan(500)
    expect(await res.json()).toMatchObject({ code: expect.any(Number) })
  })
})
