/**
 * The events API through real HTTP on the management server's own port: the spec's four
 * operations, filters and paging, transitions, 400/401/404/409, the Alertmanager webhook, the
 * OpenAPI document (every live answer is validated against it with ajv), Swagger UI's files and
 * the /metrics counters.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningAdapter } from '../../src/lifecycle.js'
import { call, schemaValidators, startManaged } from './server.js'

let adapter: Awaited<ReturnType<typeof startManaged>>
let base = ''
let v: Awaited<ReturnType<typeof schemaValidators>>

const alert = (name: string, fingerprint: string, status: 'firing' | 'resolved', extra: Record<string, string> = {}): object => ({
  status,
  labels: { alertname: name, severity: 'critical', instance: 'node-1:9100', job: 'node', ...extra },
  annotations: { summary: `${name} summary`, description: `${name} description` },
  startsAt: '2026-01-01T00:00:00Z',
  endsAt: '0001-01-01T00:00:00Z',
  generatorURL: 'http://prometheus/graph',
  fingerprint,
})
const payload = (alerts: object[]): object => ({
  version: '4', groupKey: '{}:{}', truncatedAlerts: 0, status: 'firing', receiver: 'db-adapter',
  groupLabels: {}, commonLabels: {}, commonAnnotations: {}, externalURL: 'http://alertmanager', alerts,
})

beforeAll(async () => {
  adapter = await startManaged()
  base = adapter.manager.url
  v = await schemaValidators(base)
}, 60_000)

afterAll(async () => {
  await adapter?.stop()
})

describe('OpenAPI document and Swagger UI', () => {
  it('serves the document without credentials: version 1.0.14.1, the four operationIds, the schemas', async () => {
    expect(v.doc.info.version).toBe('1.0.14.1')
    const ops = Object.entries(v.doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap(([path, m]) =>
      Object.entries(m).map(([method, op]) => `${op.operationId} ${method.toUpperCase()} ${path}`),
    )
    expect(ops).toEqual(expect.arrayContaining([
      'apiV1EventsGet GET /api/v1/events',
      'apiV1EventsIdGet GET /api/v1/events/{id}',
      'apiV1EventsIdAcknowledgePut PUT /api/v1/events/{id}/acknowledge',
      'apiV1EventsIdResolvePut PUT /api/v1/events/{id}/resolve',
    ]))
    expect(Object.keys(v.doc.components.schemas)).toEqual(expect.arrayContaining(['EventDTO', 'PageOfEventDTO']))
    expect(v.doc.components.securitySchemes.basicAuth).toMatchObject({ type: 'http', scheme: 'basic' })
  })

  it('serves Swagger UI from swagger-ui-dist, pointed at the document, without credentials', async () => {
    const index = await fetch(`${base}/swagger-ui/`)
    expect(index.status).toBe(200)
    expect(await index.text()).toContain('swagger-ui-bundle.js')
    const init = await (await fetch(`${base}/swagger-ui/swagger-initializer.js`)).text()
    expect(init).toContain('"/api/v1/openapi.json"')
    const bundle = await fetch(`${base}/swagger-ui/swagger-ui-bundle.js`)
    expect(bundle.headers.get('content-type')).toMatch(/javascript/)
    expect((await bundle.arrayBuffer()).byteLength).toBeGreaterThan(100_000)
    expect((await fetch(`${base}/swagger-ui/..%2Fpackage.json`)).status).toBe(404)
    expect((await fetch(`${base}/swagger-ui`, { redirect: 'manual' })).headers.get('location')).toBe('/swagger-ui/')
  })
})

describe('events API', () => {
  it('refuses requests without or with wrong credentials (401)', async () => {
    const none = await call(base, 'GET', '/api/v1/events', { auth: null })
    expect(none.status).toBe(401)
    expect(none.headers.get('www-authenticate')).toMatch(/^Basic/)
    v.validate('ErrorDTO', none.body)
    const wrong = await call(base, 'GET', '/api/v1/events', { auth: `Basic ${Buffer.from('root:nope').toString('base64')}` })
    expect(wrong.status).toBe(401)
    v.validate('ErrorDTO', wrong.body)
    expect((await call(base, 'POST', '/api/v1/alerts', { auth: null, body: payload([]) })).status).toBe(401)
  })

  it('webhook alerts become events; list, get, acknowledge, resolve follow the transitions', async () => {
    const opened = await call(base, 'POST', '/api/v1/alerts', { body: payload([alert('DiskFull', 'fp-1', 'firing'), alert('Slow', 'fp-2', 'firing', { severity: 'info', instance: 'db-9' })]) })
    expect(opened).toMatchObject({ status: 200, body: { received: 2, opened: 2, updated: 0, resolved: 0 } })
    v.validate('AlertsResultDTO', opened.body)
    // the same alert again counts instead of duplicating
    expect((await call(base, 'POST', '/api/v1/alerts', { body: payload([alert('DiskFull', 'fp-1', 'firing')]) })).body).toMatchObject({ opened: 0, updated: 1 })

    const list = await call(base, 'GET', '/api/v1/events?elementId=node-1:9100')
    expect(list.status).toBe(200)
    v.validate('PageOfEventDTO', list.body)
    expect(list.body).toMatchObject({ total: 1, pageNum: 1, pageSize: 20 })
    const disk = list.body.items[0]
    expect(disk).toMatchObject({
      status: 'active', severity: 'critical', elementId: 'node-1:9100', source: 'alertmanager', title: 'DiskFull',
      message: 'DiskFull summary\nDiskFull description', count: 2, acknowledgedAt: null, resolvedBy: null,
    })
    expect(disk.labels).toMatchObject({ alertname: 'DiskFull', job: 'node' })

    const got = await call(base, 'GET', `/api/v1/events/${disk.id}`)
    v.validate('EventDTO', got.body)
    expect(got.body).toEqual(disk)

    const ack = await call(base, 'PUT', `/api/v1/events/${disk.id}/acknowledge`)
    expect(ack.status).toBe(200)
    v.validate('EventDTO', ack.body)
    expect(ack.body).toMatchObject({ status: 'acknowledged', acknowledgedBy: 'root' })
    const again = await call(base, 'PUT', `/api/v1/events/${disk.id}/acknowledge`)
    expect(again).toMatchObject({ status: 200, body: { status: 'acknowledged', acknowledgedAt: ack.body.acknowledgedAt } })

    const res = await call(base, 'PUT', `/api/v1/events/${disk.id}/resolve`)
    v.validate('EventDTO', res.body)
    expect(res.body).toMatchObject({ status: 'resolved', resolvedBy: 'root', acknowledgedBy: 'root' })
    expect((await call(base, 'PUT', `/api/v1/events/${disk.id}/resolve`)).body.resolvedAt).toBe(res.body.resolvedAt)
    const conflict = await call(base, 'PUT', `/api/v1/events/${disk.id}/acknowledge`)
    expect(conflict.status).toBe(409)
    v.validate('ErrorDTO', conflict.body)

    // a resolved alert resolves its event (active -> resolved directly)
    const slow = (await call(base, 'GET', '/api/v1/events?severity=info')).body.items[0]
    expect(slow).toMatchObject({ title: 'Slow', elementId: 'db-9', status: 'active' })
    expect((await call(base, 'POST', '/api/v1/alerts', { body: payload([alert('Slow', 'fp-2', 'resolved')]) })).body).toMatchObject({ resolved: 1 })
    expect((await call(base, 'GET', `/api/v1/events/${slow.id}`)).body).toMatchObject({ status: 'resolved', resolvedBy: 'alertmanager' })

    for (const path of ['/api/v1/events/nope', '/api/v1/events/nope/acknowledge', '/api/v1/events/nope/resolve']) {
      const r = await call(base, path === '/api/v1/events/nope' ? 'GET' : 'PUT', path)
      expect(r.status, path).toBe(404)
      v.validate('ErrorDTO', r.body)
    }
  })

  it('filters combine, pages are newest first, bad parameters are 400 naming the parameter', async () => {
    const alerts = Array.from({ length: 7 }, (_, i) => alert(`Page${i}`, `page-${i}`, 'firing', { instance: 'paging', severity: i % 2 === 0 ? 'warning' : 'critical' }))
    for (const a of alerts) {
      await call(base, 'POST', '/api/v1/alerts', { body: payload([a]) })
      await new Promise((r) => setTimeout(r, 3))
    }
    const p1 = await call(base, 'GET', '/api/v1/events?elementId=paging&pageSize=3')
    v.validate('PageOfEventDTO', p1.body)
    expect(p1.body.total).toBe(7)
    expect(p1.body.items.map((e: { title: string }) => e.title)).toEqual(['Page6', 'Page5', 'Page4'])
    const p3 = await call(base, 'GET', '/api/v1/events?elementId=paging&pageSize=3&pageNum=3')
    expect(p3.body.items.map((e: { title: string }) => e.title)).toEqual(['Page0'])
    const warn = await call(base, 'GET', '/api/v1/events?elementId=paging&severity=warning&status=active')
    expect(warn.body.items.map((e: { title: string }) => e.title)).toEqual(['Page6', 'Page4', 'Page2', 'Page0'])
    const from = p1.body.items[2].createdAt
    const window = await call(base, 'GET', `/api/v1/events?elementId=paging&from=${from}&to=${p1.body.items[0].createdAt}`)
    expect(window.body.items.map((e: { title: string }) => e.title)).toEqual(['Page6', 'Page5', 'Page4'])
    expect((await call(base, 'GET', '/api/v1/events?elementId=paging&to=1')).body.total).toBe(0)

    for (const [query, name] of [
      ['pageSize=1001', 'pageSize'], ['pageSize=0', 'pageSize'], ['pageNum=0', 'pageNum'], ['pageNum=x', 'pageNum'],
      ['from=yesterday', 'from'], ['to=1.5', 'to'], ['from=10&to=5', 'from'], ['status=open', 'status'], ['severity=major', 'severity'], ['elementId=', 'elementId'],
    ]) {
      const r = await call(base, 'GET', `/api/v1/events?${query}`)
      expect(r.status, query).toBe(400)
      v.validate('ErrorDTO', r.body)
      expect(r.body.message, query).toMatch(new RegExp(`^${name} `))
    }
  })

  it('refuses a bad webhook body with 400 naming the field, and a body over http.maxBodySize with 413', async () => {
    const cases: Array<[unknown, string]> = [
      ['not json', 'body'],
      [{ version: '3', alerts: [] }, 'version'],
      [{ version: '4' }, 'alerts'],
      [{ version: '4', alerts: [{ status: 'firing', labels: {} }] }, 'alerts\\[0\\].fingerprint'],
      [{ version: '4', alerts: [{ status: 'pending', labels: {}, fingerprint: 'x' }] }, 'alerts\\[0\\].status'],
      [{ version: '4', alerts: [{ status: 'firing', labels: { a: 1 }, fingerprint: 'x' }] }, 'alerts\\[0\\].labels.a'],
    ]
    for (const [body, field] of cases) {
      const r = await call(base, 'POST', '/api/v1/alerts', { body })
      expect(r.status, field).toBe(400)
      v.validate('ErrorDTO', r.body)
      expect(r.body.message).toMatch(new RegExp(field))
    }
    // hostile shapes are the client's fault, and the server runs on
    const deep = `{"version":"4","alerts":[{"status":"firing","fingerprint":"d","labels":${'['.repeat(100_000)}${']'.repeat(100_000)}}]}`
    const r = await call(base, 'POST', '/api/v1/alerts', { body: deep })
    expect(r.status).toBe(400)
    v.validate('ErrorDTO', r.body)
    expect((await call(base, 'GET', '/api/v1/events?pageSize=1')).status).toBe(200)
    const small = await startManaged((c) => {
      c.http.maxBodySize = 1024
    })
    try {
      const r = await call(small.manager.url, 'POST', '/api/v1/alerts', { body: payload([alert('Big', 'big', 'firing', { text: 'x'.repeat(4000) })]) })
      expect(r.status).toBe(413)
    } finally {
      await small.stop()
    }
  }, 30_000)

  it('counts events opened and resolved by source on /metrics', async () => {
    const text = await (await fetch(`${adapter.url}/metrics`)).text()
    const value = (name: string, source: string): number => Number(new RegExp(`^${name}\\{source="${source}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0)
    expect(value('db_adapter_events_opened_total', 'alertmanager')).toBeGreaterThanOrEqual(9)
    // DiskFull by root through the API, Slow by Alertmanager
    expect(value('db_adapter_events_resolved_total', 'alertmanager')).toBe(2)
  })
})

describe('retention', () => {
  it('purges resolved events older than manager.eventRetention, never open ones', async () => {
    const short = await startManaged((c) => {
      c.manager.eventRetention = 1
    })
    try {
      const m = short.manager.url
      await call(m, 'POST', '/api/v1/alerts', { body: payload([alert('Old', 'old', 'firing'), alert('Open', 'open', 'firing')]) })
      const items = (await call(m, 'GET', '/api/v1/events')).body.items as Array<{ id: string; title: string }>
      const old = items.find((e) => e.title === 'Old')!
      await call(m, 'PUT', `/api/v1/events/${old.id}/resolve`)
      await new Promise((r) => setTimeout(r, 5))
      expect(await short.manager.parts.purge()).toBe(1)
      expect((await call(m, 'GET', `/api/v1/events/${old.id}`)).status).toBe(404)
      expect((await call(m, 'GET', '/api/v1/events')).body.items.map((e: { title: string }) => e.title)).toEqual(['Open'])
    } finally {
      await short.stop()
    }
    // stopped with the adapter: the management server's listener is closed too
    await expect(fetch(`${short.manager.url}/api/v1/openapi.json`)).rejects.toThrow()
  })
})

describe('adapter health as events', () => {
  let health: RunningAdapter & { manager: NonNullable<RunningAdapter['manager']> }
  afterAll(async () => {
    await health?.stop()
  })

  it('the memory gate opens query-paused and all-paused events that resolve themselves, counted not duplicated', async () => {
    health = await startManaged((c) => {
      c.monitor.identity = 'adapter-under-test'
    })
    const h = health.manager.url
    const events = async (): Promise<any[]> => (await call(h, 'GET', '/api/v1/events?elementId=adapter-under-test')).body.items
    health.gate.set('query-paused')
    await health.manager.parts.health.check()
    await health.manager.parts.health.check()
    let items = await events()
    expect(items).toHaveLength(1)
    expect(items[0]).toMatchObject({ status: 'active', severity: 'warning', source: 'health', title: 'memory gate: queries paused', labels: { condition: 'memory-query-paused' } })
    expect(items[0].count).toBeGreaterThanOrEqual(2)
    health.gate.set('normal')
    await health.manager.parts.health.check()
    items = await events()
    expect(items[0]).toMatchObject({ status: 'resolved', resolvedBy: 'health' })
    health.gate.set('all-paused')
    await health.manager.parts.health.check()
    // all-paused refuses the API too (memory gate): read the store directly
    const open = await health.manager.parts.store.list({ elementId: 'adapter-under-test', status: 'active' }, { pageNum: 1, pageSize: 10 })
    expect(open.items.map((e) => [e.severity, e.labels.condition])).toEqual([['critical', 'memory-all-paused']])
    expect((await call(h, 'GET', '/api/v1/events')).status).toBe(503)
    health.gate.set('normal')
    await health.manager.parts.health.check()
    expect((await call(h, 'GET', '/api/v1/events?elementId=adapter-under-test&status=active')).body.total).toBe(0)
  }, 30_000)
})
