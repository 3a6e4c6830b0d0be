/**
 * The schemaless ingestion tests (test/ingest/*.test.ts, written against DuckDB) re-run as they
 * are on a real PostgreSQL: `startAdapter` is wrapped so that every adapter those tests start
 * gets its own fresh PostgreSQL database instead of `duckdb::memory:`. Same expectations.
 */
import { afterAll, beforeAll, expect, vi } from 'vitest'
import type { AppConfig } from '../../src/config/types.js'
import { startPostgres } from './pg-container.js'
import type { PgContainer } from './pg-container.js'
import { freshDatabase } from './pg-databases.js'

const state = vi.hoisted(() => ({ pgc: undefined as PgContainer | undefined, servers: 0 }))

vi.mock('../../src/lifecycle.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/lifecycle.js')>()
  return {
    ...real,
    startAdapter: async (config: AppConfig, opts?: Parameters<typeof real.startAdapter>[1]) => {
      if (!state.pgc) {
        throw new Error('PostgreSQL container not started')
      }
      if (config.storage.url.startsWith('duckdb:')) {
        config.storage.url = await freshDatabase(state.pgc, 'ingest')
        state.servers += 1
      }
      return real.startAdapter(config, opts)
    },
  }
})

// registered before the imported suites' hooks, so the container is up when they start servers
beforeAll(async () => {
  state.pgc = await startPostgres()
})

afterAll(async () => {
  await state.pgc?.stop()
  // the wrapper really was in the path: the suites ran on PostgreSQL, not on DuckDB
  expect(state.servers).toBeGreaterThan(0)
})

await import('../ingest/lineproto.test.js')
await import('../ingest/tsdbproto.test.js')
await import('../ingest/metricsproto.test.js')
await import('../e2e/prometheus.test.js')
await import('../ingest/influxdb-client.test.js')
await import('../ingest/lineproto.fuzz.test.js')
await import('../ingest/tsdbproto.fuzz.test.js')
await import('../ingest/collagent.test.js')
await import('../e2e/collectd.test.js')
