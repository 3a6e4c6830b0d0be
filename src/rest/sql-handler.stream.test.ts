import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import pino from 'pino'
import { Hono } from 'hono'
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
function failingExecutor(failAtChunk: number): SqlExecutor {
  return {
    classify: () => 'query',
    async execute(): Promise<SqlResult> {
      async function* rows(): AsyncGenerator<unknown[][]> {
        for (let k = 0; ; k++) {
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
