import { Writable } from 'node:stream'
import { Hono } from 'hono'
import { HTTPException } from 'hono/http-exception'
import { pino } from 'pino'
import { beforeEach, describe, expect, it } from 'vitest'
import { createErrorHandler, notFoundHandler } from './errors.js'
import { GatewayError, STATUS_BY_CODE } from './gateway-error.js'
import { requestId } from './middleware/request-id.js'
import { StorageUnavailableError } from '../storage/errors.js'

describe('error handling', () => {
  let app: Hono
  let logged: Record<string, unknown>[]

  beforeEach(() => {
    logged = []
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        logged.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>)
        cb()
      },
    })
    app = new Hono()
    app.use(requestId({ generator: () => 'rid-9' }))
    app.get('/crash', () => {
      throw new Error('secret detail at /home/app/db.ts:42')
    })
    app.get('/bad', () => {
      throw new GatewayError('invalid_argument', 'field "x" must be a number')
    })
    app.get('/down', () => {
      throw new GatewayError('unavailable', 'storage is closing')
    })
    app.get('/storage-down', () => {
      throw new Error('login check failed', { cause: new StorageUnavailableError('PostgreSQL at db:5432 is unreachable (ECONNREFUSED)') })
    })
    app.get('/deep', () => {
      throw new RangeError('Maximum call stack size exceeded')
    })
    app.get('/hono', () => {
      throw new HTTPException(401, { message: 'no credentials' })
    })
    app.notFound(notFoundHandler())
    app.onError(createErrorHandler(pino({ level: 'info' }, sink)))
  })

  it('a stack overflow on hostile input -> 400, never a 5xx', async () => {
    const res = await app.request('/deep')
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({ code: 400, desc: 'input nested too deeply or too long to process: Maximum call stack size exceeded' })
  })

  it('unknown path -> JSON 404 naming the path', async () => {
    const res = await app.request('/no/such/thing?x=1')
    expect(res.status).toBe(404)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    expect(await res.json()).toEqual({ code: 404, desc: 'endpoint does not exist: /no/such/thing' })
  })

  it('unexpected errors -> 500 without message or stack, logged once with the stack', async () => {
    const res = await app.request('/crash')
    expect(res.status).toBe(500)
    const text = await res.text()
    expect(JSON.parse(text)).toEqual({ code: 500, desc: 'internal error (request id rid-9)' })
    expect(text).not.toContain('secret')
    expect(text).not.toContain('db.ts')
    expect(logged).toHaveLength(1)
    expect(logged[0].level).toBe(50)
    expect(logged[0].reqId).toBe('rid-9')
    expect(JSON.stringify(logged[0].err)).toContain('secret detail')
  })

  it('GatewayError -> mapped status and its message; client errors are not logged at info+', async () => {
    const res = await app.request('/bad')
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({ code: 400, desc: 'field "x" must be a number' })
    expect(logged).toHaveLength(0)
  })

  it('unavailable GatewayError is logged at error level', async () => {
    const res = await app.request('/down')
    expect(res.status).toBe(503)
    expect(logged.map((l) => l.level)).toEqual([50])
  })

  it('HTTPException keeps its status', async () => {
    const res = await app.request('/hono')
    expect(res.status).toBe(401)
    expect(await res.json()).toEqual({ code: 401, desc: 'no credentials' })
  })

  it('maps every code to a status', () => {
    expect(STATUS_BY_CODE).toEqual({
      invalid_argument: 400,
      unauthorized: 401,
      not_found: 404,
      payload_too_large: 413,
      resource_exhausted: 503,
      unavailable: 503,
      timeout: 504,
      internal: 500,
    })
  })

  it('storage unavailable anywhere in the cause chain -> 503 with its reason and Retry-After', async () => {
    const res = await app.request('/storage-down')
    expect(res.status).toBe(503)
    expect(res.headers.get('Retry-After')).toBe('1')
    expect(await res.json()).toEqual({ code: 503, desc: 'PostgreSQL at db:5432 is unreachable (ECONNREFUSED)' })
  })
})
