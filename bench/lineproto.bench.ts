/**
 * Schemaless line-protocol ingest: the shared generator (gen_lp.mjs: 1M points, 1000 series,
 * batches of 5000, precision ms) against the adapter process at concurrency 1 and 2, every point
 * counted back through /rest/sql afterwards. `lp-peers` runs the same workload against InfluxDB
 * 1.6 and VictoriaMetrics when peers.sh can start them.
 *
 * Every system gets the same three runs (RUNS), each into 1000 series it has not seen: the first
 * million points after the server started (cold: for the adapter that includes V8 compiling the
 * write path, ~20-30% of a 2-second run), then concurrency 1 and 2 on the warm server, which is
 * what an agent writing all day meets. Before, the peers' concurrency-2 run wrote into the series
 * their concurrency-1 run had created, while the adapter's created new ones.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { postBodies, sql, startAdapterProcess } from './lib.js'

const GEN_LP = resolve(process.env.BENCH_GEN_LP ?? '../shared/tools/gen_lp.mjs')
const PEERS_SH = resolve(process.env.BENCH_PEERS_SH ?? '../shared/tools/peers.sh')
const POINTS = Number(process.env.BENCH_LP_POINTS ?? 1_000_000)
const SERIES = 1000
const BATCH = 5000

export interface LpRun {
  concurrency: number
  /** the first run after the server started */
  cold: boolean
  points: number
  pointsPerSec: number
  /** peak RSS of the adapter process after this run, MiB (NaN for peers) */
  peakRssMiB: number
}

interface GenResult {
  points: number
  points_per_sec: number
  status: Record<string, number>
  first_error?: string
}

async function runNode(args: string[]): Promise<string> {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString()
    })
    child.once('error', rej)
    child.once('exit', (code) => (code === 0 ? res(out) : rej(new Error(`${args.join(' ')} exited with ${code}`))))
  })
}

async function runBash(args: string[]): Promise<string> {
  return new Promise((res, rej) => {
    const child = spawn('bash', args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString()
    })
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString()
    })
    child.once('error', rej)
    child.once('exit', (code) => (code === 0 ? res(out) : rej(new Error(`bash ${args.join(' ')} exited with ${code}: ${err.slice(-500)}`))))
  })
}

function genResult(stdout: string): GenResult {
  const line = stdout.trim().split('\n').pop() ?? ''
  const r = JSON.parse(line) as GenResult
  const bad = Object.entries(r.status).filter(([code]) => code !== '204')
  if (bad.length > 0) {
    throw new Error(`line-protocol writes failed: ${JSON.stringify(r.status)} ${r.first_error ?? ''}`)
  }
  return r
}

const genArgs = (url: string, concurrency: number): string[] => [
  GEN_LP,
  '--url',
  url,
  '--points',
  String(POINTS),
  '--series',
  String(SERIES),
  '--batch',
  String(BATCH),
  '--concurrency',
  String(concurrency),
]

/** The runs of every system, in order; each writes a measurement (peers) or database (adapter) of its own. */
const RUNS = [
  { concurrency: 1, cold: true },
  { concurrency: 1, cold: false },
  { concurrency: 2, cold: false },
]

export function lpRunLabel(r: Pick<LpRun, 'concurrency' | 'cold'>): string {
  return r.cold ? `concurrency ${r.concurrency}, first run after start` : `concurrency ${r.concurrency}`
}

export async function runLpBench(log: (s: string) => void): Promise<LpRun[]> {
  if (!existsSync(GEN_LP)) {
    throw new Error(`generator not found: ${GEN_LP} (set BENCH_GEN_LP)`)
  }
  const dir = mkdtempSync(join(tmpdir(), 'db-adapter-lp-'))
  const runs: LpRun[] = []
  try {
    const adapter = await startAdapterProcess([`--storage.url=duckdb:${join(dir, 'lp.duckdb')}`, '--log.path=' + dir])
    try {
      for (const [k, { concurrency, cold }] of RUNS.entries()) {
        const db = `lp${k}`
        await sql(adapter.url, `CREATE DATABASE ${db} PRECISION 'ms'`)
        log(`line protocol, ${lpRunLabel({ concurrency, cold })}: ${POINTS.toLocaleString('en-US')} points ...`)
        const url = `${adapter.url}/lineproto/v1/write?db=${db}&precision=ms&u=root&p=taosdata`
        const r = genResult(await runNode(genArgs(url, concurrency)))
        const body = (await sql(adapter.url, `SELECT count(*) FROM ${db}.cpu`)) as { data: [[number]] }
        const counted = Number(body.data[0][0])
        if (counted !== r.points) {
          throw new Error(`${db}.cpu holds ${counted} rows after writing ${r.points} points`)
        }
        runs.push({ concurrency, cold, points: r.points, pointsPerSec: r.points_per_sec, peakRssMiB: adapter.peakRssMiB() })
      }
    } finally {
      await adapter.stop()
    }
    return runs
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Peer write URLs for the TSBS bodies (ns timestamps, the line-protocol default). */
const PEER_WRITE: Record<string, string> = {
  influxdb: 'http://127.0.0.1:8086/write?db=tsbs',
  'victoria-metrics': 'http://127.0.0.1:8428/write?db=tsbs',
}

/**
 * InfluxDB 1.6 and VictoriaMetrics on the same workload (started through peers.sh); with
 * `tsbs` bodies, also the TSBS-style workload (as `<peer> TSBS`).
 */
export async function runLpPeersBench(log: (s: string) => void, tsbs?: Buffer[]): Promise<Record<string, LpRun[]>> {
  const out: Record<string, LpRun[]> = {}
  for (const peer of ['influxdb', 'victoria-metrics']) {
    try {
      await runBash([PEERS_SH, 'start', peer])
    } catch (err) {
      log(`${peer}: not started (${(err as Error).message.split('\n')[0]})`)
      continue
    }
    try {
      out[peer] = []
      for (const [k, { concurrency, cold }] of RUNS.entries()) {
        log(`${peer}, ${lpRunLabel({ concurrency, cold })} ...`)
        const measurement = k === 0 ? 'cpu' : `cpu${k}`
        const r = genResult(
          await runBash([PEERS_SH, 'bench', peer, '--points', String(POINTS), '--series', String(SERIES), '--batch', String(BATCH), '--concurrency', String(concurrency), '--measurement', measurement]),
        )
        out[peer].push({ concurrency, cold, points: r.points, pointsPerSec: r.points_per_sec, peakRssMiB: NaN })
      }
      if (tsbs !== undefined) {
        if (peer === 'influxdb') {
          await fetch('http://127.0.0.1:8086/query', { method: 'POST', body: new URLSearchParams({ q: 'CREATE DATABASE tsbs' }) })
        }
        const points = tsbs.reduce((n, b) => n + b.toString('latin1').split('\n').length, 0)
        out[`${peer} TSBS`] = []
        for (const concurrency of [1, 2]) {
          log(`${peer}, TSBS cpu, concurrency ${concurrency} ...`)
          const { seconds } = await postBodies(PEER_WRITE[peer], tsbs, concurrency)
          out[`${peer} TSBS`].push({ concurrency, cold: false, points, pointsPerSec: points / seconds, peakRssMiB: NaN })
        }
      }
    } finally {
      await runBash([PEERS_SH, 'stop', peer]).catch(() => undefined)
    }
  }
  return out
}
