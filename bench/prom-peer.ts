/**
 * VictoriaMetrics for the prom bench: started through peers.sh in a directory of its own (so the
 * bench stops only what it started), or one already running at BENCH_VM_URL. When it cannot
 * start, the bench fails saying why: a comparison is never skipped silently.
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { join, resolve } from 'node:path'

export interface Peer {
  url: string
  /** its process, for CPU time (undefined when it cannot be found) */
  pid: number | undefined
  stop(): Promise<void>
}

/** CPU seconds (user + system, every thread) process `pid` has used so far; NaN when unknown. */
export function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) {
    return Number.NaN
  }
  try {
    // fields after the command's closing parenthesis: state is field 3, utime 14, stime 15
    const rest = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
    return (Number(rest[11]) + Number(rest[12])) / 100
  } catch {
    return Number.NaN
  }
}

/** the process listening on a loopback TCP port (ss), for a peer the bench did not start */
function listenerPid(port: number): number | undefined {
  const out = spawnSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8' }).stdout ?? ''
  const m = /pid=(\d+)/.exec(out)
  return m ? Number(m[1]) : undefined
}

/** peers.sh fixes VictoriaMetrics' address */
const PEERS_VM = { host: '127.0.0.1', port: 8428 }
/** how long a VictoriaMetrics another bench runs on 8428 is waited for */
const BUSY_WAIT_MS = 180_000

function peersScript(): string {
  const candidates = [process.env.BENCH_PEERS_SH, '../shared/tools/peers.sh', '../../shared/tools/peers.sh'].filter((p): p is string => p !== undefined)
  for (const c of candidates) {
    if (existsSync(resolve(c))) {
      return resolve(c)
    }
  }
  throw new Error(`peers.sh not found (tried ${candidates.join(', ')}); set BENCH_PEERS_SH`)
}

async function portBusy(host: string, port: number): Promise<boolean> {
  return new Promise((res) => {
    const s = connect({ host, port })
    s.once('connect', () => {
      s.destroy()
      res(true)
    })
    s.once('error', () => res(false))
  })
}

async function healthy(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/health`)).ok
  } catch {
    return false
  }
}

async function peersSh(cmd: 'start' | 'stop', env: Record<string, string>): Promise<string> {
  return new Promise((res, rej) => {
    const child = spawn('bash', [peersScript(), cmd, 'victoria-metrics'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (d: Buffer) => (out += d.toString()))
    child.stderr.on('data', (d: Buffer) => (out += d.toString()))
    child.once('error', rej)
    child.once('exit', (code) => (code === 0 ? res(out) : rej(new Error(`peers.sh ${cmd} victoria-metrics exited with ${code}: ${out.trim()}`))))
  })
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

function loud(log: (s: string) => void, message: string): Error {
  log(`\n!!! VictoriaMetrics is not available: ${message}\n!!! the prom bench compares against it and fails without it\n`)
  return new Error(`VictoriaMetrics is not available: ${message}`)
}

export async function startVictoriaMetrics(log: (s: string) => void): Promise<Peer> {
  const given = process.env.BENCH_VM_URL
  if (given !== undefined && given !== '') {
    const url = given.replace(/\/$/, '')
    if (!(await healthy(url))) {
      throw loud(log, `BENCH_VM_URL=${url} does not answer /health`)
    }
    log(`VictoriaMetrics at ${url} (BENCH_VM_URL; left running)`)
    return { url, pid: listenerPid(Number(new URL(url).port)), stop: async () => undefined }
  }
  const deadline = Date.now() + BUSY_WAIT_MS
  while (await portBusy(PEERS_VM.host, PEERS_VM.port)) {
    if (Date.now() > deadline) {
      throw loud(log, `${PEERS_VM.host}:${PEERS_VM.port} stayed busy for ${BUSY_WAIT_MS / 1000} s (another bench's peer?); start one on another port and set BENCH_VM_URL`)
    }
    log(`${PEERS_VM.host}:${PEERS_VM.port} is busy (another bench's VictoriaMetrics?): waiting for it ...`)
    await sleep(5_000)
  }
  const dir = mkdtempSync('/tmp/peers-prom-bench-')
  const env = { PEERS_DIR: dir, VM_RETENTION: '100y', VM_LOGLEVEL: 'WARN' }
  const url = `http://${PEERS_VM.host}:${PEERS_VM.port}`
  const stop = async (): Promise<void> => {
    await peersSh('stop', env).catch((err: unknown) => log(`stopping VictoriaMetrics: ${String(err)}`))
    rmSync(dir, { recursive: true, force: true })
  }
  let pid: number
  try {
    await peersSh('start', env)
    pid = Number(readFileSync(join(dir, 'victoria-metrics', 'pid'), 'utf8'))
    for (let i = 0; !(await healthy(url)); i++) {
      if (i >= 150 || !existsSync(`/proc/${pid}`)) {
        const tail = existsSync(join(dir, 'victoria-metrics', 'log')) ? readFileSync(join(dir, 'victoria-metrics', 'log'), 'utf8').slice(-1500) : ''
        throw new Error(`it did not answer ${url}/health${tail ? `; its log ends:\n${tail}` : ''}`)
      }
      await sleep(200)
    }
  } catch (err) {
    await stop()
    throw loud(log, err instanceof Error ? err.message : String(err))
  }
  log(`VictoriaMetrics started by peers.sh at ${url} (data in ${dir})`)
  return { url, pid, stop }
}

/**
 * The samples VictoriaMetrics holds under `selector` from `fromMs` to `toMs`, after a flush makes
 * what it acknowledged searchable (it acknowledges before its data is on disk); asked again for a
 * few seconds while it holds fewer than `expected`.
 */
export async function vmCount(url: string, selector: string, fromMs: number, toMs: number, expected: number): Promise<number> {
  // (t - window, t]: from `fromMs` on, nothing a second or more before it
  const window = Math.ceil((toMs - fromMs) / 1000) + 1
  const query = `sum(count_over_time(${selector}[${window}s]))`
  let got = NaN
  for (let attempt = 0; attempt < 10; attempt++) {
    await fetch(`${url}/internal/force_flush`)
    const res = await fetch(`${url}/api/v1/query?${new URLSearchParams({ query, time: String(toMs / 1000) })}`)
    const body = (await res.json()) as { status: string; data?: { result: { value: [number, string] }[] } }
    if (body.status !== 'success') {
      throw new Error(`VictoriaMetrics query ${query}: ${JSON.stringify(body).slice(0, 300)}`)
    }
    got = Number(body.data?.result[0]?.value[1] ?? 0)
    if (got === expected) {
      return got
    }
    await sleep(1000)
  }
  return got
}
