/**
 * Overload inside a REAL memory cgroup (issue 33's goal): the adapter runs in a cgroup of 256 MiB,
 * then of 400 MiB, with `--monitor.incgroup=true` and its default thresholds, and for 60 s takes
 * line-protocol ingest from more writers than it has cores plus concurrent `select *` over a
 * table of a million rows. What must hold:
 * - the kernel kills nothing (the cgroup's oom_kill count stays 0) and the process keeps running;
 * - every client gets a complete answer (a 204, or a 200 whose JSON body parses whole) or a 503
 *   with Retry-After: no other status, no body cut short; the one exception is a query the gate
 *   cancels when it goes all-paused after the query's 200 went out: that response is broken off
 *   so the client sees an error (counted, and never more than the adapter logged cancelling);
 * - after the load writes are served again within a few sampling periods, and queries too (the
 *   gate back to normal).
 * The figures (requests, 503s, completed, peak memory, OOM kills) are printed for the closing note.
 *
 * Needs root and a writable cgroup hierarchy, as test/e2e/cgroup-gate.test.ts.
 * DB_ADAPTER_TEST_OVERLOAD_SECONDS shortens the load phase (default 60).
 */
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { skipUnless } from '../lib/debian-package.js'
import { freePort } from '../lib/free-port.js'
import { anonBreakdown, cgroupUnavailable, createCgroup, memoryStat, oomKills, peakBytes, removeCgroup, spawnInCgroup, inUse } from '../lib/cgroup.js'
import type { Cgroup } from '../lib/cgroup.js'

const REPO = join(import.meta.dirname, '../..')
const MiB = 2 ** 20
const SECONDS = Number(process.env.DB_ADAPTER_TEST_OVERLOAD_SECONDS ?? 60)
const ROWS = 1_000_000
const BATCH = 5000
const WRITERS = 4
const READERS = 3
const AUTH = { Authorization: `Basic ${Buffer.from('root:taosdata').toString('base64')}` }

/**
 * A probe refused with 503 is asked again this often within its bounded window (the adapter's
 * Retry-After is 120 s, the window's whole length many times over: waiting for it meant one try)
 */
const RETRY_MS = 500

/** a request still unanswered after this is a finding (a stall), not a slow answer under load */
const UNANSWERED_MS = 120_000

const skip = skipUnless('overload in a real cgroup', cgroupUnavailable())
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

interface Tally {
  requests: number
  completed: number
  refused: number
  /** responses the adapter broke off after their status line (a query cancelled by all-paused) */
  aborted: number
  /** anything else: wrong status, a body cut short, a connection error */
  bad: string[]
}

let child: ChildProcess | undefined
let cg: Cgroup | undefined
let dataDir = ''
let output = ''
/** characters of output ever received (output keeps the last 2 MB of them) */
let written = 0

afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((r) => child!.once('exit', () => r()))
    child.kill('SIGTERM')
    const timer = setTimeout(() => child!.kill('SIGKILL'), 15000)
    await exited
    clearTimeout(timer)
  }
  child = undefined
  if (cg) {
    await removeCgroup(cg)
    cg = undefined
  }
  if (dataDir) {
    rmSync(dataDir, { recursive: true, force: true })
  }
}, 40000)

async function start(limit: number): Promise<string> {
  cg = createCgroup('overload', limit)
  dataDir = mkdtempSync(join(tmpdir(), 'cgroup-overload-'))
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  output = ''
  written = 0
  child = spawnInCgroup(cg, [
    '--import', 'tsx', 'src/main.ts',
    '--port', String(port), '--host', '127.0.0.1',
    '--storage.url', `duckdb:${join(dataDir, 'data.duckdb')}`,
    '--log.path', dataDir,
    '--smlAutoCreateDB=true',
    '--collagent.enable=false',
    '--statsagent.enable=false',
    '--manager.enable=false',
    '--monitor.incgroup=true',
    '--monitor.collectDuration=500ms',
    // info: the storage memory releases too (request lines are left out where the log is shown)
    '--logLevel', 'info',
  ], REPO)
  const keep = (d: Buffer): void => {
    const text = d.toString()
    written += text.length
    output = (output + text).slice(-2_000_000)
  }
  child.stdout?.on('data', keep)
  child.stderr?.on('data', keep)
  const until = Date.now() + 30000
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`adapter exited (${child.exitCode ?? child.signalCode}):\n${output}`)
    }
    try {
      if ((await fetch(`${base}/-/live`)).status === 200) {
        return base
      }
    } catch {
      // not listening yet
    }
    if (Date.now() > until) {
      throw new Error(`adapter did not start:\n${output}`)
    }
    await sleep(100)
  }
}

let ts = Date.now() * 1000 - ROWS * 1000
function body(rows: number, measurement: string): string {
  const lines: string[] = []
  for (let i = 0; i < rows; i++) {
    lines.push(`${measurement},host=h${i % 100} usage=${(i % 1000) / 10},idle=${i % 97}i,state="s${i % 13}" ${ts++}`)
  }
  return lines.join('\n')
}

/** One request; its outcome goes into the tally. A 200 body must parse as a whole. */
async function attempt(t: Tally, what: string, run: () => Promise<Response>): Promise<number> {
  t.requests++
  try {
    const res = await run()
    let text: string
    try {
      text = await res.text()
    } catch (err) {
      if (err instanceof Error && err.name === 'TimeoutError') {
        t.bad.push(`${what}: body unfinished after ${UNANSWERED_MS} ms`)
        return -1
      }
      // the client sees the break (fetch rejects): never a cut-off body passed off as whole
      t.aborted++
      return -1
    }
    if (res.status === 503) {
      if (res.headers.get('retry-after') === null) {
        t.bad.push(`${what}: 503 without Retry-After`)
      }
      t.refused++
    } else if (res.status === 204 || (res.status === 200 && JSON.parse(text) !== undefined)) {
      t.completed++
    } else {
      t.bad.push(`${what}: ${res.status} ${text.slice(0, 200)}`)
    }
    return res.status
  } catch (err) {
    t.bad.push(`${what}: ${err instanceof Error ? `${err.message} ${String((err as { cause?: unknown }).cause ?? '')}` : String(err)}`)
    return 0
  }
}

/** The adapter's log from its `from`th character received on (at most what is kept), without its request lines. */
const logTail = (from = 0): string => output.slice(Math.max(0, from - (written - output.length))).split('\n').filter((l) => !l.includes('"msg":"request"')).join('\n').slice(-20000)

/** What the adapter says about itself when a request went unanswered: /-/ping, the gate and work metrics, its log's tail. */
async function stuck(base: string): Promise<string> {
  const ping = await fetch(`${base}/-/ping`, { signal: AbortSignal.timeout(3000) }).then((r) => String(r.status), (e: unknown) => String(e))
  const metrics = await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(3000) }).then((r) => r.text(), (e: unknown) => String(e))
  const lines = metrics.split('\n').filter((l) => /^db_adapter_(gate|work_memory|http_requests_in_flight|memory|storage_memory|storage_wal|storage_checkpoints)/.test(l))
  return `/-/ping: ${ping}\n${lines.join('\n')}\nadapter log tail:\n${logTail()}`
}

/** One line of what holds memory: the gate's figure, the process (RSS, V8 heap, external), DuckDB's pool, the WAL, and the cgroup's own split. */
async function holding(base: string, c: Cgroup): Promise<string> {
  const metrics = await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(3000) }).then((r) => r.text(), () => '')
  const m = (name: string): string => {
    const v = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(metrics)?.[1]
    return v === undefined ? '?' : name.endsWith('bytes') ? `${Math.round(Number(v) / MiB)}M` : String(Math.round(Number(v) * 10) / 10)
  }
  const stat = memoryStat(c)
  const field = (name: string): string => `${Math.round(stat(name) / MiB)}M`
  return `in use ${inUse(c).percent.toFixed(1)}% gate ${m('db_adapter_gate_state')} rss ${m('process_resident_memory_bytes')} heap ${m('nodejs_heap_size_used_bytes')}/${m('nodejs_heap_size_total_bytes')} external ${m('nodejs_external_memory_bytes')} duckdb ${m('db_adapter_storage_memory_bytes')} wal ${m('db_adapter_storage_wal_bytes')} checkpoints ${m('db_adapter_storage_checkpoints_total')} work ${m('db_adapter_work_memory_reserved_bytes')} cgroup rss ${field(c.version === 1 ? 'rss' : 'anon')} shmem ${field('shmem')} process anon ${anonBreakdown(child!.pid)}`
}

async function overload(limitMiB: number, backToNormal: boolean): Promise<void> {
  const base = await start(limitMiB * MiB)
  const c = cg!
  // a bounded wait per request: a request the adapter never answers is a finding, not a test timeout
  const write = (text: string): Promise<Response> =>
    fetch(`${base}/lineproto/v1/write?db=load&precision=us`, { method: 'POST', body: text, headers: AUTH, signal: AbortSignal.timeout(UNANSWERED_MS) })

  // a million rows for the readers, written before the load (memory stays under the gate here)
  const preload: Tally = { requests: 0, completed: 0, refused: 0, aborted: 0, bad: [] }
  for (let n = 0; n < ROWS / BATCH; n++) {
    const status = await attempt(preload, 'preload', () => write(body(BATCH, 'big')))
    if (preload.bad.length > 0) {
      break
    }
    if (status === 503) {
      await sleep(500)
      n--
    }
  }
  expect(preload.bad, preload.bad.length > 0 ? await stuck(base) : '').toEqual([])
  const count = await (await fetch(`${base}/rest/sql`, { method: 'POST', body: 'select count(*) from load.big', headers: AUTH })).json() as { data: number[][] }
  expect(count.data[0][0]).toBe(ROWS)

  const t: Tally = { requests: 0, completed: 0, refused: 0, aborted: 0, bad: [] }
  let peakPercent = 0
  const end = Date.now() + SECONDS * 1000
  const writers = Array.from({ length: WRITERS }, async (_, w) => {
    while (Date.now() < end) {
      if ((await attempt(t, `writer ${w}`, () => write(body(BATCH, `m${w}`)))) !== 204) {
        await sleep(200)
      }
    }
  })
  const readers = Array.from({ length: READERS }, async (_, r) => {
    while (Date.now() < end) {
      const status = await attempt(t, `reader ${r}`, () => fetch(`${base}/rest/sql`, { method: 'POST', body: 'select * from load.big', headers: AUTH, signal: AbortSignal.timeout(UNANSWERED_MS) }))
      if (status !== 200) {
        await sleep(200)
      }
    }
  })
  const watcher = (async () => {
    while (Date.now() < end) {
      peakPercent = Math.max(peakPercent, inUse(c).percent)
      await sleep(100)
    }
  })()
  await Promise.all([...writers, ...readers, watcher])

  // the way back: within a few sampling periods of the load's end, writes are served again
  // (/-/ping 200) and, where memory at rest allows, queries too (/-/ping?action=query 200)
  const back = Date.now()
  const mark = written
  let writesAfter = -1
  let normalAfter = -1
  while (Date.now() - back < 20000 && normalAfter < 0) {
    if (writesAfter < 0 && (await fetch(`${base}/-/ping`).catch(() => undefined))?.status === 200) {
      writesAfter = Date.now() - back
    }
    if ((await fetch(`${base}/-/ping?action=query`).catch(() => undefined))?.status === 200) {
      normalAfter = Date.now() - back
      // the gate went normal between the two probes: a normal gate serves writes too
      if (writesAfter < 0) {
        writesAfter = normalAfter
      }
    }
    await sleep(250)
  }
  const kills = oomKills(c)
  const figures = {
    limitMiB, seconds: SECONDS, requests: t.requests, completed: t.completed, refused503: t.refused, abortedByCancel: t.aborted,
    bad: t.bad.length, oomKills: kills, peakInUsePercent: Math.round(peakPercent),
    kernelPeakMiB: Math.round((peakBytes(c) ?? 0) / MiB), atRestPercent: Math.round(inUse(c).percent),
    writesBackAfterMs: writesAfter, gateNormalAfterMs: normalAfter,
  }
  // the adapter's warnings and errors by message, for the closing note's figures
  const warnings = new Map<string, number>()
  for (const m of output.matchAll(/"level":"(?:warn|error)",.*?"msg":"([^"]{0,120})/g)) {
    warnings.set(m[1], (warnings.get(m[1]) ?? 0) + 1)
  }
  console.log(`cgroup overload: ${JSON.stringify(figures)}\n  at rest: ${await holding(base, c)}${t.bad.length > 0 ? `\n  first bad: ${t.bad.slice(0, 3).join("\n  ")}` : ""}\n  adapter warnings: ${JSON.stringify([...warnings])}`)
  const tail = logTail()
  expect(kills, tail).toBe(0)
  expect(child!.exitCode, tail).toBeNull()
  expect(t.bad.slice(0, 10), t.bad.length > 0 ? await stuck(base) : tail).toEqual([])
  expect(t.completed).toBeGreaterThan(0)
  // a broken-off answer is a query the gate cancelled when it went all-paused, and nothing else
  // (the whole log is kept to count the cancellations)
  // or a read the storage cancelled for a checkpoint that could not wait (counted on /metrics)
  const metrics = await (await fetch(`${base}/metrics`)).text()
  const storageCancelled = Number(/^db_adapter_storage_reads_cancelled_total (\d+)/m.exec(metrics)?.[1] ?? 0)
  const cancelled = [...output.matchAll(/"queries":(\d+).*running queries cancelled/g)].reduce((n, m) => n + Number(m[1]), 0) + storageCancelled
  expect(t.aborted).toBeLessThanOrEqual(cancelled)
  expect(writesAfter, `gate still all-paused 20 s after the load; memory in use ${inUse(c).percent.toFixed(0)}%\n${tail}`).toBeGreaterThanOrEqual(0)
  // as a client does: a 503 is retried, for a bounded time
  let after = ''
  for (const until = Date.now() + 15000; Date.now() < until;) {
    const res = await write(body(10, 'after'))
    after = `${res.status} ${await res.text()}`
    if (res.status !== 503) {
      break
    }
    await sleep(RETRY_MS)
  }
  expect(after, await stuck(base)).toBe('204 ')
  if (backToNormal) {
    expect(normalAfter, `queries still paused 20 s after the load; memory in use ${inUse(c).percent.toFixed(0)}%\n${tail}`).toBeGreaterThanOrEqual(0)
    // retried like the write above: the gate may pause once more near its threshold
    let query = ''
    const trace: string[] = []
    for (const until = Date.now() + 15000; Date.now() < until;) {
      const res = await fetch(`${base}/rest/sql`, { method: 'POST', body: 'select count(*) from load.big', headers: AUTH })
      query = `${res.status} ${res.status === 200 ? '' : await res.text()}`
      if (res.status !== 503) {
        break
      }
      trace.push(`${new Date().toISOString()} ${await holding(base, c)}`)
      await sleep(RETRY_MS)
    }
    expect(query, `${trace.join('\n')}\nadapter log since the load:\n${logTail(mark)}`).toBe('200 ')
  }
}

describe.skipIf(skip)('overload inside a real memory cgroup', () => {
  // 256 MiB runs by default since session 44: seven runs on a loaded machine, no OOM kill, no bad
  // answer, memory at rest 48-63% after the load and the gate normal again within 0.8 s (one run
  // failed on the test's own probe order, fixed above)
  it('256 MiB: no OOM kill, complete answers or 503, the gate comes back to normal', () => overload(256, true), 120000 + SECONDS * 1000 + 2 * UNANSWERED_MS)
  it('400 MiB: no OOM kill, complete answers or 503, the gate comes back to normal', () => overload(400, true), 120000 + SECONDS * 1000 + 2 * UNANSWERED_MS)
})
