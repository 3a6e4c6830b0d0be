/**
 * The planner's per-child pre-aggregation compared with the join-first plan
 * (test/sql/pre-aggregate.case.ts), and INTERVAL window numbering compared with grouping by the
 * aligned window start (test/sql/window-number.case.ts), both also run on DuckDB, on a real
 * PostgreSQL.
 */
import { afterAll, beforeAll } from 'vitest'
import { openStorage } from '../../src/sql/catalog/open.js'
import { runPreAggregateSuite } from '../sql/pre-aggregate.case.js'
import { runWindowNumberSuite } from '../sql/window-number.case.js'
import { startPostgres, type PgContainer } from './pg-container.js'

let pg: PgContainer | undefined

beforeAll(async () => {
  pg = await startPostgres()
})

afterAll(async () => {
  await pg?.stop()
})

function openPostgres(): ReturnType<typeof openStorage> {
  if (!pg) {
    throw new Error('PostgreSQL container not started')
  }
  return openStorage(pg.url, { rootPassword: 'taosdata' })
}

runPreAggregateSuite('postgres', openPostgres)
runWindowNumberSuite('postgres', openPostgres)
