import { Writable } from 'node:stream'
import { Hono } from 'hono'
import { pino } from 'pino'
import { beforeEach, describe, expect, it } from 'vitest'
import { requestId } from './request-id.js'
import { sqlLog } from './sql-log.js'

describe('sqlLog middleware', () => {
  let app: Hono
  let lines: Record<string, unknown>[]

  beforeEach(() => {
    lines = []
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>)
        cb()
      },
    })
    app = new Hono()
    app.use(requestId({ generator: () => 'rid-5' }))
    app.use(async (c, next) => {
      c.set('clientIp', '10.9.8.7')
      await next()
    })
    app.use('/rest/sql/*', sqlLog({ sqlLogger: pino({ level: 'info' }, sink) }))
    app.post('/rest/sql/:db/vgid', async (c) => c.json({ tables: await c.req.text() }))
    app.post('/rest/sql/:db?', async (c) => {
      if (c.req.header('Authorization') !== 'ok') {
        return c.json({ code: 4357 }, 401)
      }
      return c.json({ sql: await c.req.text() })
    })
  })

  it('logs the SQL the handler read, with request details', async () => {
    const res = await app.request('/rest/sql/db1?tz=UTC', {
      method: 'POST',
      body: 'select * from t',
      headers: { Authorization: 'ok' },
    })
    expect(await res.json()).toEqual({ sql: 'select * from t' })
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatchObject({
      reqId: 'rid-5',
      uri: '/rest/sql/db1?tz=UTC',
      method: 'POST',
      clientIp: '10.9.8.7',
      sql: 'select * from t',
    })
  })

  it('logs a bare /rest/sql request exactly once', async () => {
    await app.request('/rest/sql', { method: 'POST', body: 'show databases', headers: { Authorization: 'ok' } })
    expect(lines.map((l) => l.sql)).toEqual(['show databases'])
  })

  it('skips vgid requests (their body is not SQL)', async () => {
    await app.request('/rest/sql/db1/vgid', { method: 'POST', body: '["t1"]' })
    expect(lines).toHaveLength(0)
  })

  it('writes nothing when the handler never read a body', async () => {
    const res = await app.request('/rest/sql', { method: 'POST', body: 'drop database x' })
    expect(res.status).toBe(401)
    expect(lines).toHaveLength(0)
  })
})
