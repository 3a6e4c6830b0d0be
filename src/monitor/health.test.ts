import { beforeEach, describe, expect, it } from 'vitest'
import type { Hono } from 'hono'
import { Gate } from './gate.js'
import { createHealthRoutes } from './health.js'

describe('health routes', () => {
  let gate: Gate
  let app: Hono

  beforeEach(() => {
    gate = new Gate()
    app = createHealthRoutes({ gate })
  })

  async function status(path: string): Promise<number> {
    const res = await app.request(path)
    expect(await res.text()).toBe('')
    return res.status
  }

  it('answers 200 with an empty body in the normal state', async () => {
    const res = await app.request('/-/ping')
    expect(res.status).toBe(200)
    expect(await res.text()).toBe('')
    expect(res.headers.get('content-type')).toBeNull()
    expect(res.headers.get('content-length')).toBe('0')
  })

  it('query-paused: plain ping 200, action=query 503', async () => {
    gate.set('query-paused')
    expect(await status('/-/ping')).toBe(200)
    expect(await status('/-/ping?action=query')).toBe(503)
  })

  it('all-paused: both 503', async () => {
    gate.set('all-paused')
    expect(await status('/-/ping')).toBe(503)
    expect(await status('/-/ping?action=query')).toBe(503)
  })

  it('other action values behave like no action', async () => {
    gate.set('query-paused')
    expect(await status('/-/ping?action=write')).toBe(200)
  })

  it('draining: ping 503, live still 200', async () => {
    gate.startDraining()
    expect(await status('/-/ping')).toBe(503)
    expect(await status('/-/live')).toBe(200)
  })

  it('live is never gated', async () => {
    gate.set('all-paused')
    expect(await status('/-/live')).toBe(200)
  })

  it('live answers 503 once storage reports a fatal error, and only then', async () => {
    const storage: { fatal?: string } = {}
    const withStorage = createHealthRoutes({ gate, storageFatal: () => Promise.resolve(storage.fatal) })
    expect((await withStorage.request('/-/live')).status).toBe(200)
    storage.fatal = 'FATAL Error: Failed: database has been invalidated because of a previous fatal error'
    expect((await withStorage.request('/-/live')).status).toBe(503)
  })

  it('ping is GET only', async () => {
    const res = await app.request('/-/ping', { method: 'POST' })
    expect(res.status).toBe(404)
  })
})
