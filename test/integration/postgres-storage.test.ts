/**
 * The backend-neutral storage suite (test/storage/storage.case.ts, also run on DuckDB) on a real
 * PostgreSQL: same expectations, opened through openStorage with a postgres:// URL.
 */
import { afterAll, beforeAll } from 'vitest'
import { openStorage } from '../../src/sql/catalog/open.js'
import { runStorageSuite } from '../storage/storage.case.js'
import { startPostgres } from './pg-container.js'
import type { PgContainer } from './pg-container.js'

let pg: PgContainer | undefined

beforeAll(async () => {
  pg = await startPostgres()
})

afterAll(async () => {
  await pg?.stop()
})

runStorageSuite(
  'postgres',
  () => {
    if (!pg) {
      throw new Error('PostgreSQL container not started')
    }
    return openStorage(pg.url, { rootPassword: 'taosdata', pool: { maxConnect: 8, maxIdle: 4, idleTimeout: 0 } })
  },
  { persistent: true },
)
