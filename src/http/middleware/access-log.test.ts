import { Writable } from 'node:stream'
import { Hono } from 'hono'
import { pino } from 'pino'
import { beforeEach, describe, expect, it } from 'vitest'
import type { Logger } from '../../logger.js'
import { accessLog, redactUri } from './access-log.js'
import { requestId } from './request-id.js'

function captureLogger(level = 'info'): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = []
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line) {
          lines.push(JSON.parse(line) as Record<string, unknown>)
        }
      }
      cb()
    },
  })
  return { logger: pino({ level }, sink), lines }
}

/** the access line is written once the response is on its way (a setImmediate later) */
const written = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

describe('accessLog middleware', () => {
  let app: Hono
  let lines: Record<string, unknown>[]

  beforeEach(() => {
    const cap = captureLogger()
    lines = cap.lines
    let t = 1000
    app = new Hono()
    app.use(requestId({ generator: () => 'rid-1' }))
    // each call of the clock advances 2.5 ms, so latency is exactly 2.5
    app.use(accessLog({ logger: cap.logger, now: () => (t += 2.5) }))
    app.get('/ok', (c) => {
      c.get('log').info('inside handler')
      return c.text('ok')
    })
    app.get('/boom', () => {
      throw new Error('boom')
    })
    app.onError((_err, c) => c.text('failed', 500))
  })

  it('writes one line per request with status, latency, ip, method and uri', async () => {
    await app.request('/ok?a=1&b=%20', { headers: { 'X-Forwarded-For': '10.1.2.3, 10.0.0.1' } })
    // not on the response's path: the line comes after it
    expect(lines.filter((l) => l.msg === 'request')).toHaveLength(0)
    await written()
    const access = lines.filter((l) => l.msg === 'request')
    expect(access).toHaveLength(1)
    expect(access[0]).toMatchObject({
      reqId: 'rid-1',
      status: 200,
      latencyMs: 2.5,
      clientIp: '10.1.2.3',
      method: 'GET',
      uri: '/ok?a=1&b=%20',
    })
  })

  it('gives handlers a child logger carrying the request id', async () => {
    await app.request('/ok')
    const inner = lines.find((l) => l.msg === 'inside handler')
    expect(inner?.reqId).toBe('rid-1')
  })

  it('logs the final status of failed and unknown requests', async () => {
    await app.request('/boom', { method: 'GET' })
    await app.request('/nope', { method: 'POST' })
    await written()
    const access = lines.filter((l) => l.msg === 'request')
    expect(access.map((l) => [l.status, l.method, l.uri])).toEqual([
      [500, 'GET', '/boom'],
      [404, 'POST', '/nope'],
    ])
  })
})

describe('accessLog: probes and scrapes', () => {
  const QUIET = ['/-/ping', '/-/live', '/metrics']
  const appWith = (cap: ReturnType<typeof captureLogger>): Hono => {
    const app = new Hono()
    app.use(accessLog({ logger: cap.logger }))
    for (const path of [...QUIET, '/rest/sql']) {
      app.get(path, (c) => c.text('ok'))
    }
    return app
  }

  it('are not logged at info; other requests are', async () => {
    const cap = captureLogger('info')
    const app = appWith(cap)
    for (const path of [...QUIET, '/-/ping?x=1', '/rest/sql']) {
      await app.request(path)
    }
    await written()
    expect(cap.lines.map((l) => l.uri)).toEqual(['/rest/sql'])
  })

  it('are logged at debug', async () => {
    const cap = captureLogger('debug')
    const app = appWith(cap)
    for (const path of QUIET) {
      await app.request(path)
    }
    await written()
    expect(cap.lines.map((l) => [l.level, l.uri])).toEqual(QUIET.map((p) => [20, p]))
  })
})

describe('redactUri', () => {
  const redact = (u: string) => redactUri(new URL(u, 'http://h'))

  it('masks the password of /rest/login and keeps the user', () => {
    expect(redact('/rest/login/root/taosdata')).toBe('/rest/login/root/***')
    expect(redact('/rest/login/root/taosdata?x=1')).toBe('/rest/login/root/***?x=1')
  })

  it('masks p, token and password query values and leaves the rest as sent', () => {
    expect(redact('/lineproto/v1/write?db=a&u=root&p=secret&precision=ms')).toBe('/lineproto/v1/write?db=a&u=root&p=***&precision=ms')
    expect(redact('/rest/sql?token=abc%20d')).toBe('/rest/sql?token=***')
    expect(redact('/x?password=s&pp=keep&b=%20')).toBe('/x?password=***&pp=keep&b=%20')
    expect(redact('/rest/sql/db?tz=UTC')).toBe('/rest/sql/db?tz=UTC')
  })
})

describe('accessLog redaction', () => {
  it('never writes a password into the access log', async () => {
    const cap = captureLogger()
    const app = new Hono()
    app.use(accessLog({ logger: cap.logger }))
    app.get('/rest/login/:u/:p', (c) => c.text('ok'))
    await app.request('/rest/login/root/hunter2')
    await app.request('/rest/login/root/x?p=hunter2')
    await written()
    const text = JSON.stringify(cap.lines)
    expect(text).not.toContain('hunter2')
    expect(cap.lines.filter((l) => l.msg === 'request')).toHaveLength(2)
  })
})
