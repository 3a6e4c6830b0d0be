import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { cors, originMatcher } from './cors.js'
import type { CorsOptions } from './cors.js'

const DEFAULTS: CorsOptions = {
  allowAllOrigins: true,
  allowCredentials: false,
  allowHeaders: [],
  allowOrigins: [],
  allowWebSockets: false,
  exposeHeaders: [],
}

function makeApp(overrides: Partial<CorsOptions> = {}): Hono {
  const app = new Hono()
  app.use(cors({ ...DEFAULTS, ...overrides }))
  app.post('/rest/sql', (c) => c.json({ code: 0 }))
  app.get('/rest/sql', (c) => c.json({ code: 0 }))
  return app
}

function preflight(origin: string): RequestInit {
  return {
    method: 'OPTIONS',
    headers: { Origin: origin, 'Access-Control-Request-Method': 'POST' },
  }
}

describe('cors middleware', () => {
  describe('allowAllOrigins (default)', () => {
    it('answers a preflight 204 with the allow-* headers', async () => {
      const res = await makeApp().request('/rest/sql', preflight('http://example.com'))
      expect(res.status).toBe(204)
      expect(res.headers.get('access-control-allow-origin')).toBe('*')
      expect(res.headers.get('access-control-allow-methods')).toBe('GET,POST,PUT,PATCH,DELETE,HEAD,OPTIONS')
      expect(res.headers.get('access-control-allow-headers')).toBe('Origin,Content-Length,Content-Type,Authorization')
      expect(res.headers.get('access-control-max-age')).toBe('43200')
      expect(res.headers.get('access-control-allow-credentials')).toBeNull()
      expect(res.headers.get('vary')).toBeNull()
      expect(await res.text()).toBe('')
    })

    it('answers a preflight even for a path without an OPTIONS route', async () => {
      const res = await makeApp().request('/anything', preflight('http://example.com'))
      expect(res.status).toBe(204)
    })

    it('adds Allow-Origin * and Expose-Headers to actual requests', async () => {
      const res = await makeApp().request('/rest/sql', { method: 'POST', headers: { Origin: 'http://x.test' } })
      expect(res.status).toBe(200)
      expect(res.headers.get('access-control-allow-origin')).toBe('*')
      expect(res.headers.get('access-control-expose-headers')).toBe('Authorization')
      expect(res.headers.get('access-control-allow-methods')).toBeNull()
    })

    it('sends no CORS headers without an Origin header', async () => {
      const res = await makeApp().request('/rest/sql', { method: 'POST' })
      expect(res.status).toBe(200)
      expect(res.headers.get('access-control-allow-origin')).toBeNull()
      expect(res.headers.get('access-control-expose-headers')).toBeNull()
    })

    it('OPTIONS without Origin is not a preflight', async () => {
      const res = await makeApp().request('/rest/sql', { method: 'OPTIONS' })
      expect(res.status).toBe(404)
    })
  })

  describe('explicit origins', () => {
    it('defaults to http://127.0.0.1 only', async () => {
      const app = makeApp({ allowAllOrigins: false })
      const ok = await app.request('/rest/sql', { headers: { Origin: 'http://127.0.0.1' } })
      expect(ok.status).toBe(200)
      expect(ok.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1')
      expect(ok.headers.get('vary')).toBe('Origin')
      const denied = await app.request('/rest/sql', { headers: { Origin: 'http://localhost' } })
      expect(denied.status).toBe(403)
      expect(denied.headers.get('access-control-allow-origin')).toBeNull()
      expect(await denied.json()).toEqual({ code: 403, desc: 'origin "http://localhost" is not allowed: see cors.allowOrigins' })
    })

    it('rejects a disallowed preflight with 403', async () => {
      const res = await makeApp({ allowAllOrigins: false, allowOrigins: ['https://a.test'] }).request(
        '/rest/sql',
        preflight('https://b.test'),
      )
      expect(res.status).toBe(403)
    })

    it('supports wildcards and echoes the matching origin', async () => {
      const app = makeApp({ allowAllOrigins: false, allowOrigins: ['https://*.example.com'] })
      const res = await app.request('/rest/sql', preflight('https://app.example.com'))
      expect(res.status).toBe(204)
      expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.com')
      expect(res.headers.get('vary')).toBe('Origin')
      expect((await app.request('/rest/sql', preflight('https://example.org'))).status).toBe(403)
      // the dot is literal, not a regexp wildcard
      expect((await app.request('/rest/sql', preflight('https://appXexample.com'))).status).toBe(403)
    })

    it('applies allowHeaders, exposeHeaders (the original ignored them) and allowCredentials', async () => {
      const app = makeApp({
        allowAllOrigins: false,
        allowOrigins: ['http://ui.test'],
        allowHeaders: ['X-Custom', 'authorization'],
        exposeHeaders: ['X-Request-Id', 'X-Total'],
        allowCredentials: true,
      })
      const pre = await app.request('/rest/sql', preflight('http://ui.test'))
      expect(pre.headers.get('access-control-allow-headers')).toBe('Origin,Content-Length,Content-Type,Authorization,X-Custom')
      expect(pre.headers.get('access-control-allow-credentials')).toBe('true')
      const res = await app.request('/rest/sql', { method: 'POST', headers: { Origin: 'http://ui.test' } })
      expect(res.headers.get('access-control-expose-headers')).toBe('Authorization,X-Request-Id,X-Total')
      expect(res.headers.get('access-control-allow-credentials')).toBe('true')
    })
  })
})

describe('originMatcher', () => {
  it.each([
    [['http://a.test'], 'http://a.test', true],
    [['http://a.test'], 'HTTP://A.TEST', true],
    [['http://a.test'], 'http://a.test:8080', false],
    [['http://a.test:*'], 'http://a.test:8080', true],
    [['*'], 'http://anything', true],
    [[], 'http://127.0.0.1', true],
    [[], 'http://127.0.0.1:6041', false],
    [['ws://a.test'], 'ws://a.test', false],
  ])('%j allows %s: %s', (list, origin, expected) => {
    expect(originMatcher(list, false)(origin)).toBe(expected)
  })

  it('accepts websocket origins when allowWebSockets is on', () => {
    expect(originMatcher(['ws://a.test'], true)('ws://a.test')).toBe(true)
  })
})
