import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import pino from 'pino'
import { Hono } from 'hono'
import { defaultConfig } from '../config/load.js'
import { Gate } from '../monitor/gate.js'
import { createSqlExecutor } from '../sql/executor.js'
import { openStorage } from '../sql/catalog/open.js'
import type { Storage } from '../sql/catalog/types.js'
import { createRestRoutes } from './routes.js'

/** The /rest routes over real DuckDB, mounted at /rest as src/http/app.ts does. */
describe('rest routes with the memory gate', () => {
  let storage: Storage
  let app: Hono
  const gate = new Gate()
  const auth = { Authorization: `Basic ${Buffer.from('root:taosdata').toString('base64')}` }
  const post = (sql: string, headers: Record<string, string> = auth): Promise<Response> =>
    Promise.resolve(app.request('/rest/sql', { method: 'POST', body: sql, headers }))

  beforeAll(async () => {
    storage = await openStorage('duckdb::memory:', { rootPassword: 'taosdata' })
    const config = defaultConfig()
    app = new Hono()
    app.route('/rest', createRestRoutes({ config, storage, sql: createSqlExecutor(storage), logger: pino({ level: 'silent' }), gate }))
  })

  afterAll(async () => {
    await storage.close()
  })

  it('serves queries when the gate is normal', async () => {
    gate.set('normal')
    const res = await post('select server_status()')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(await res.text()).toBe('{"code":0,"column_meta":[["server_status()","INT",4]],"data":[[1]],"rows":1}')
  })

  it('query-paused refuses queries before running them, writes still pass', async () => {
    gate.set('query-paused')
    // would be a 904 error body if it ran: the 503 proves it was refused before execution
    const q = await post('select * from nosuchdb.t')
    expect(q.status).toBe(503)
    expect(await q.text()).toBe('"query memory exceeds threshold"')
    const w = await post('create database gated')
    expect(w.status).toBe(200)
    expect(await w.json()).toEqual({ code: 0, column_meta: [['affected_rows', 'INT', 4]], data: [[0]], rows: 1 })
    gate.set('normal')
  })

  it('all-paused refuses every /rest route before auth', async () => {
    gate.set('all-paused')
    for (const res of [
      await post('create database x', {}),
      await Promise.resolve(app.request('/rest/login/root/taosdata')),
      await Promise.resolve(app.request('/rest/vgid?db=gated&table=t', { headers: auth })),
    ]) {
      expect(res.status).toBe(503)
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8')
      expect(await res.text()).toBe('"memory exceeds threshold"')
    }
    gate.set('normal')
  })
})
