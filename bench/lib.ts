import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { createServer } from 'node:net'
import { NODE_FLAGS } from '../src/node-flags.js'

/** A free TCP port on loopback (the kernel picks it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address()
      const port = typeof addr === 'object' && addr ? addr.port : 0
      srv.close(() => resolve(port))
    })
  })
}

export interface AdapterProcess {
  url: string
  child: ChildProcess
  /** peak resident set size of the adapter process so far, in MiB (VmHWM) */
  peakRssMiB(): number
  /** resident set size now, in MiB (VmRSS) */
  rssMiB(): number
  /** starts peakRssMiB afresh from the current RSS (Linux: clear_refs 5) */
  resetPeakRss(): void
  stop(): Promise<void>
}

/** Starts the real adapter as a separate process, so its memory is measured on its own. */
export async function startAdapterProcess(args: string[], cwd?: string): Promise<AdapterProcess> {
  const port = await freePort()
  const child = spawn(
    process.execPath,
    [
      // BENCH_CPU_PROF_DIR: write a V8 CPU profile of the adapter (on exit) to find hot spots
      ...(process.env.BENCH_CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`] : []),
      // as `npm start` runs it: its V8 flags (NODE_FLAGS, V8's default young generation);
      // BENCH_SEMI_SPACE=<MB> to compare another young generation, BENCH_NO_NODE_FLAGS=1 without the flags
      ...(process.env.BENCH_NO_NODE_FLAGS ? [] : NODE_FLAGS),
      ...(process.env.BENCH_SEMI_SPACE ? [`--max-semi-space-size=${process.env.BENCH_SEMI_SPACE}`] : []),
      // BENCH_NODE_ARGS: extra V8/Node flags for experiments (e.g. --trace-gc; the adapter's stdout is then shown)
      ...(process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ').filter(Boolean) : []),
      '--import', 'tsx', 'src/main.ts', `--port=${port}`, '--host=127.0.0.1', '--collagent.enable=false', '--statsagent.enable=false', '--manager.enable=false', ...args],
    { cwd, stdio: ['ignore', process.env.BENCH_NODE_ARGS ? 'inherit' : 'ignore', 'inherit'], env: { ...process.env, NODE_ENV: 'production' } },
  )
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`adapter exited with code ${child.exitCode} during start`)
    }
    try {
      const res = await fetch(`${url}/-/live`)
      if (res.ok) {
        break
      }
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error('adapter did not start within 60 s')
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  return {
    url,
    child,
    peakRssMiB: () => statusKiB(child.pid!, 'VmHWM') / 1024,
    rssMiB: () => statusKiB(child.pid!, 'VmRSS') / 1024,
    resetPeakRss: () => writeFileSync(`/proc/${child.pid!}/clear_refs`, '5'),
    stop: async () => {
      if (child.exitCode !== null) {
        return
      }
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGTERM')
      await exited
    },
  }
}

function statusKiB(pid: number, field: string): number {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8')
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)
  return m ? Number(m[1]) : NaN
}

export const AUTH = 'Basic ' + Buffer.from('root:taosdata').toString('base64')

/** POST one statement to /rest/sql and fail loudly on any error code. */
export async function sql(url: string, statement: string): Promise<any> {
  const res = await fetch(`${url}/rest/sql`, {
    method: 'POST',
    headers: { Authorization: AUTH },
    body: statement,
  })
  const body = (await res.json()) as { code: number; desc?: string }
  if (res.status !== 200 || body.code !== 0) {
    throw new Error(`SQL failed (${res.status}): ${JSON.stringify(body).slice(0, 300)}`)
  }
  return body
}

/**
 * A query as a client sees its latency: from sending until the last byte of the body arrived
 * (the client's own JSON.parse of a 7 MB body is not the adapter's time), with the first byte
 * (the backend has the result and encoding starts).
 */
export async function timedQuery(url: string, statement: string): Promise<{ ms: number; firstByteMs: number; rows: number }> {
  const t0 = performance.now()
  const res = await fetch(`${url}/rest/sql`, { method: 'POST', headers: { Authorization: AUTH }, body: statement })
  const parts: Uint8Array[] = []
  let firstByteMs = NaN
  for await (const chunk of res.body!) {
    if (parts.length === 0) {
      firstByteMs = performance.now() - t0
    }
    parts.push(chunk as Uint8Array)
  }
  const ms = performance.now() - t0
  // Only the envelope is checked here: a parsed 7 MB body (160,000 row arrays) left for the
  // garbage collector made the client slower to read the next timed body on a 2-core machine
  // (~10 ms more from first to last byte). Check the data itself with an untimed sql() call.
  const body = Buffer.concat(parts)
  const head = body.subarray(0, 9).toString('utf8')
  const tail = /"rows":(\d+)}$/.exec(body.subarray(Math.max(0, body.length - 40)).toString('utf8'))
  if (res.status !== 200 || head !== '{"code":0' || tail === null) {
    throw new Error(`SQL failed (${res.status}): ${body.subarray(0, 300).toString('utf8')}`)
  }
  return { ms, firstByteMs, rows: Number(tail[1]) }
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]
}

export function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits })
}

/**
 * POSTs every body to `url` over `concurrency` keep-alive connections, as fast as answers come;
 * throws on any non-2xx. Bodies are built before timing, so only sending and serving is timed.
 */
export async function postBodies(url: string, bodies: Buffer[], concurrency: number, headers: Record<string, string> = {}): Promise<{ seconds: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency })
  const u = new URL(url)
  let next = 0
  const post = (body: Buffer): Promise<void> =>
    new Promise((resolve, reject) => {
      const req = request(u, { method: 'POST', agent, headers: { ...headers, 'Content-Length': String(body.length) } }, (res) => {
        let text = ''
        res.setEncoding('utf8').on('data', (d: string) => (text += d))
        res.on('end', () => ((res.statusCode ?? 0) < 300 ? resolve() : reject(new Error(`${url}: ${res.statusCode} ${text.slice(0, 300)}`))))
      })
      req.on('error', reject)
      req.end(body)
    })
  const started = performance.now()
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < bodies.length) {
          await post(bodies[next++])
        }
      }),
    )
  } finally {
    agent.destroy()
  }
  return { seconds: (performance.now() - started) / 1000 }
}
