/**
 * Issue 33: work bounded by the limits, not by the input. Wide and long lines and statements sent
 * to a real adapter process (DuckDB on disk) are refused with a 400 (or 9728) naming the line and
 * the limit, the good lines of the same body are written, and `/-/ping` answers within 100 ms all
 * the while. Before: a 16,000-tag telnet line blocked the loop for 9.7 s, a 100,000-tag
 * line-protocol line for 265 s, a 100,000-term SELECT for 40 s.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT_AUTH, startAdapter, type AdapterProcess } from '../integration/adapter-process.js'
import { watchPing } from '../lib/ping-watch.js'

const PING_BOUND_MS = 100

let adapter: AdapterProcess

interface Answer {
  status: number
  body: Record<string, unknown>
}

async function post(path: string, body: string): Promise<Answer> {
  const res = await fetch(`${adapter.base}${path}`, { method: 'POST', headers: { Authorization: ROOT_AUTH }, body })
  const text = await res.text()
  return { status: res.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) }
}

async function rows(statement: string): Promise<unknown[][]> {
  const a = await post('/rest/sql', statement)
  expect(a.body.code, JSON.stringify(a.body)).toBe(0)
  return a.body.data as unknown[][]
}

/**
 * Posts while watching /-/ping: the answer and the slowest ping. On a shared 2-core machine other
 * test files starve the adapter process now and then, so the body is sent up to three times and
 * the best run counts: a stall the request causes shows in every run, a scheduling hiccup not.
 * `body(attempt)` may vary the names so each run does the same work.
 */
async function watched(path: string, body: string | ((attempt: number) => string), boundMs = PING_BOUND_MS): Promise<Answer & { worstMs: number }> {
  let best: (Answer & { worstMs: number }) | undefined
  for (let attempt = 0; attempt < 3 && (best === undefined || best.worstMs >= boundMs); attempt++) {
    const watch = await watchPing(adapter.base)
    const answer = await post(path, typeof body === 'string' ? body : body(attempt))
    const { worstMs } = await watch.stop()
    if (best === undefined || worstMs < best.worstMs) {
      best = { ...answer, worstMs }
    }
  }
  return best as Answer & { worstMs: number }
}

const lpTags = (n: number): string => Array.from({ length: n }, (_, i) => `t${i}=v${i}`).join(',')
const lpFields = (n: number): string => Array.from({ length: n }, (_, i) => `f${i}=${i}`).join(',')

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wide-lines-'))
  adapter = await startAdapter(`duckdb:${join(dir, 'w.duckdb')}`)
  await rows("create database w precision 'ns'")
  // one of each kind first, so the timings below are not the JIT's first run
  await post('/lineproto/v1/write?db=w', `warm,${lpTags(200)} f=1 1\nwarm,h=a ${lpFields(5000)} 1`)
  await post('/tsdbproto/v1/put/telnet/w', `put warm.t 1700000000 1 ${lpTags(200).replaceAll(',', ' ')}`)
  await post('/rest/sql', `SELECT ${Array(5000).fill('1').join(' + ')}`)
}, 120_000)

afterAll(async () => {
  await adapter?.stop()
})

describe('wide lines are refused as they are read, good lines are written, /-/ping stays fast', () => {
  it('line protocol: a line with 100,000 tags', async () => {
    const a = await watched('/lineproto/v1/write?db=w', `lpt,${lpTags(100_000)} f=1 1\nlp_ok,h=a f=1 1`)
    expect(a.status).toBe(400)
    expect(String(a.body.desc)).toMatch(/line 1: more than 128 tags/)
    expect(a.worstMs).toBeLessThan(PING_BOUND_MS)
    expect(await rows('select f from w.lp_ok')).toEqual([[1]])
  }, 30_000)

  it('line protocol: a line with 100,000 fields', async () => {
    const a = await watched('/lineproto/v1/write?db=w', `lpf,h=a ${lpFields(100_000)} 1\nlp_ok2,h=a f=2 1`)
    expect(a.status).toBe(400)
    expect(String(a.body.desc)).toMatch(/line 1: more than 4094 fields/)
    expect(a.worstMs).toBeLessThan(PING_BOUND_MS)
    expect(await rows('select f from w.lp_ok2')).toEqual([[2]])
  }, 30_000)

  it('line protocol: 4,096 columns fit (128 tags, 3,967 fields and the timestamp), one more does not', async () => {
    const over = await post('/lineproto/v1/write?db=w', `lp_over,${lpTags(128)} ${lpFields(3968)} 1`)
    expect(over.status).toBe(400)
    expect(String(over.body.desc)).toMatch(/more than 4096 columns and tags/)
    // A new super table of 4,096 columns each time. Not a refusal but a write: its row goes through
    // DuckDB's appender, whose synchronous close costs ~100-150 ms on a table this wide (storage,
    // src/storage/duckdb/append-rows.ts), hence the wider bound here.
    const a = await watched('/lineproto/v1/write?db=w', (n) => `lp_max${n},${lpTags(128)} ${lpFields(3967)} 1`, PING_BOUND_MS * 5)
    expect(a.status, JSON.stringify(a.body)).toBe(204)
    expect(a.worstMs).toBeLessThan(PING_BOUND_MS * 5)
    expect(await rows('select count(*) from w.lp_max0')).toEqual([[1]])
  }, 30_000)

  it('line protocol: 200,000 short bad lines and an unclosed quote on each of 100,000 lines', async () => {
    for (const body of ['x\n'.repeat(200_000) + 'lp_ok3,h=a f=3 1', 'm f="\n'.repeat(100_000) + 'lp_ok4,h=a f=4 1']) {
      const a = await watched('/lineproto/v1/write?db=w', body)
      expect(a.status).toBe(400)
      expect(a.worstMs).toBeLessThan(PING_BOUND_MS)
    }
    expect(await rows('select f from w.lp_ok3')).toEqual([[3]])
    expect(await rows('select f from w.lp_ok4')).toEqual([[4]])
  }, 60_000)

  it('OpenTSDB telnet: a line with 16,000 tags', async () => {
    const a = await watched('/tsdbproto/v1/put/telnet/w', `put tn.wide 1700000000 1 ${lpTags(16_000).replaceAll(',', ' ')}\nput tn.ok 1700000000 5 h=a`)
    expect(a.status).toBe(400)
    expect(JSON.stringify(a.body)).toMatch(/line 1: more than 128 tags/)
    expect(a.worstMs).toBeLessThan(PING_BOUND_MS)
    expect(a.body.written).toBe(1)
    expect(await rows('select _value from w.tn_ok')).toEqual([[5]])
  }, 30_000)

  it('OpenTSDB telnet: 100,000 lines whose tags have no "="', async () => {
    const a = await watched('/tsdbproto/v1/put/telnet/w', 'put tn.x 1700000000 1 a\n'.repeat(100_000))
    expect(a.status).toBe(400)
    expect(a.worstMs).toBeLessThan(PING_BOUND_MS)
  }, 30_000)

  it('OpenTSDB JSON: an item with 16,000 tags', async () => {
    const tags = Object.fromEntries(Array.from({ length: 16_000 }, (_, i) => [`t${i}`, `v${i}`]))
    const good = { metric: 'js.ok', timestamp: 1700000000, value: 6, tags: { h: 'a' } }
    const a = await watched('/tsdbproto/v1/put/json/w', JSON.stringify([{ metric: 'js.wide', timestamp: 1700000000, value: 1, tags }, good]))
    expect(a.status).toBe(400)
    expect(JSON.stringify(a.body)).toMatch(/item 0: more than 128 tags/)
    expect(a.worstMs).toBeLessThan(PING_BOUND_MS)
    expect(await rows('select _value from w.js_ok')).toEqual([[6]])
  }, 30_000)

  it('SQL: 100,000 terms and 3,000 nested parentheses answer 9728 at once', async () => {
    const chain = await watched('/rest/sql', `SELECT ${Array(100_000).fill('1').join(' + ')}`)
    expect(chain.body.code).toBe(9728)
    expect(String(chain.body.desc)).toMatch(/expression too complex/)
    expect(chain.worstMs).toBeLessThan(PING_BOUND_MS)
    const nest = await watched('/rest/sql', `SELECT ${'('.repeat(3000)}1${')'.repeat(3000)}`)
    expect(nest.body.code).toBe(9728)
    expect(String(nest.body.desc)).toMatch(/nested levels/)
    expect(nest.worstMs).toBeLessThan(PING_BOUND_MS)
    // and the adapter still answers SQL
    expect(await rows('select 1 + 1')).toEqual([[2]])
  }, 30_000)
})
