/**
 * Fuzz: random and mutated bodies POSTed to /lineproto/v1/write over the real server must get a
 * 2xx or 4xx answer, never a 5xx, and the server must keep serving (a valid write afterwards is
 * stored). Random inputs come from fast-check (the seed is printed on failure for replay).
 */
import fc from 'fast-check'
import { mutatedText } from '../lib/fuzz.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningAdapter } from '../../src/lifecycle.js'
import { ROOT_AUTH, post, sql, sqlRows, startIngestServer } from './server.js'

/** FUZZ_RUNS=<n> runs longer locally; the default keeps CI quick */
const RUNS = Number(process.env.FUZZ_RUNS ?? 250)

let server: RunningAdapter

beforeAll(async () => {
  server = await startIngestServer((c) => {
    c.http.maxBodySize = 256 * 1024
  })
  await sql(server.url, "create database fz precision 'ns'")
})

afterAll(async () => {
  await server.stop()
})

const SEEDS = [
  'cpu,host=a,region=eu usage=1.5,idle=2i,ok=t,msg="hi" 1700000000000000000',
  'm\\,x,t\\ k=v\\=1 f\\=k="a\\"b\\\\",u=3u,n=L"wide" 1',
  'weather temperature=82 1465839830100400200\nweather,location=us temperature=-1e3',
  'x,a=1,b=2 c=1i8,d=2u16,e=3.5f32,f=F 99',
  '# comment\r\n\r\nmeasure field="multi word value" \r\n',
]

// characters that matter to the grammar, plus some that stress storage (quotes, NUL, unicode)
const SPECIAL = [',', ' ', '=', '"', '\\', '\n', '\r', '#', 'i', 'u', 't', 'L', '.', '-', 'e', '0', '9', '\u0000', "'", '`', 'µ', '😀', '\t']

const mutated = mutatedText(SEEDS, SPECIAL)

const randomText = fc.string({ unit: 'binary', maxLength: 300 })
const randomBytes = fc.uint8Array({ maxLength: 300 })
const precision = fc.constantFrom('', 'ns', 'us', 'ms', 's', 'm', 'h', 'x')

async function check(body: string | Uint8Array, prec: string): Promise<void> {
  const q = prec === '' ? 'db=fz' : `db=fz&precision=${prec}`
  const res = await post(`${server.url}/lineproto/v1/write?${q}`, body, { Authorization: ROOT_AUTH })
  expect(res.status, `body ${JSON.stringify(typeof body === 'string' ? body : Buffer.from(body).toString('latin1'))} -> ${res.status} ${res.text}`).toBeLessThan(500)
  if (res.status !== 204) {
    expect(res.status).toBeGreaterThanOrEqual(400)
    // every error answer is the JSON error body
    expect(res.json?.code).toBe(res.status)
  }
}

describe('lineproto fuzz', () => {
  it('mutated valid bodies never get a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(mutated, precision, async (body, prec) => {
        await check(body, prec)
      }),
      { numRuns: RUNS },
    )
  }, 120_000)

  it('random text and random bytes never get a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(randomText, randomBytes), precision, async (body, prec) => {
        await check(body, prec)
      }),
      { numRuns: RUNS },
    )
  }, 120_000)

  it('the server still serves and stores data after the fuzzing', async () => {
    const ping = await fetch(`${server.url}/-/ping`)
    expect(ping.status).toBe(200)
    const res = await post(`${server.url}/lineproto/v1/write?db=fz`, 'after_fuzz,h=a v=7 1', { Authorization: ROOT_AUTH })
    expect(res.status, res.text).toBe(204)
    expect(await sqlRows(server.url, 'select v from fz.after_fuzz')).toEqual([[7]])
  })
})
