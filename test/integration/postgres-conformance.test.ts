/**
 * The full /rest/sql conformance suite (test/sql/conformance.case.ts, also run on DuckDB) on a
 * real PostgreSQL, with the same expectations: each server of the suite gets its own empty
 * PostgreSQL database.
 */
import { afterAll, beforeAll } from 'vitest'
import { runConformance } from '../sql/conformance.case.js'
import { startPostgres } from './pg-container.js'
import type { PgContainer } from './pg-container.js'
import { freshDatabase } from './pg-databases.js'

let pgc: PgContainer | undefined

beforeAll(async () => {
  pgc = await startPostgres()
})

afterAll(async () => {
  await pgc?.stop()
})

runConformance('PostgreSQL', () => {
  if (!pgc) {
    throw new Error('PostgreSQL container not started')
  }
  return freshDatabase(pgc, 'conf')
})
