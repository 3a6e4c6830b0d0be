import { gzipSync } from 'node:zlib'
import { Hono } from 'hono'
import { pino } from 'pino'
import { beforeEach, describe, expect, it } from 'vitest'
import { createErrorHandler } from '../errors.js'
import { gunzip } from './gunzip.js'

describe('gunzip middleware', () => {
  let app: Hono

  beforeEach(() => {
    app = new Hono()
    app.use(gunzip({ maxBodySize: 1000 }))
    app.post('/echo', async (c) => {
      const text = await c.req.text()
      return c.json({ text, encoding: c.req.header('Content-Encoding') ?? null })
    })
    app.onError(createErrorHandler(pino({ level: 'silent' })))
  })

  function post(body: Uint8Array | string, encoding?: string): Promise<Response> {
    return Promise.resolve(
      app.request('/echo', {
        method: 'POST',
        body,
        headers: encoding ? { 'Content-Encoding': encoding } : {},
      }),
    )
  }

  it('decompresses gzip bodies and hides the encoding from the handler', async () => {
    const res = await post(gzipSync('select 1'), 'gzip')
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ text: 'select 1', encoding: null })
  })

  it('leaves plain bodies and other encodings alone', async () => {
    expect(await (await post('plain')).json()).toEqual({ text: 'plain', encoding: null })
    expect(await (await post('raw-snappy', 'snappy')).json()).toEqual({ text: 'raw-snappy', encoding: 'snappy' })
  })

  it('accepts exactly maxBodySize decompressed bytes', async () => {
    const res = await post(gzipSync('a'.repeat(1000)), 'gzip')
    expect(res.status).toBe(200)
  })

  it('answers 413 when the decompressed body exceeds maxBodySize (gzip bomb)', async () => {
    const bomb = gzipSync(Buffer.alloc(500_000, 0x61))
    // the compressed bomb itself is under the cap; only its expansion is not
    expect(bomb.length).toBeLessThan(1000)
    const res = await post(bomb, 'gzip')
    expect(res.status).toBe(413)
    const body = (await res.json()) as { code: number; desc: string }
    expect(body.code).toBe(413)
    expect(body.desc).toContain('http.maxBodySize')
  })

  it('answers 400 for a body that is not gzip', async () => {
    const res = await post('definitely not gzip', 'gzip')
    expect(res.status).toBe(400)
    const body = (await res.json()) as { code: number; desc: string }
    expect(body.desc).toMatch(/^gzip request body cannot be decompressed/)
  })
})
