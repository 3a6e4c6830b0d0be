/**
 * Cardinality limits of schemaless writes (issue 33): --schemaless.maxStablesPerDatabase and
 * --schemaless.maxTablesPerDatabase through real HTTP line protocol. Lines that would create a
 * super table or child table past a limit are rejected (400, naming the flag), nothing of them is
 * written, the other lines of the body are, and known series keep being written.
 */
import { pino } from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { startAdapter, type RunningAdapter } from '../../src/lifecycle.js'
import { testAdapterConfig } from '../lib/adapter-config.js'

const AUTH = `Basic ${Buffer.from('root:taosdata').toString('base64')}`

let adapter: RunningAdapter | undefined

afterEach(async () => {
  await adapter?.stop()
  adapter = undefined
})

async function start(maxStables: number, maxTables: number): Promise<RunningAdapter> {
  const config = testAdapterConfig('table-limits-')
  config.smlAutoCreateDB = true
  config.schemaless = { maxStablesPerDatabase: maxStables, maxTablesPerDatabase: maxTables }
  adapter = await startAdapter(config, { logger: pino({ level: 'silent' }) })
  return adapter
}

async function write(a: RunningAdapter, body: string): Promise<{ status: number; json: { desc?: string; rejected?: number; written?: number } }> {
  const res = await fetch(`${a.url}/lineproto/v1/write?db=lim&precision=ms`, { method: 'POST', body, headers: { Authorization: AUTH } })
  const text = await res.text()
  return { status: res.status, json: text === '' ? {} : (JSON.parse(text) as { desc?: string }) }
}

async function count(a: RunningAdapter, table: string): Promise<number> {
  const res = await fetch(`${a.url}/rest/sql`, { method: 'POST', body: `select count(*) from lim.${table}`, headers: { Authorization: AUTH } })
  const j = (await res.json()) as { code: number; data?: unknown[][]; desc?: string }
  if (j.code !== 0) {
    throw new Error(`count ${table}: ${j.code} ${j.desc}`)
  }
  return Number(j.data?.[0]?.[0])
}

async function showStables(a: RunningAdapter): Promise<string[]> {
  const res = await fetch(`${a.url}/rest/sql`, { method: 'POST', body: 'show lim.stables', headers: { Authorization: AUTH } })
  const j = (await res.json()) as { data: unknown[][] }
  return j.data.map((r) => String(r[0])).sort()
}

describe('schemaless table limits', () => {
  it('rejects the lines of a new super table past maxStablesPerDatabase and writes the rest', async () => {
    const a = await start(2, 0)
    expect((await write(a, 'm1,h=a v=1 1000\nm2,h=a v=1 1000')).status).toBe(204)
    const r = await write(a, 'm1,h=a v=2 2000\nm3,h=a v=1 1000\nm3,h=b v=1 1000\nm2,h=b v=1 1000')
    expect(r.status).toBe(400)
    expect(r.json.desc).toContain('schemaless.maxStablesPerDatabase')
    expect(r.json.desc).toContain('m3')
    expect(r.json.rejected).toBe(2)
    expect(r.json.written).toBe(2)
    expect(await showStables(a)).toEqual(['m1', 'm2'])
    expect(await count(a, 'm1')).toBe(2)
    expect(await count(a, 'm2')).toBe(2)
    // the server keeps serving the known super tables
    expect((await write(a, 'm1,h=c v=3 3000')).status).toBe(204)
  })

  it('rejects the lines of new child tables past maxTablesPerDatabase, keeps writing known series', async () => {
    const a = await start(0, 3)
    expect((await write(a, 'm,h=a v=1 1000\nm,h=b v=1 1000')).status).toBe(204)
    // one more child fits: h=c is created, h=d and h=e are not
    const r = await write(a, 'm,h=c v=1 1000\nm,h=d v=1 1000\nm,h=e v=1 1000\nm,h=a v=2 2000')
    expect(r.status).toBe(400)
    expect(r.json.desc).toContain('schemaless.maxTablesPerDatabase')
    expect(r.json.rejected).toBe(2)
    expect(r.json.written).toBe(2)
    expect(await count(a, 'm')).toBe(4)
    // a new measurement at the limit creates no super table either
    const n = await write(a, 'other,h=a v=1 1000')
    expect(n.status).toBe(400)
    expect(n.json.desc).toContain('schemaless.maxTablesPerDatabase')
    expect(await showStables(a)).toEqual(['m'])
    expect((await write(a, 'm,h=b v=3 3000\nm,h=c v=3 3000')).status).toBe(204)
    expect(await count(a, 'm')).toBe(6)
  })

  it('new children of several new super tables in one body count against maxTablesPerDatabase together', async () => {
    // the children of a body's new super tables are created together after the super tables:
    // the limit counts the ones still to be created, not only those in the catalog
    const a = await start(0, 3)
    const r = await write(a, 'a,h=x v=1 1000\nb,h=x v=1 1000\nc,h=x v=1 1000\nd,h=x v=1 1000\ne,h=y v=1 1000\na,h=x v=2 2000')
    expect(r.status).toBe(400)
    expect(r.json.desc).toContain('schemaless.maxTablesPerDatabase')
    expect(r.json.rejected).toBe(2)
    expect(r.json.written).toBe(4)
    expect(await showStables(a)).toEqual(['a', 'b', 'c'])
    expect(await count(a, 'a')).toBe(2)
    expect(await count(a, 'c')).toBe(1)
  })

  it('0 means no limit', async () => {
    const a = await start(0, 0)
    const body = Array.from({ length: 50 }, (_, i) => `m${i},h=a v=1 1000`).join('\n')
    expect((await write(a, body)).status).toBe(204)
    expect((await showStables(a)).length).toBe(50)
  })
})
