/**
 * REAL memory gate: the adapter process (node --import tsx src/main.ts) runs inside a
 * memory-limited cgroup created by this test (cgroup v1 here: /sys/fs/cgroup/memory/<child>;
 * cgroup v2 hosts: /sys/fs/cgroup/<child>), grows through real work (line-protocol writes of
 * incompressible strings held by DuckDB's in-memory storage) past the query threshold, then past
 * the all threshold, and the test watches /-/ping, the 503 on a query, then on writes.
 *
 * The way back: while all-paused every write (DROP DATABASE included) is refused, so the adapter
 * cannot be emptied through its API, and DuckDB does not hand freed memory back to the OS after a
 * DROP anyway (measured: memory in use 71% -> 65% after dropping ~300 MB of rows, RSS unchanged a
 * minute later). The return is therefore driven from outside the process, as in production: the
 * cgroup limit is raised at run time (a vertical resize), and the sampler, which re-reads the limit
 * every sample, goes all-paused -> query-paused -> normal. The DROP in between is done in
 * query-paused (writes are served there) and its effect is only logged.
 *
 * Needs root and a writable cgroup hierarchy; without them it is skipped with one line (a failure
 * under DB_ADAPTER_TEST_REQUIRE_PACKAGES=1, as in CI). Any other trouble with the cgroup FAILS.
 */
import type { ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { skipUnless } from '../lib/debian-package.js'
import { freePort } from '../lib/free-port.js'
import { cgroupUnavailable, createCgroup, removeCgroup, spawnInCgroup, inUse, type Cgroup } from '../lib/cgroup.js'

const REPO = join(import.meta.dirname, '../..')
const LIMIT = 400 * 1024 * 1024
const QUERY_THRESHOLD = 45
const ALL_THRESHOLD = 65
const AUTH = { Authorization: `Basic ${Buffer.from('root:taosdata').toString('base64')}` }

let cg: Cgroup | undefined
let child: ChildProcess | undefined
let base = ''
let output = ''

const skip = skipUnless('memory gate in a real cgroup', cgroupUnavailable())
const inUsePercent = inUse

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))
const get = (path: string): Promise<Response> => fetch(`${base}${path}`)
const sql = (text: string): Promise<Response> => fetch(`${base}/rest/sql`, { method: 'POST', body: text, headers: AUTH })

let ts = BigInt(Date.now()) * 1_000_000n
/** ~2 MB of incompressible line protocol: 2000 rows of a 1000-character random string. */
function batch(): string {
  const lines: string[] = []
  for (let i = 0; i < 2000; i++) {
    lines.push(`grow,host=h${i % 50} s="${randomBytes(500).toString('hex')}",v=${i}i ${ts++}`)
  }
  return lines.join('\n')
}
const write = (body: string): Promise<Response> =>
  fetch(`${base}/lineproto/v1/write?db=big&u=root&p=taosdata`, { method: 'POST', body })

async function expectPaused(res: Response, body: string): Promise<void> {
  expect(res.status).toBe(503)
  expect(res.headers.get('retry-after')).toBe('120')
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8')
  expect(await res.text()).toBe(JSON.stringify(body))
}

/** Waits until /-/ping (with `action`) answers `status`, for up to `ms`. */
async function pingUntil(status: number, action: string, ms = 3000): Promise<void> {
  const until = Date.now() + ms
  for (;;) {
    if ((await get(`/-/ping${action}`)).status === status) {
      return
    }
    if (Date.now() > until) {
      throw new Error(`/-/ping${action} never answered ${status}; cgroup memory in use ${inUsePercent(cg!).percent.toFixed(1)}%\n${output.slice(-2000)}`)
    }
    await sleep(50)
  }
}

/**
 * Writes batches until /-/ping (with `action`) answers 503 and still does a second later (the
 * rows held, not a write's passing allocations, which DuckDB's allocator gives back within about
 * a second); returns the batches written.
 */
async function growUntil503(action: string, maxBatches: number): Promise<number> {
  for (let n = 1; n <= maxBatches; n++) {
    const res = await write(batch())
    expect(res.status, `batch ${n}: ${await res.clone().text()}`).toBe(204)
    // two sampling intervals (200 ms) so the gate has seen the growth
    await sleep(450)
    if ((await get(`/-/ping${action}`)).status === 503) {
      await sleep(1000)
      if ((await get(`/-/ping${action}`)).status === 503) {
        return n
      }
    }
  }
  throw new Error(`no 503 on /-/ping${action} after ${maxBatches} batches; memory in use ${inUsePercent(cg!).percent.toFixed(1)}%`)
}

beforeAll(async () => {
  if (skip) {
    return
  }
  cg = createCgroup('e2e', LIMIT)
  const port = await freePort()
  base = `http://127.0.0.1:${port}`
  const args = [
    '--import', 'tsx', 'src/main.ts',
    '--port', String(port), '--host', '127.0.0.1',
    '--storage.url', 'duckdb::memory:',
    '--log.path', mkdtempSync(join(tmpdir(), 'cgroup-gate-')),
    '--smlAutoCreateDB=true',
    '--collagent.enable=false',
    '--statsagent.enable=false',
    '--manager.enable=false',
    '--monitor.incgroup=true',
    '--monitor.collectDuration=200ms',
    `--monitor.pauseQueryMemoryThreshold=${QUERY_THRESHOLD}`,
    `--monitor.pauseAllMemoryThreshold=${ALL_THRESHOLD}`,
  ]
  child = spawnInCgroup(cg, args, REPO)
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()))
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()))
  const until = Date.now() + 30000
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`adapter exited with ${child.exitCode}:\n${output}`)
    }
    try {
      if ((await get('/-/live')).status === 200) {
        break
      }
    } catch {
      // not listening yet
    }
    if (Date.now() > until) {
      throw new Error(`adapter did not start:\n${output}`)
    }
    await sleep(100)
  }
  const procs = readFileSync(join(cg.dir, 'cgroup.procs'), 'utf8').trim().split('\n')
  expect(procs).toContain(String(child.pid))
}, 60000)

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((r) => child!.once('exit', () => r()))
    child.kill('SIGTERM')
    const timer = setTimeout(() => child!.kill('SIGKILL'), 8000)
    await exited
    clearTimeout(timer)
  }
  if (cg) {
    await removeCgroup(cg)
    expect(existsSync(cg.dir)).toBe(false)
  }
}, 30000)

describe.skipIf(skip)('memory gate inside a real memory-limited cgroup', () => {
  it('normal -> query-paused -> all-paused by growth, then back by a larger limit', async () => {
    const c = cg!
    // --- normal
    const start = inUsePercent(c)
    expect(start.limit).toBe(LIMIT)
    expect(start.percent, 'the baseline must start below the query threshold').toBeLessThan(QUERY_THRESHOLD)
    expect((await get('/-/ping')).status).toBe(200)
    expect((await get('/-/ping?action=query')).status).toBe(200)
    expect((await write(batch())).status).toBe(204)
    expect((await sql('select count(*) from big.grow')).status).toBe(200)

    // the adapter reports the cgroup memory in use over the limit (same figure as the files say);
    // the gauge is a sample taken every 200 ms and memory still moves after the write (GC, the
    // scrape itself), so the two readings must meet within a few samples, not at one instant
    let exposition = ''
    await expect
      .poll(async () => {
        exposition = await (await get('/metrics')).text()
        const reported = Number(/^db_adapter_memory_percent (\S+)$/m.exec(exposition)?.[1])
        return Math.abs(reported - inUsePercent(c).percent)
      }, { timeout: 5_000, interval: 250 })
      .toBeLessThan(5)
    // and the limit it measures against is the cgroup's
    expect(Number(/^db_adapter_memory_limit_bytes (\S+)$/m.exec(exposition)?.[1])).toBe(LIMIT)

    // --- grow past the query threshold
    await growUntil503('?action=query', 200)
    const atQuery = inUsePercent(c)
    expect(atQuery.percent).toBeGreaterThan(QUERY_THRESHOLD - 3)
    expect((await get('/-/ping')).status).toBe(200)
    await expectPaused(await sql('select count(*) from big.grow'), 'query memory exceeds threshold')
    // writes are still served in query-paused
    expect((await write(batch())).status).toBe(204)

    // --- grow past the all threshold
    await growUntil503('', 200)
    expect(inUsePercent(c).percent).toBeGreaterThan(ALL_THRESHOLD - 3)
    await expectPaused(await write(batch()), 'memory exceeds threshold')
    await expectPaused(await sql('insert into big.grow using big.grow tags(\'x\') values (now, \'s\', 1)'), 'memory exceeds threshold')
    await expectPaused(await sql('select count(*) from big.grow'), 'memory exceeds threshold')
    expect((await get('/-/live')).status).toBe(200)
    expect(/^db_adapter_gate_state 2$/m.test(await (await get('/metrics')).text())).toBe(true)

    // --- a larger limit puts use between the thresholds: all-paused -> query-paused
    const full = inUsePercent(c)
    writeFileSync(c.limitFile, String(Math.round(full.bytes / 0.55)))
    await pingUntil(200, '')
    expect((await get('/-/ping?action=query')).status).toBe(503)
    expect((await write(batch())).status).toBe(204)
    await expectPaused(await sql('select count(*) from big.grow'), 'query memory exceeds threshold')

    // DROP is a write, so it is served now; what it frees is logged (DuckDB keeps most of it)
    const beforeDrop = inUsePercent(c)
    expect((await sql('drop database big')).status).toBe(200)
    await sleep(1000)
    const afterDrop = inUsePercent(c)
    console.log(`cgroup memory in use: start ${(start.bytes / 2 ** 20).toFixed(0)} MiB; before DROP ${(beforeDrop.bytes / 2 ** 20).toFixed(0)} MiB, after ${(afterDrop.bytes / 2 ** 20).toFixed(0)} MiB`)

    // --- a much larger limit: query-paused -> normal
    writeFileSync(c.limitFile, String(Math.round(Math.max(afterDrop.bytes, beforeDrop.bytes) / 0.15)))
    await pingUntil(200, '?action=query')
    expect((await get('/-/ping')).status).toBe(200)
    expect((await sql('show databases')).status).toBe(200)
    expect((await write(batch())).status).toBe(204)
    expect(/^db_adapter_gate_state 0$/m.test(await (await get('/metrics')).text())).toBe(true)
  }, 180000)
})
