import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { Gate } from '../../monitor/gate.js'
import { queryGate, restRetryAfter, writeGate } from './gate.js'

function app(gate: Gate): Hono {
  const a = new Hono()
  a.use('/write/*', writeGate(gate))
  a.use('/read/*', queryGate(gate))
  a.use('/rest/*', restRetryAfter(gate))
  a.post('/write/x', (c) => c.body(null, 204))
  a.post('/read/x', (c) => c.text('rows'))
  // a handler that answers the query pause itself, without Retry-After (as src/rest/sql-handler.ts)
  a.post('/rest/sql', (c) => (gate.queryPaused() ? c.body('"query memory exceeds threshold"', 503) : c.text('ok')))
  return a
}

async function paused(res: Response, body: string): Promise<void> {
  expect(res.status).toBe(503)
  expect(res.headers.get('Retry-After')).toBe('120')
  expect(await res.text()).toBe(JSON.stringify(body))
}

describe('gate middleware', () => {
  it('normal: nothing refused', async () => {
    const a = app(new Gate())
    expect((await a.request('/write/x', { method: 'POST' })).status).toBe(204)
    expect((await a.request('/read/x', { method: 'POST' })).status).toBe(200)
    expect((await a.request('/rest/sql', { method: 'POST' })).status).toBe(200)
  })

  it('query-paused: reads refused with the query body, writes served, /rest 503 gets Retry-After', async () => {
    const gate = new Gate()
    gate.set('query-paused')
    const a = app(gate)
    expect((await a.request('/write/x', { method: 'POST' })).status).toBe(204)
    const read = await a.request('/read/x', { method: 'POST' })
    expect(read.headers.get('Content-Type')).toBe('application/json; charset=utf-8')
    await paused(read, 'query memory exceeds threshold')
    await paused(await a.request('/rest/sql', { method: 'POST' }), 'query memory exceeds threshold')
  })

  it('all-paused: writes, reads and /rest refused with the all body before the handler', async () => {
    const gate = new Gate()
    gate.set('all-paused')
    const a = app(gate)
    await paused(await a.request('/write/x', { method: 'POST' }), 'memory exceeds threshold')
    await paused(await a.request('/read/x', { method: 'POST' }), 'memory exceeds threshold')
    await paused(await a.request('/rest/sql', { method: 'POST' }), 'memory exceeds threshold')
  })
})
