/**
 * Remote write from a real Prometheus (Debian's 2.42, /usr/bin/prometheus) into the adapter and
 * into VictoriaMetrics, windows alternating (issue 37).
 *
 *   BENCH=promreal npm run bench     (or: npx tsx bench/prom-real.bench.ts)
 *   BENCH_PROMREAL_SECONDS=60 BENCH_PROMREAL_ROUNDS=1 BENCH_PROMREAL_SERIES=10000
 *   BENCH_VM_URL=http://127.0.0.1:38428 (a VictoriaMetrics of your own; BENCH_VM_PID for its CPU,
 *   else its process_cpu_seconds_total), BENCH_PEERS_SH, PEERS_DIR (default /tmp/peers-promreal)
 *
 * A synthetic exporter (bench/prom-exporter.ts, its own process) serves 10,000 gauges whose
 * values change every scrape. Each window starts a fresh Prometheus (own port, config and data
 * dir) that scrapes it every second and remote-writes with `queue_config` defaults, for the
 * window's seconds; then the scrape time T is fixed, the queue drains, and the samples stored up
 * to T are counted back in the target and compared with the samples Prometheus' own TSDB holds
 * up to T. Reported from Prometheus' /metrics: samples sent, failed, dropped, retried, the
 * largest lag of the queue behind the newest scraped sample; CPU of the target's process from
 * /proc/<pid>/stat (utime + stime) from Prometheus' start until the queue drained, per sample sent.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fmt, freePort, sql, startAdapterProcess, type AdapterProcess } from './lib.js'

export interface PromRealWindow {
  target: 'adapter' | 'VictoriaMetrics'
  round: number
  seconds: number
  /** prometheus_remote_storage_samples_total (sent successfully) */
  sent: number
  failed: number
  dropped: number
  retried: number
  /** metadata requests that failed (Prometheus sends metadata once a minute by default) */
  metadataFailed: number
  /** largest (newest scraped sample - newest sent sample) seen during the window, s */
  maxLagSeconds: number
  /** samples Prometheus' own TSDB holds up to T, and the target holds up to T */
  scraped: number
  stored: number
  /** target process CPU from Prometheus' start until the queue drained, s */
  cpuSeconds: number
}

export interface PromRealResult {
  series: number
  windows: PromRealWindow[]
}

const JOB = 'synthetic'
const PROMETHEUS = process.env.BENCH_PROMETHEUS ?? '/usr/bin/prometheus'
const CLK_TCK = 100

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

function peersSh(): string {
  if (process.env.BENCH_PEERS_SH) {
    return resolve(process.env.BENCH_PEERS_SH)
  }
  // ../shared from the main checkout; worktrees live one level deeper
  return ['../shared/tools/peers.sh', '/work/shared/tools/peers.sh'].map((p) => resolve(p)).find(existsSync) ?? resolve('../shared/tools/peers.sh')
}

/** utime + stime of a process, s */
function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  // fields[0] is the state (field 3 of proc(5)): utime is field 14, stime 15
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK
}

/** Sum of every line of one metric in a text exposition (all label sets). */
function metricSum(text: string, name: string): number {
  let sum = 0
  let found = false
  for (const m of text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))) {
    sum += Number(m[1])
    found = true
  }
  return found ? sum : NaN
}

async function waitHttp(url: string, seconds: number, what: string, child?: ChildProcess): Promise<void> {
  const deadline = Date.now() + seconds * 1000
  for (;;) {
    if (child !== undefined && child.exitCode !== null) {
      throw new Error(`${what} exited with code ${child.exitCode} during start`)
    }
    try {
      if ((await fetch(url)).ok) {
        return
      }
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      throw new Error(`${what} did not answer ${url} within ${seconds} s`)
    }
    await sleep(200)
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return
  }
  const exited = new Promise((r) => child.once('exit', r))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
  await exited
  clearTimeout(timer)
}

async function startExporter(series: number): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort()
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/prom-exporter.ts', String(port), String(series)], { stdio: ['ignore', 'pipe', 'inherit'] })
  await new Promise<void>((res, rej) => {
    child.stdout!.once('data', () => res())
    child.once('exit', (code) => rej(new Error(`synthetic exporter exited with code ${code}`)))
  })
  return { url: `127.0.0.1:${port}`, child }
}

interface Target {
  name: PromRealWindow['target']
  /** the remote_write section's url and auth lines for this window */
  remoteWrite(window: string): Promise<string>
  cpuSeconds(): Promise<number>
  /** samples of the window stored with timestamps up to `t` (epoch ms) */
  count(window: string, t: number): Promise<number>
}

function adapterTarget(adapter: AdapterProcess): Target {
  return {
    name: 'adapter',
    remoteWrite: async (window) => {
      await sql(adapter.url, `CREATE DATABASE ${window} PRECISION 'ms'`)
      return `  - url: ${adapter.url}/metricsproto/v1/remote_write/${window}\n    basic_auth: {username: root, password: taosdata}\n`
    },
    cpuSeconds: async () => cpuSecondsOf(adapter.child.pid!),
    count: async (window, t) => Number(((await sql(adapter.url, `SELECT count(v) FROM ${window}.metrics WHERE ts <= ${t}`)) as { data: [[number]] }).data[0][0]),
  }
}

function vmTarget(url: string, pid: number | undefined): Target {
  return {
    name: 'VictoriaMetrics',
    remoteWrite: async () => `  - url: ${url}/api/v1/write\n`,
    cpuSeconds: async () => (pid !== undefined ? cpuSecondsOf(pid) : metricSum(await (await fetch(`${url}/metrics`)).text(), 'process_cpu_seconds_total')),
    count: async (window, t) => {
      await fetch(`${url}/internal/force_flush`)
      const q = new URLSearchParams({ query: `sum(count_over_time({job="${JOB}",bench_window="${window}"}[1h]))`, time: String(t / 1000), nocache: '1' })
      const body = (await (await fetch(`${url}/api/v1/query?${q}`)).json()) as { data: { result: { value: [number, string] }[] } }
      return Number(body.data.result[0]?.value[1] ?? 0)
    },
  }
}

/** VictoriaMetrics from peers.sh (port 8428), after waiting for another user of the port to leave. */
async function startVm(log: (s: string) => void): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const url = 'http://127.0.0.1:8428'
  const peersDir = process.env.PEERS_DIR ?? '/tmp/peers-promreal'
  const env = { ...process.env, PEERS_DIR: peersDir }
  const run = (cmd: string): Promise<void> =>
    new Promise((res, rej) => {
      const child = spawn('bash', [peersSh(), cmd, 'victoria-metrics'], { stdio: ['ignore', 'ignore', 'inherit'], env })
      child.once('error', rej)
      child.once('exit', (code) => (code === 0 ? res() : rej(new Error(`peers.sh ${cmd} victoria-metrics exited with ${code}`))))
    })
  const pidFile = join(peersDir, 'victoria-metrics', 'pid')
  const ours = (): boolean => existsSync(pidFile) && existsSync(`/proc/${readFileSync(pidFile, 'utf8').trim()}`)
  // another helper's VictoriaMetrics on 8428 would take our samples: wait for it to go
  for (let waited = 0; !ours(); waited += 5) {
    try {
      await fetch(`${url}/health`)
    } catch {
      break
    }
    if (waited >= 300) {
      throw new Error(`port 8428 is held by a VictoriaMetrics not started by this bench for 5 minutes; stop it or set BENCH_VM_URL`)
    }
    if (waited === 0) {
      log('port 8428 is busy (another VictoriaMetrics): waiting up to 5 minutes ...')
    }
    await sleep(5000)
  }
  await run('start')
  await waitHttp(`${url}/health`, 60, 'VictoriaMetrics')
  return { url, pid: Number(readFileSync(pidFile, 'utf8').trim()), stop: () => run('stop') }
}

async function promWindow(target: Target, round: number, seconds: number, exporter: string, log: (s: string) => void): Promise<PromRealWindow> {
  const window = `promreal_${process.pid}_${round}_${target.name === 'adapter' ? 'a' : 'v'}`
  const dir = mkdtempSync(join(tmpdir(), 'db-adapter-promreal-'))
  const port = await freePort()
  const config = join(dir, 'prometheus.yml')
  writeFileSync(
    config,
    `global: {scrape_interval: 1s, scrape_timeout: 1s, external_labels: {bench_window: ${window}}}\n` +
      `scrape_configs:\n  - job_name: ${JOB}\n    static_configs: [{targets: ['${exporter}']}]\n` +
      `remote_write:\n${await target.remoteWrite(window)}`,
  )
  const logFd = openSync(join(dir, 'prometheus.log'), 'a')
  const prom = spawn(PROMETHEUS, [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`], {
    stdio: ['ignore', logFd, logFd],
  })
  const promUrl = `http://127.0.0.1:${port}`
  const metrics = async (): Promise<string> => (await fetch(`${promUrl}/metrics`)).text()
  try {
    await waitHttp(`${promUrl}/-/ready`, 60, 'prometheus', prom)
    const cpu0 = await target.cpuSeconds()
    let maxLag = 0
    const lag = (m: string): number => metricSum(m, 'prometheus_remote_storage_highest_timestamp_in_seconds') - metricSum(m, 'prometheus_remote_storage_queue_highest_sent_timestamp_seconds')
    const end = Date.now() + seconds * 1000
    while (Date.now() < end) {
      await sleep(Math.min(2000, end - Date.now()))
      const l = lag(await metrics())
      if (Number.isFinite(l)) {
        maxLag = Math.max(maxLag, l)
      }
    }
    const t = Date.now()
    // the queue has sent past T, then the target holds every sample up to T (shards may lag a little)
    for (const deadline = Date.now() + 120_000; metricSum(await metrics(), 'prometheus_remote_storage_queue_highest_sent_timestamp_seconds') * 1000 < t + 1000; ) {
      if (Date.now() > deadline) {
        throw new Error(`Prometheus' queue to ${target.name} did not catch up within 120 s of the window's end`)
      }
      await sleep(250)
    }
    // every scrape appends its samples plus five of its own (up, scrape_duration_seconds, ...); a
    // count_over_time over all series would drop their names and collide
    const q = new URLSearchParams({
      query: `sum(sum_over_time(scrape_samples_post_metric_relabeling{job="${JOB}"}[1h])) + 5 * sum(count_over_time(up{job="${JOB}"}[1h]))`,
      time: String(t / 1000),
    })
    const scrapedBody = (await (await fetch(`${promUrl}/api/v1/query?${q}`)).json()) as { data?: { result: { value: [number, string] }[] } }
    const scraped = Number(scrapedBody.data?.result[0]?.value[1] ?? NaN)
    if (!Number.isFinite(scraped)) {
      throw new Error(`Prometheus did not count the scraped samples: ${JSON.stringify(scrapedBody).slice(0, 300)}`)
    }
    let stored = await target.count(window, t)
    for (let i = 0; i < 20 && stored < scraped; i++) {
      await sleep(500)
      stored = await target.count(window, t)
    }
    const cpuSeconds = (await target.cpuSeconds()) - cpu0
    const m = await metrics()
    const w: PromRealWindow = {
      target: target.name,
      round,
      seconds,
      sent: metricSum(m, 'prometheus_remote_storage_samples_total'),
      failed: metricSum(m, 'prometheus_remote_storage_samples_failed_total'),
      dropped: metricSum(m, 'prometheus_remote_storage_samples_dropped_total'),
      retried: metricSum(m, 'prometheus_remote_storage_samples_retried_total'),
      metadataFailed: metricSum(m, 'prometheus_remote_storage_metadata_failed_total'),
      maxLagSeconds: maxLag,
      scraped,
      stored,
      cpuSeconds,
    }
    log(
      `${target.name}, round ${round}: sent ${fmt(w.sent)}, failed ${w.failed}, dropped ${w.dropped}, retried ${w.retried}, metadata failed ${w.metadataFailed}, max lag ${fmt(maxLag, 1)} s, ` +
        `stored ${fmt(stored)} of ${fmt(scraped)} scraped up to T, CPU ${fmt(cpuSeconds, 2)} s (${fmt((cpuSeconds / w.sent) * 1e6, 2)} µs a sample)`,
    )
    return w
  } catch (err) {
    process.stderr.write(readFileSync(join(dir, 'prometheus.log'), 'utf8').split('\n').slice(-20).join('\n'))
    throw err
  } finally {
    await stopChild(prom)
    rmSync(dir, { recursive: true, force: true })
  }
}

export async function runPromRealBench(log: (s: string) => void): Promise<PromRealResult> {
  const seconds = Number(process.env.BENCH_PROMREAL_SECONDS ?? 60)
  const rounds = Number(process.env.BENCH_PROMREAL_ROUNDS ?? 1)
  const series = Number(process.env.BENCH_PROMREAL_SERIES ?? 10_000)
  if (!existsSync(PROMETHEUS)) {
    throw new Error(`${PROMETHEUS} not found: run ../shared/tools/peers.sh install (Debian's prometheus package) or set BENCH_PROMETHEUS`)
  }
  const result: PromRealResult = { series, windows: [] }
  const exporter = await startExporter(series)
  const dir = mkdtempSync(join(tmpdir(), 'db-adapter-promreal-db-'))
  const cleanup: (() => Promise<void>)[] = [() => stopChild(exporter.child), async () => rmSync(dir, { recursive: true, force: true })]
  try {
    const adapter = await startAdapterProcess([`--storage.url=duckdb:${join(dir, 'promreal.duckdb')}`, '--logLevel=warn', `--log.path=${dir}`])
    cleanup.unshift(() => adapter.stop())
    let vm: Target
    if (process.env.BENCH_VM_URL) {
      const pid = process.env.BENCH_VM_PID ? Number(process.env.BENCH_VM_PID) : undefined
      await waitHttp(`${process.env.BENCH_VM_URL}/health`, 10, `VictoriaMetrics at BENCH_VM_URL`)
      vm = vmTarget(process.env.BENCH_VM_URL, pid)
    } else {
      const started = await startVm(log)
      cleanup.unshift(started.stop)
      vm = vmTarget(started.url, started.pid)
    }
    const targets = [adapterTarget(adapter), vm]
    for (let round = 0; round < rounds; round++) {
      // alternating: the adapter goes first in even rounds, VictoriaMetrics in odd ones
      for (const target of round % 2 === 0 ? targets : [...targets].reverse()) {
        log(`${target.name}, round ${round}: Prometheus scraping ${fmt(series)} series every 1 s for ${seconds} s ...`)
        result.windows.push(await promWindow(target, round, seconds, exporter.url, log))
      }
    }
  } finally {
    for (const step of cleanup) {
      await step().catch((err: unknown) => log(`cleanup: ${err instanceof Error ? err.message : String(err)}`))
    }
  }
  return result
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await runPromRealBench((s) => process.stdout.write(`  ${s}\n`))
  console.log(JSON.stringify(r, null, 2))
}
