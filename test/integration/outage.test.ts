/**
 * PostgreSQL outages with a real adapter process: started while the database is down (it starts
 * anyway and answers 503), and the database stopped mid-run under a steady write load. While it
 * is down: /rest/sql and /-/ping?action=query answer 503 with a clear reason, /-/live stays 200.
 * When it is back the adapter recovers by itself, and every acknowledged write is there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT_AUTH, sql, sqlOk, startAdapter, waitQueryReady } from './adapter-process.js'
import type { AdapterProcess } from './adapter-process.js'
import { startPostgres } from './pg-container.js'
import type { PgContainer } from './pg-container.js'
import { freshDatabase } from './pg-databases.js'

let pgc: PgContainer | undefined
let adapter: AdapterProcess | undefined

beforeAll(async () => {
  pgc = await startPostgres()
})

afterAll(async () => {
  await adapter?.stop()
  await pgc?.stop()
})

function PG(): PgContainer {
  return pgc as PgContainer
}

async function status(url: string): Promise<number> {
  return (await fetch(url)).status
}

/** `stmt` must need the database (catalog-only statements are served from the cached catalog once loaded) */
async function expectDown(base: string, stmt: string): Promise<void> {
  expect(await status(`${base}/-/live`)).toBe(200)
  expect(await status(`${base}/-/ping?action=query`)).toBe(503)
  const r = await sql(base, stmt)
  expect(`${r.status} ${r.text}`).toMatch(/^503 /)
  expect(r.json?.code).toBe(65535)
  // the reason names the database server, not a generic failure
  expect(String(r.json?.desc)).toMatch(/PostgreSQL|storage unavailable/)
}

const T0 = 1_700_000_000_000

describe('PostgreSQL outage', () => {
  it('starts while PostgreSQL is down, answers 503, and recovers when it comes up', async () => {
    const url = await freshDatabase(PG(), 'outage')
    await PG().pause()
    try {
      adapter = await startAdapter(url)
      // nothing is loaded yet: even catalog reads are 503
      await expectDown(adapter.base, 'SHOW DATABASES')
      await sql(adapter.base, `INSERT INTO nowhere.t VALUES (${T0}, 1)`).then((r) => expect(r.status).toBe(503))
      // schemaless writes check credentials against the catalog first: still 503, never 500
      for (const [path, body] of [
        ['/lineproto/v1/write?db=o&precision=ms', `m,k=1 v=1 ${T0}`],
        ['/tsdbproto/v1/put/telnet/o', `put m ${T0 / 1000} 1 k=1`],
      ]) {
        const r = await fetch(`${adapter.base}${path}`, { method: 'POST', body, headers: { Authorization: ROOT_AUTH } })
        expect(`${r.status} ${await r.text()}`).toMatch(/^503 .*PostgreSQL|^503 .*storage/)
      }
    } finally {
      await PG().resume()
    }
    await waitQueryReady(adapter.base, 30_000)
    await sqlOk(adapter.base, 'CREATE DATABASE o')
    await sqlOk(adapter.base, 'CREATE STABLE o.m (ts TIMESTAMP, v INT) TAGS (k INT)')
    expect((await sqlOk(adapter.base, 'SHOW DATABASES')).json.data.map((r: unknown[]) => r[0])).toContain('o')
  })

  it('stopped mid-run: 503s while down, recovery after, no acknowledged write lost', async () => {
    const base = (adapter as AdapterProcess).base
    const acked: number[] = []
    const refused: string[] = []
    let i = 0
    let stop = false
    // one writer, one row per request, like an agent retrying on 503
    const writer = (async () => {
      while (!stop) {
        const n = i++
        const r = await sql(base, `INSERT INTO o.d1 USING o.m TAGS (1) VALUES (${T0 + n}, ${n})`).catch((e: unknown) => ({
          status: 0,
          json: undefined,
          text: String(e),
        }))
        if (r.status === 200 && r.json?.code === 0) {
          acked.push(n)
        } else {
          refused.push(`${r.status} ${r.text}`)
          await new Promise((res) => setTimeout(res, 50))
        }
      }
    })()
    const wait = (ms: number): Promise<void> => new Promise((res) => setTimeout(res, ms))
    await wait(1_000)
    const before = acked.length
    expect(before).toBeGreaterThan(0)
    await PG().pause()
    try {
      await wait(500)
      await expectDown(base, 'SELECT count(*) FROM o.m')
      await wait(1_000)
    } finally {
      await PG().resume()
    }
    await waitQueryReady(base, 30_000)
    // writes flow again by themselves
    const resumedAt = acked.length
    await wait(1_500)
    stop = true
    await writer
    expect(acked.length).toBeGreaterThan(resumedAt)
    expect(refused.length).toBeGreaterThan(0)
    // every refusal while down was a 503 with a reason
    expect(refused.filter((x) => !x.startsWith('503 '))).toEqual([])
    const rows = (await sqlOk(base, 'SELECT v FROM o.d1 ORDER BY ts')).json.data.map((r: unknown[]) => r[0]) as number[]
    const stored = new Set(rows)
    expect(acked.filter((n) => !stored.has(n))).toEqual([])
  })
})
