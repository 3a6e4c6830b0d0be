import { gunzipSync } from 'node:zlib'
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { gzip } from './gzip.js'

const BIG = JSON.stringify({ code: 0, data: Array.from({ length: 500 }, (_, i) => [i, `row ${i}`]) })

function app(): Hono {
  const a = new Hono()
  a.use(gzip())
  a.get('/big', (c) => c.json(JSON.parse(BIG)))
  a.get('/small', (c) =>
    c.body('{"code":0}', 200, { 'Content-Type': 'application/json', 'Content-Length': '10' }),
  )
  a.get('/png', (c) => c.body(BIG, 200, { 'Content-Type': 'image/png' }))
  a.get('/stream', (c) =>
    c.body(
      new ReadableStream({
        start(ctl) {
          ctl.enqueue(new TextEncoder().encode(BIG.slice(0, 1000)))
          ctl.enqueue(new TextEncoder().encode(BIG.slice(1000)))
          ctl.close()
        },
      }),
      200,
      { 'Content-Type': 'application/json; charset=utf-8' },
    ),
  )
  return a
}

async function gunzipBody(res: Response): Promise<string> {
  return gunzipSync(Buffer.from(await res.arrayBuffer())).toString('utf8')
}

describe('gzip', () => {
  it('compresses when the client accepts gzip, and the body round-trips', async () => {
    const res = await app().request('/big', { headers: { 'Accept-Encoding': 'gzip, deflate' } })
    expect(res.headers.get('Content-Encoding')).toBe('gzip')
    expect(res.headers.get('Content-Length')).toBeNull()
    expect(res.headers.get('Vary')).toBe('Accept-Encoding')
    expect(await gunzipBody(res)).toBe(BIG)
  })

  it('compresses streamed bodies of unknown length', async () => {
    const res = await app().request('/stream', { headers: { 'Accept-Encoding': 'gzip' } })
    expect(res.headers.get('Content-Encoding')).toBe('gzip')
    expect(await gunzipBody(res)).toBe(BIG)
  })

  it('leaves the body alone without Accept-Encoding, with gzip;q=0, for small or incompressible bodies', async () => {
    for (const [path, accept] of [
      ['/big', undefined],
      ['/big', 'gzip;q=0, br'],
      ['/small', 'gzip'],
      ['/png', 'gzip'],
    ] as const) {
      const res = await app().request(path, accept ? { headers: { 'Accept-Encoding': accept } } : {})
      expect(res.headers.get('Content-Encoding'), `${path} ${accept}`).toBeNull()
    }
  })

  it('honours a wildcard Accept-Encoding', async () => {
    const res = await app().request('/big', { headers: { 'Accept-Encoding': '*' } })
    expect(res.headers.get('Content-Encoding')).toBe('gzip')
  })
})
