/**
 * The work budget through real HTTP (issue 33): streamed query results hold their share of
 * monitor.workMemory until their answer is complete; past the budget new requests wait
 * monitor.workWait, then get 503 with Retry-After and a message naming the flag; room comes back
 * when answers complete; all-paused cancels the running queries, whose clients see an error.
 */
import { request, type IncomingMessage } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAdapter, type RunningAdapter } from '../../src/lifecycle.js'
import { testAdapterConfig } from '../lib/adapter-config.js'

const AUTH = { Authorization: `Basic ${Buffer.from('root:taosdata').toString('base64')}` }
const ROWS = 200_000
/** rows of ~150 bytes: a result (~30 MB) far larger than what socket buffers take in */
const PAD = "x".repeat(120)
let adapter: RunningAdapter

const query = (sql: string): Promise<Response> => fetch(`${adapter.url}/rest/sql`, { method: 'POST', headers: AUTH, body: sql })
const BIG = 'select * from wb.m'

/**
 * A query whose client reads nothing yet: node's client pauses the socket, so the adapter's
 * stream stalls on backpressure and its result holds its share (fetch would read ahead).
 */
function held(): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request(`${adapter.url}/rest/sql`, { method: 'POST', headers: AUTH }, (res) => {
      res.pause()
      resolve(res)
    })
    req.on('error', reject)
    req.end(BIG)
  })
}

/** Reads the rest of a held answer; rejects when the adapter breaks it off. */
function readAll(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = []
    res.on('data', (d: Buffer) => parts.push(d))
    res.on('end', () => (res.complete ? resolve(Buffer.concat(parts).toString()) : reject(new Error('incomplete body'))))
    res.on('aborted', () => reject(new Error('aborted')))
    res.on('error', reject)
    res.resume()
  })
}

beforeAll(async () => {
  const config = testAdapterConfig('work-budget-')
  // the sampler runs (it reopens the work budget after all-paused) but never pauses by itself
  config.monitor.pauseQueryMemoryThreshold = 100
  config.monitor.pauseAllMemoryThreshold = 100
  config.monitor.collectDuration = 20
  // a query's share is 45%: two streamed results leave 10%, less than a third one needs
  config.monitor.workMemory = 4 * 2 ** 20
  config.monitor.workWait = 300
  adapter = await startAdapter(config)
  expect(((await (await query('create database wb precision "ms"')).json()) as { code: number }).code).toBe(0)
  const lines: string[] = []
  for (let i = 0; i < ROWS; i++) {
    lines.push(`m,h=h${i % 10} v=${i}i,s="${PAD} ${i}" ${1_700_000_000_000 + i}`)
  }
  const res = await fetch(`${adapter.url}/lineproto/v1/write?db=wb&precision=ms`, { method: 'POST', headers: AUTH, body: lines.join('\n') })
  expect(res.status).toBe(204)
}, 60_000)

afterAll(async () => {
  await adapter?.stop()
})

async function metric(name: string): Promise<string> {
  const text = await (await fetch(`${adapter.url}/metrics`)).text()
  return text.split('\n').filter((l) => l.startsWith(name)).join('\n')
}

describe('work budget', () => {
  it('held results fill it: the next request waits, then 503 naming monitor.workMemory; room returns when they complete', async () => {
    // two results whose clients do not read yet: the streams stall on the socket and hold their share
    const stalled = [await held(), await held()]
    expect(stalled.map((r) => r.statusCode)).toEqual([200, 200])
    expect(await metric('db_adapter_work_memory_reserved_bytes')).toBe(`db_adapter_work_memory_reserved_bytes ${2 * Math.floor(4 * 2 ** 20 * 0.45)}`)

    const t0 = Date.now()
    const refused = await query('select count(*) from wb.m')
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250)
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toBe('2')
    expect(((await refused.json()) as { desc: string }).desc).toMatch(/^memory budget exhausted: requests in flight hold monitor\.workMemory; waited \d+ ms$/)
    expect(await metric('db_adapter_work_memory_refused_total')).toMatch(/kind="query"} 1/)
    // a write whose body (4x its size while parsed) does not fit in what is left waits too
    const write = await fetch(`${adapter.url}/lineproto/v1/write?db=wb&precision=ms`, { method: 'POST', headers: AUTH, body: Array.from({ length: 20_000 }, (_, i) => `m,h=x v=${i}i 2`).join('\n') })
    expect(write.status).toBe(503)
    expect(write.headers.get('retry-after')).toBe('2')
    expect(await metric('db_adapter_work_memory_refused_total')).toMatch(/kind="write"} 1/)
    // a small one fits beside the held results
    expect((await fetch(`${adapter.url}/lineproto/v1/write?db=wb&precision=ms`, { method: 'POST', headers: AUTH, body: 'm,h=x v=1i 1' })).status).toBe(204)

    // a waiting request gets the room as soon as a held answer's client goes away
    const waiting = query('select count(*) from wb.m')
    await new Promise((r) => setTimeout(r, 50))
    stalled[1].destroy()
    expect(((await (await waiting).json()) as { data: unknown }).data).toEqual([[ROWS + 1]])
    // a held answer read to its end is whole, and frees its share
    const body = JSON.parse(await readAll(stalled[0])) as { data: unknown[] }
    expect(body.data).toHaveLength(ROWS)
    await expect.poll(() => metric('db_adapter_work_memory_reserved_bytes'), { timeout: 5000 }).toBe('db_adapter_work_memory_reserved_bytes 0')
  })

  it('all-paused cancels running queries: their clients see an error, and the budget is free again', async () => {
    const stalled = [await held(), await held()]
    expect(stalled.map((r) => r.statusCode)).toEqual([200, 200])
    adapter.gate.set('all-paused')
    try {
      for (const r of stalled) {
        await expect(readAll(r)).rejects.toThrow()
      }
      await expect.poll(() => metric('db_adapter_work_memory_reserved_bytes'), { timeout: 5000 }).toBe('db_adapter_work_memory_reserved_bytes 0')
    } finally {
      adapter.gate.set('normal')
    }
    // the budget was narrowed to an eighth; the sampler widens it at each sample, and the query
    // (45% of it) gets in once half is open, within its monitor.workWait
    expect(((await (await query('select count(*) from wb.m')).json()) as { data: unknown }).data).toEqual([[ROWS + 1]])
  })
})
