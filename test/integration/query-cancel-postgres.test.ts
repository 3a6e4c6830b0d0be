/**
 * Query timeout and cancellation on a real PostgreSQL: a /rest/sql statement running past
 * `rest.queryTimeout` answers 0x022D and its backend query is gone from pg_stat_activity (it was
 * cancelled, not left running); a client that disconnects cancels its query the same way.
 *
 * The slow statement: MATCH against a per-row pattern makes PostgreSQL compile one regular
 * expression per row (its cache holds 32), seconds over 200k rows.
 */
import pg from 'pg'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AppConfig } from '../../src/config/types.js'
import { startAdapter, type RunningAdapter } from '../../src/lifecycle.js'
import { testAdapterConfig } from '../lib/adapter-config.js'
import { startPostgres, type PgContainer } from './pg-container.js'
import { freshDatabase } from './pg-databases.js'

const AUTH = { Authorization: `Basic ${Buffer.from('root:taosdata').toString('base64')}` }
const ROWS = 200_000
const TIMEOUT_MS = 1000
const SLOW_COUNT = `select count(*) from qc.m where s match concat(s, s, s, 'x')`

let pgc: PgContainer
let url: string
let adapter: RunningAdapter
let config: AppConfig

async function sql(stmt: string, init: RequestInit = {}): Promise<{ body: any; ms: number }> {
  const t0 = performance.now()
  const res = await fetch(`${adapter.url}/rest/sql`, { method: 'POST', headers: AUTH, body: stmt, ...init })
  return { body: JSON.parse(await res.text()), ms: performance.now() - t0 }
}

/** Backend queries of this database still running a regular-expression match. */
async function runningMatches(): Promise<number> {
  const c = new pg.Client({ connectionString: url })
  await c.connect()
  try {
    const r = await c.query(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND query LIKE '%~%' AND pid <> pg_backend_pid()",
    )
    return (r.rows[0] as { n: number }).n
  } finally {
    await c.end()
  }
}

async function eventuallyNoMatches(limitMs: number): Promise<number> {
  const t0 = performance.now()
  while (performance.now() - t0 < limitMs) {
    if ((await runningMatches()) === 0) {
      return performance.now() - t0
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  return Infinity
}

beforeAll(async () => {
  pgc = await startPostgres()
  url = await freshDatabase(pgc, 'qcancel')
  config = testAdapterConfig('query-cancel-pg-')
  config.storage.url = url
  config.monitor.disable = true
  config.rest.queryTimeout = TIMEOUT_MS
  adapter = await startAdapter(config, { logger: pino({ level: 'silent' }) })
  expect((await sql('create database qc precision "ms"')).body.code).toBe(0)
  const lines: string[] = []
  for (let i = 0; i < ROWS; i++) {
    lines.push(`m,h=a s="abababababababababab${i}" ${1_700_000_000_000 + i}`)
  }
  const res = await fetch(`${adapter.url}/lineproto/v1/write?db=qc&precision=ms`, { method: 'POST', headers: AUTH, body: lines.join('\n') })
  expect(res.status).toBe(204)
}, 180_000)

afterAll(async () => {
  await adapter?.stop()
  await pgc?.stop()
})

describe('query timeout and cancellation on PostgreSQL', () => {
  it('a statement past rest.queryTimeout answers 0x022D and its backend query is cancelled', async () => {
    const r = await sql(SLOW_COUNT)
    expect(r.body.code).toBe(557)
    expect(r.body.desc).toBe('Query killed: it ran longer than rest.queryTimeout (1s)')
    expect(r.ms).toBeLessThan(TIMEOUT_MS + 8000)
    expect(await eventuallyNoMatches(5000)).toBeLessThan(5000)
    expect((await sql('select count(*) from qc.m')).body.data).toEqual([[ROWS]])
  }, 60_000)

  it('a client that disconnects cancels its backend query', async () => {
    config.rest.queryTimeout = 0
    try {
      const ac = new AbortController()
      const pending = sql(SLOW_COUNT, { signal: ac.signal })
      // running in PostgreSQL before the client goes away
      const t0 = performance.now()
      while ((await runningMatches()) === 0 && performance.now() - t0 < 5000) {
        await new Promise((r) => setTimeout(r, 50))
      }
      ac.abort()
      await expect(pending).rejects.toThrow()
      expect(await eventuallyNoMatches(5000)).toBeLessThan(5000)
    } finally {
      config.rest.queryTimeout = TIMEOUT_MS
    }
  }, 60_000)
})
