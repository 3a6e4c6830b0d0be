/**
 * `/-/ping` latency while line-protocol ingest runs at full speed: the readiness probe must stay
 * fast when the adapter is busiest, or a kubelet marks a healthy pod unready. Target (issue 37):
 * the adapter's p99 within 1.5x of a floor's, a trivial Node HTTP server in its own process
 * (bench/ping-floor.ts) probed the same way on the same busy machine.
 *
 *   BENCH=ping npm run bench            (or: npx tsx bench/ping.bench.ts)
 *   PING_BENCH_SECONDS=10 PING_BENCH_WRITERS=2 PING_BENCH_WINDOW_MS=1000
 *
 * The adapter runs as its own process on a DuckDB file. Bodies have the gen_lp.mjs shape
 * (1000 series, 1 field, ms timestamps, 5000 lines per body, a fresh time range per body so every
 * write inserts). Writers POST back to back to the adapter; the prober is a process of its own
 * (bench/ping-prober.ts, as a kubelet is), so the writers' client work does not delay its
 * measurements. It GETs /-/ping every 10 ms over one keep-alive connection to each server,
 * the adapter and the floor in alternating windows of PING_BENCH_WINDOW_MS, so both see the same
 * load. Idle latency is measured first for comparison. The first PING_BENCH_WARMUP_SECONDS (2) of
 * load are reported apart: the adapter is still compiling its write path then (p99 was 10-11 ms
 * in that first second, 6-7 ms after), and the target is about a pod at work, not one warming up.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Agent, request } from 'node:http'
import { AUTH, fmt, freePort, startAdapterProcess } from './lib.js'

export interface PingBenchResult {
  idle: Latency
  idleFloor: Latency
  /** the first PING_BENCH_WARMUP_SECONDS of load (the adapter's windows) */
  warmup: Latency
  /** the rest: what the target is about */
  loaded: Latency
  /** the floor server's windows of the same stretch of load */
  loadedFloor: Latency
  ingestPointsPerSec: number
  writeErrors: number
  /** the adapter's own event-loop lag (prom-client default metrics, read right after the load), ms */
  eventLoopLagP99Ms: number
  eventLoopLagMaxMs: number
}

export interface Latency {
  samples: number
  p50: number
  p99: number
  max: number
}

const SERIES = 1000
const LINES = 5000

/**
 * Write bodies: every body has the same lines but its own time range. The lines are built once;
 * each body copies them and writes its timestamps in place (all have 13 digits), so generating
 * a body costs ~0.1 ms of this process's CPU instead of ~2 ms for building the text. An agent
 * sends from another machine; here the generator shares the adapter's two cores, and gen_lp.mjs
 * likewise builds its bodies before it starts the clock.
 */
function bodyMaker(): (n: number) => Buffer {
  const TS_DIGITS = 13
  const perBody = LINES / SERIES
  const parts: string[] = []
  const offsets: number[] = []
  let at = 0
  for (let i = 0; i < LINES; i++) {
    const s = i % SERIES
    const j = Math.floor(i / SERIES)
    const head = `${i === 0 ? '' : '\n'}cpu,host=h${String(s).padStart(4, '0')},region=r${s % 4} usage_user=${((s * 7 + j) % 1000) / 10} `
    parts.push(head, '0'.repeat(TS_DIGITS))
    offsets.push(at + Buffer.byteLength(head))
    at += Buffer.byteLength(head) + TS_DIGITS
  }
  const template = Buffer.from(parts.join(''))
  return (n) => {
    const b = Buffer.from(template)
    const t0 = 1_700_000_000_000 + n * perBody * 1000
    const stamps = Array.from({ length: perBody }, (_, j) => Buffer.from(String(t0 + j * 1000)))
    for (let i = 0; i < LINES; i++) {
      stamps[Math.floor(i / SERIES)].copy(b, offsets[i])
    }
    return b
  }
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) {
    return NaN
  }
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]
}

function summarise(ms: number[]): Latency {
  const s = [...ms].sort((a, b) => a - b)
  return { samples: s.length, p50: percentile(s, 50), p99: percentile(s, 99), max: s[s.length - 1] }
}

/** One HTTP request on a keep-alive agent; resolves with the status once the body is read. */
function send(agent: Agent, url: URL, method: string, payload?: Buffer, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, agent, headers }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode ?? 0))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(payload)
  })
}

/** /-/ping of each URL probed in turn from a separate process until `until` (epoch ms): [sent at (epoch ms), latency (ms), URL index] */
async function probe(urls: URL[], until: number, windowMs: number): Promise<[number, number, number][]> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/ping-prober.ts', urls.map((u) => u.href).join(','), String(until), String(windowMs)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s))
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
  if (code !== 0) {
    throw new Error(`ping prober exited with code ${code}`)
  }
  return JSON.parse(out) as [number, number, number][]
}

/** The floor server (bench/ping-floor.ts) in its own process. */
async function startFloor(): Promise<{ url: URL; stop: () => Promise<void> }> {
  const port = await freePort()
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/ping-floor.ts', String(port)], { stdio: ['ignore', 'pipe', 'inherit'] })
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve())
    child.once('exit', (code) => reject(new Error(`ping floor server exited with code ${code}`)))
  })
  return {
    url: new URL(`http://127.0.0.1:${port}/-/ping`),
    stop: async () => {
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGTERM')
      await exited
    },
  }
}

export async function runPingBench(log: (s: string) => void): Promise<PingBenchResult> {
  const seconds = Number(process.env.PING_BENCH_SECONDS ?? 10)
  const writers = Number(process.env.PING_BENCH_WRITERS ?? 2)
  const warmupSeconds = Number(process.env.PING_BENCH_WARMUP_SECONDS ?? 2)
  const windowMs = Number(process.env.PING_BENCH_WINDOW_MS ?? 1000)
  // a database file, as deployments have: its WAL and checkpoints are part of the load
  const dir = mkdtempSync(join(tmpdir(), 'db-adapter-ping-'))
  const adapter = await startAdapterProcess([`--storage.url=duckdb:${join(dir, 'ping.duckdb')}`, '--smlAutoCreateDB=true', '--logLevel=warn', `--log.path=${dir}`])
  const floor = await startFloor()
  try {
    const ping = [new URL(`${adapter.url}/-/ping`), floor.url]
    const of = (probes: [number, number, number][], index: number, keep: (t: number) => boolean = () => true): Latency =>
      summarise(probes.filter(([t, , i]) => i === index && keep(t)).map(([, ms]) => ms))
    const idleProbes = await probe(ping, Date.now() + 4000, windowMs)
    const [idle, idleFloor] = [of(idleProbes, 0), of(idleProbes, 1)]
    log(`idle: adapter p50 ${fmt(idle.p50, 2)} ms, p99 ${fmt(idle.p99, 2)} ms; floor p50 ${fmt(idleFloor.p50, 2)} ms, p99 ${fmt(idleFloor.p99, 2)} ms`)

    const write = new URL(`${adapter.url}/lineproto/v1/write?db=bench&precision=ms`)
    const steadyFrom = Date.now() + warmupSeconds * 1000
    const end = steadyFrom + seconds * 1000
    let next = 0
    let points = 0
    let writeErrors = 0
    const body = bodyMaker()
    const writer = async (): Promise<void> => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 })
      try {
        while (Date.now() < end) {
          // every body is a fresh time range, as a live agent's writes are
          const b = body(next++)
          const status = await send(agent, write, 'POST', b, { Authorization: AUTH })
          if (status === 204) {
            points += LINES
          } else {
            writeErrors++
          }
        }
      } finally {
        agent.destroy()
      }
    }
    let steadyPoints = 0
    const mark = setTimeout(() => (steadyPoints = points), steadyFrom - Date.now())
    const [probes] = await Promise.all([probe(ping, end, windowMs), ...Array.from({ length: writers }, writer)])
    clearTimeout(mark)
    const elapsed = (Date.now() - steadyFrom) / 1000
    const steadyRate = (points - steadyPoints) / elapsed
    const warmup = of(probes, 0, (t) => t < steadyFrom)
    const loaded = of(probes, 0, (t) => t >= steadyFrom)
    const loadedFloor = of(probes, 1, (t) => t >= steadyFrom)
    // why pings wait: a busy event loop (synchronous parse/append work per request) delays them
    const metrics = await (await fetch(`${adapter.url}/metrics`)).text()
    const lag = (name: string): number => 1000 * Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1])
    log(`first ${warmupSeconds} s of ingest: ${warmup.samples} pings, p50 ${fmt(warmup.p50, 2)} ms, p99 ${fmt(warmup.p99, 2)} ms`)
    log(`under ingest: adapter ${loaded.samples} pings, p50 ${fmt(loaded.p50, 2)} ms, p99 ${fmt(loaded.p99, 2)} ms; floor ${loadedFloor.samples} pings, p50 ${fmt(loadedFloor.p50, 2)} ms, p99 ${fmt(loadedFloor.p99, 2)} ms; ${fmt(steadyRate)} points/s`)
    return {
      idle,
      idleFloor,
      warmup,
      loaded,
      loadedFloor,
      ingestPointsPerSec: steadyRate,
      writeErrors,
      eventLoopLagP99Ms: lag('nodejs_eventloop_lag_p99_seconds'),
      eventLoopLagMaxMs: lag('nodejs_eventloop_lag_max_seconds'),
    }
  } finally {
    await floor.stop()
    await adapter.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await runPingBench((s) => process.stdout.write(`  ${s}\n`))
  console.log(JSON.stringify(r, null, 2))
}
