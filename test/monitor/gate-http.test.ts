/**
 * The whole chain in-process over a real socket: the real sampler reads a cgroup v2 tree (a copy
 * of the fixture in a temp dir whose memory.current the test rewrites), drives the Gate through
 * the spec's states, and the real endpoints answer: /-/ping (with and without action=query),
 * /rest/sql queries and writes, line protocol and OpenTSDB writes, /metrics gauges.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAdapter } from '../../src/lifecycle.js'
import type { RunningAdapter } from '../../src/lifecycle.js'
import type { GateState } from '../../src/monitor/gate.js'
import { testAdapterConfig } from '../lib/adapter-config.js'

const LIMIT = 1073741824 // the fixture's effective memory.max (pod.slice)
const FILE_CACHE = 120000000 // the fixture's inactive_file + active_file
const SCOPE = 'sys/fs/cgroup/kubepods.slice/pod.slice/cri.scope'
const AUTH = { Authorization: `Basic ${Buffer.from('root:taosdata').toString('base64')}` }

let root: string
let adapter: RunningAdapter

/** Sets the cgroup's memory in use to `percent` of the limit (memory.current = in use + page cache). */
function setUse(percent: number): void {
  writeFileSync(join(root, SCOPE, 'memory.current'), `${Math.round((percent / 100) * LIMIT) + FILE_CACHE}\n`)
}

async function waitFor(state: GateState): Promise<void> {
  const until = Date.now() + 3000
  while (adapter.gate.state !== state) {
    if (Date.now() > until) {
      throw new Error(`gate stayed ${adapter.gate.state}, expected ${state}`)
    }
    await new Promise((r) => setTimeout(r, 10))
  }
}

const get = (path: string): Promise<Response> => fetch(`${adapter.url}${path}`)
const sql = (text: string): Promise<Response> => fetch(`${adapter.url}/rest/sql`, { method: 'POST', body: text, headers: AUTH })
const lp = (body: string): Promise<Response> =>
  fetch(`${adapter.url}/lineproto/v1/write?db=g&u=root&p=taosdata`, { method: 'POST', body })
const tsdb = (body: string): Promise<Response> =>
  fetch(`${adapter.url}/tsdbproto/v1/put/telnet/g`, { method: 'POST', body, headers: AUTH })

/** monitor.workMemory and what of it is open now, from /metrics */
async function workMemory(): Promise<{ limit: number; open: number }> {
  const text = await (await get('/metrics')).text()
  const value = (name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1])
  return { limit: value('db_adapter_work_memory_limit_bytes'), open: value('db_adapter_work_memory_open_bytes') }
}

async function expectPaused(res: Response, body: string): Promise<void> {
  expect(res.status).toBe(503)
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8')
  expect(res.headers.get('retry-after')).toBe('120')
  // a JSON string, quotes included
  expect(await res.text()).toBe(JSON.stringify(body))
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'cgroup-tree-'))
  cpSync(join(import.meta.dirname, 'fixtures/v2'), root, { recursive: true })
  setUse(10)
  const config = testAdapterConfig('gate-http-')
  config.monitor.incgroup = true
  config.monitor.collectDuration = 20
  config.monitor.pauseQueryMemoryThreshold = 50
  config.monitor.pauseAllMemoryThreshold = 80
  adapter = await startAdapter(config, { logger: pino({ level: 'silent' }), cgroupRoot: root })
  expect((await sql('create database g')).status).toBe(200)
  expect((await sql('create table g.t (ts timestamp, v int)')).status).toBe(200)
})

afterAll(async () => {
  await adapter?.stop()
  rmSync(root, { recursive: true, force: true })
})

describe('memory gate over HTTP, driven by the sampler', () => {
  it('normal: everything served', async () => {
    await waitFor('normal')
    expect((await get('/-/ping')).status).toBe(200)
    expect((await get('/-/ping?action=query')).status).toBe(200)
    expect((await sql('select * from g.t')).status).toBe(200)
    expect((await lp('m,host=a v=1i 1700000001000000000')).status).toBe(204)
  })

  it('query-paused (60% > 50): queries 503 before running, writes still served', async () => {
    setUse(60)
    await waitFor('query-paused')
    expect((await get('/-/ping')).status).toBe(200)
    expect((await get('/-/ping?action=query')).status).toBe(503)
    await expectPaused(await sql('select * from g.t'), 'query memory exceeds threshold')
    await expectPaused(await sql('show databases'), 'query memory exceeds threshold')
    // writes and DDL are not queries
    expect((await sql('insert into g.t values (1700000000000, 1)')).status).toBe(200)
    expect((await lp('m,host=a v=2i 1700000002000000000')).status).toBe(204)
    expect((await tsdb('sys.cpu 1700000000 1 host=a\n')).status).toBe(204)
    expect((await get('/-/live')).status).toBe(200)
    const metrics = await (await get('/metrics')).text()
    expect(metrics).toMatch(/^db_adapter_gate_state 1$/m)
    expect(metrics).toMatch(/^db_adapter_memory_percent (59\.9999|60)/m)
  })

  it('all-paused (90% > 80): writes and queries 503 with the all body, /-/live still 200', async () => {
    setUse(90)
    await waitFor('all-paused')
    expect((await get('/-/ping')).status).toBe(503)
    expect((await get('/-/ping?action=query')).status).toBe(503)
    await expectPaused(await lp('m,host=a v=3i 1700000003000000000'), 'memory exceeds threshold')
    await expectPaused(await tsdb('sys.cpu 1700000001 1 host=a\n'), 'memory exceeds threshold')
    await expectPaused(await sql('insert into g.t values (1700000000001, 2)'), 'memory exceeds threshold')
    await expectPaused(await sql('select * from g.t'), 'memory exceeds threshold')
    expect((await get('/-/live')).status).toBe(200)
    // the work budget is narrowed to an eighth for when the gate reopens
    const { limit, open } = await workMemory()
    expect(open).toBe(Math.floor(limit / 8))
  })

  it('back down: below 80 -> query-paused, below 50 -> normal; nothing written while paused', async () => {
    setUse(70)
    await waitFor('query-paused')
    expect((await get('/-/ping')).status).toBe(200)
    expect((await lp('m,host=a v=4i 1700000004000000000')).status).toBe(204)
    expect((await get('/-/ping?action=query')).status).toBe(503)
    setUse(30)
    await waitFor('normal')
    expect((await get('/-/ping?action=query')).status).toBe(200)
    const res = await sql('select v from g.m order by _ts')
    const body = (await res.json()) as { data: unknown[][] }
    // v=1, 2 and 4: the all-paused write (v=3) never reached storage
    expect(body.data.map((r) => r[0])).toEqual([1, 2, 4])
    // samples in normal widen the work budget back to all of it (an eighth, doubled three times)
    await expect.poll(async () => (await workMemory()).open).toBe((await workMemory()).limit)
  })
})

describe('monitor.disable', () => {
  it('no sampling, no gating, no monitor gauges even when the cgroup is nearly full', async () => {
    const full = mkdtempSync(join(tmpdir(), 'cgroup-tree-'))
    cpSync(join(import.meta.dirname, 'fixtures/v2'), full, { recursive: true })
    writeFileSync(join(full, SCOPE, 'memory.current'), `${Math.round(0.99 * LIMIT) + FILE_CACHE}\n`)
    const config = testAdapterConfig('gate-http-')
    config.monitor.incgroup = true
    config.monitor.collectDuration = 20
    config.monitor.disable = true
    const off = await startAdapter(config, { logger: pino({ level: 'silent' }), cgroupRoot: full })
    try {
      expect(off.sampler).toBeUndefined()
      await new Promise((r) => setTimeout(r, 100))
      expect(off.gate.state).toBe('normal')
      expect((await fetch(`${off.url}/-/ping?action=query`)).status).toBe(200)
      expect(await (await fetch(`${off.url}/metrics`)).text()).not.toMatch(/db_adapter_gate_state/)
    } finally {
      await off.stop()
      rmSync(full, { recursive: true, force: true })
    }
  })
})
