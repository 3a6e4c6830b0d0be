import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import pino from 'pino'
import { Hono } from 'hono'
import { serve } from '@hono/node-server'
import type { AddressInfo } from 'node:net'
import { defaultConfig } from '../config/load.js'
import { TdError } from '../td-error.js'
import type { SqlExecutor, SqlResult } from '../sql/result.js'
import { openStorage } from '../sql/catalog/open.js'
import type { Storage } from '../sql/catalog/types.js'
import { createRestRoutes } from './routes.js'

/**
 * Failures while rows are being produced cannot be provoked on demand from the real engine, so
 * this executor yields rows and then fails at a chosen chunk. Storage (auth) is the real one.
 */
function failingExecutor(failAtChunk: number, chunks = Infinity): SqlExecutor {
  return {
    classify: () => 'query',
    async execute(): Promise<SqlResult> {
      async function* rows(): AsyncGenerator<unknown[][]> {
        for (let k = 0; k < chunks; k++) {
          if (k === failAtChunk) {
            throw new TdError(9983, 'Parser internal error')
          }
          yield Array.from({ length: 1000 }, (_, i) => [k * 1000 + i])
        }
      }
      return { kind: 'rows', columns: [{ name: 'k', type: 'INT', length: 4 }], precision: 'ms', rows: rows() }
    },
  }
}

describe('/rest/sql streaming failures', () => {
  let storage: Storage
  const auth = { Authorization: `Basic ${Buffer.from('root:taosdata').toString('base64')}` }
  const appWith = (sql: SqlExecutor): Hono => {
    const app = new Hono()
    app.route('/rest', createRestRoutes({ config: defaultConfig(), storage, sql, logger: pino({ level: 'silent' }) }))
    return app
  }

  beforeAll(async () => {
    storage = await openStorage('duckdb::memory:', { rootPassword: 'taosdata' })
  })

  afterAll(async () => {
    await storage.close()
  })

  it('a failure on the first chunk is a normal error body', async () => {
    const res = await appWith(failingExecutor(0)).request('/rest/sql', { method: 'POST', body: 'select 1', headers: auth })
    expect(res.status).toBe(200)
    expect(await res.text()).toBe('{"code":9983,"desc":"Parser internal error"}')
  })

  it('a failure after rows were sent cuts the body instead of ending it cleanly', async () => {
    const res = await appWith(failingExecutor(40)).request('/rest/sql', { method: 'POST', body: 'select 1', headers: auth })
    expect(res.status).toBe(200)
    await expect(res.text()).rejects.toThrow()
  })
})

describe('/rest/sql answers over HTTP', () => {
  let storage: Storage

  beforeAll(async () => {
    storage = await openStorage('duckdb::memory:', { rootPassword: 'taosdata' })
  })

  afterAll(async () => {
    await storage.close()
  })

  /** the answer of `chunks` chunks of 1000 rows as a client sees it on the wire */
  async function answer(chunks: number): Promise<{ length: string | null; chunked: boolean; rows: number }> {
    const app = new Hono()
    app.route('/rest', createRestRoutes({ config: defaultConfig(), storage, sql: failingExecutor(-1, chunks), logger: pino({ level: 'silent' }) }))
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' })
    await new Promise((r) => server.once('listening', r))
    try {
      const { port } = server.address() as AddressInfo
      const res = await fetch(`http://127.0.0.1:${port}/rest/sql`, {
        method: 'POST',
        body: 'select 1',
        headers: { Authorization: `Basic ${Buffer.from('root:taosdata').toString('base64')}` },
      })
      const body = (await res.json()) as { rows: number }
      return { length: res.headers.get('content-length'), chunked: res.headers.get('transfer-encoding') === 'chunked', rows: body.rows }
    } finally {
      await new Promise((r) => server.close(r))
    }
  }

  it('sends an answer that fits one part in one piece with its length', async () => {
    const small = await answer(1)
    expect(small).toMatchObject({ chunked: false, rows: 1000 })
    expect(Number(small.length)).toBeGreaterThan(0)
  })

  it('streams a larger answer in chunks', async () => {
    expect(await answer(40)).toEqual({ length: null, chunked: true, rows: 40_000 })
  })
})
