import { Hono } from 'hono'
import { beforeEach, describe, expect, it } from 'vitest'
import { requestId } from './request-id.js'

describe('requestId middleware', () => {
  let app: Hono
  let seen: string | undefined

  beforeEach(() => {
    seen = undefined
    app = new Hono()
    app.use(requestId({ generator: () => 'generated-1' }))
    app.get('/x', (c) => {
      seen = c.get('requestId')
      return c.text('ok')
    })
  })

  it('keeps a valid incoming id and echoes it', async () => {
    const res = await app.request('/x', { headers: { 'X-Request-Id': 'abc-123' } })
    expect(res.headers.get('x-request-id')).toBe('abc-123')
    expect(seen).toBe('abc-123')
  })

  it('generates one when absent', async () => {
    const res = await app.request('/x')
    expect(res.headers.get('x-request-id')).toBe('generated-1')
    expect(seen).toBe('generated-1')
  })

  it('replaces ids with unsafe characters (log injection) or over 255 chars', async () => {
    const bad = await app.request('/x', { headers: { 'X-Request-Id': 'a b\tc' } })
    expect(bad.headers.get('x-request-id')).toBe('generated-1')
    const long = await app.request('/x', { headers: { 'X-Request-Id': 'a'.repeat(256) } })
    expect(long.headers.get('x-request-id')).toBe('generated-1')
    const max = await app.request('/x', { headers: { 'X-Request-Id': 'a'.repeat(255) } })
    expect(max.headers.get('x-request-id')).toBe('a'.repeat(255))
  })

  it('defaults to a UUID', async () => {
    const plain = new Hono()
    plain.use(requestId())
    plain.get('/x', (c) => c.text('ok'))
    const res = await plain.request('/x')
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  })
})
