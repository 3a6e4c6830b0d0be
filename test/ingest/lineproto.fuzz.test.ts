/**
 * Fuzz: random, mutated and hostile (wide, long, deep, badly named) bodies POSTed to
 * /lineproto/v1/write over the real server must get a 2xx or 4xx answer, never a 5xx; /-/ping
 * never waits 1 s; data written before the fuzzing is unchanged after it, and a valid write
 * afterwards is stored. Some 2,400 bodies from a fixed seed (test/lib/fuzz.ts: FUZZ_SEED,
 * FUZZ_RUNS).
 */
import fc from 'fast-check'
import { HOSTILE_NAMES, fuzzParams, mutatedText, repeated, watchStalls } from '../lib/fuzz.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningAdapter } from '../../src/lifecycle.js'
import { ROOT_AUTH, post, sql, sqlRows, startIngestServer } from './server.js'

let server: RunningAdapter
let stalls: { stop(): Promise<number> }
let baseline: unknown[][]

beforeAll(async () => {
  server = await startIngestServer((c) => {
    c.http.maxBodySize = 256 * 1024
  })
  await sql(server.url, "create database fz precision 'ns'")
  const before = await post(`${server.url}/lineproto/v1/write?db=fz`, 'keep_before,h=a v=1.5,n=2i,s="kept" 1\nkeep_before,h=b v=2.5,n=3i,s="also" 2', { Authorization: ROOT_AUTH })
  expect(before.status, before.text).toBe(204)
  baseline = await sqlRows(server.url, 'select * from fz.keep_before order by h')
  stalls = await watchStalls(server.url)
})

afterAll(async () => {
  // a failed test leaves the watch running: stopped before the server goes
  await stalls?.stop()
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

const lpName = (n: string): string => n.replace(/[, =\\]/g, (c) => `\\${c}`)
const hostileName = fc.constantFrom(...HOSTILE_NAMES).map(lpName)
/** wide lines, long runs of one token, and hostile names as measurement, tag and field */
const hostile = fc.oneof(
  // widths around the limits (128 tags, 4094 fields); wide tables that fit are costly DDL, so few
  fc.tuple(hostileName, fc.oneof(fc.nat({ max: 200 }), fc.integer({ min: 4090, max: 6000 })), fc.boolean()).map(([n, k, tags]) => {
    const kv = Array.from({ length: k }, (_, i) => `${n}${i}=${i}`).join(',')
    return tags ? `wide,${kv} v=1 1\nok,h=a v=1 1` : `wide,h=a ${kv} 1\nok,h=a v=1 1`
  }),
  repeated(['x\n', 'm f="\n', 'm,', ',', '\\', '=', '"', 'm,a=b c=1 1\n', ' '], 20_000),
  fc.tuple(hostileName, hostileName, hostileName).map(([m, t, f]) => `${m || 'm'},${t || 't'}=v ${f || 'f'}=1 1\nhost,h=a ${f || 'f'}=1 1\nhost,${t || 't'}=a v=1 1`),
)

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
      fuzzParams(1200),
    )
  }, 120_000)

  it('random text and random bytes never get a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(randomText, randomBytes), precision, async (body, prec) => {
        await check(body, prec)
      }),
      fuzzParams(800),
    )
  }, 120_000)

  it('wide, long and badly named bodies never get a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(hostile, async (body) => {
        await check(body, '')
      }),
      fuzzParams(400),
    )
  }, 120_000)

  it('the server still serves and stores data after the fuzzing, and kept what it had', async () => {
    expect(await stalls.stop(), '/-/ping waited 1 s or more during the fuzzing').toBeLessThan(1000)
    expect(await sqlRows(server.url, 'select * from fz.keep_before order by h')).toEqual(baseline)
    const ping = await fetch(`${server.url}/-/ping`)
    expect(ping.status).toBe(200)
    const res = await post(`${server.url}/lineproto/v1/write?db=fz`, 'after_fuzz,h=a v=7 1', { Authorization: ROOT_AUTH })
    expect(res.status, res.text).toBe(204)
    expect(await sqlRows(server.url, 'select v from fz.after_fuzz')).toEqual([[7]])
  })
})
