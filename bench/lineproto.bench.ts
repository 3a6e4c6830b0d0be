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
import { median, postBodies, sql, startAdapterProcess, type AdapterProcess } from './lib.js'

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
        log(`line protocol, ${lpRunLabel({ concurrency, cold })}: ${POINTS.toLocaleString('en-US')} points ...`)
        runs.push({ ...(await adapterRun(adapter, `lp${k}`, concurrency)), cold })
      }
    } finally {
      await adapter.stop()
    }
    return runs
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** One gen_lp run into a new database `db` of the adapter, every point counted back through /rest/sql. */
async function adapterRun(adapter: AdapterProcess, db: string, concurrency: number): Promise<LpRun> {
  await sql(adapter.url, `CREATE DATABASE ${db} PRECISION 'ms'`)
  const url = `${adapter.url}/lineproto/v1/write?db=${db}&precision=ms&u=root&p=taosdata`
  const r = genResult(await runNode(genArgs(url, concurrency)))
  const body = (await sql(adapter.url, `SELECT count(*) FROM ${db}.cpu`)) as { data: [[number]] }
  const counted = Number(body.data[0][0])
  if (counted !== r.points) {
    throw new Error(`${db}.cpu holds ${counted} rows after writing ${r.points} points`)
  }
  return { concurrency, cold: false, points: r.points, pointsPerSec: r.points_per_sec, peakRssMiB: adapter.peakRssMiB() }
}

/** One gen_lp run into a new measurement of a peer started by peers.sh. */
async function peerRun(peer: string, measurement: string, concurrency: number): Promise<LpRun> {
  const r = genResult(
    await runBash([PEERS_SH, 'bench', peer, '--points', String(POINTS), '--series', String(SERIES), '--batch', String(BATCH), '--concurrency', String(concurrency), '--measurement', measurement]),
  )
  return { concurrency, cold: false, points: r.points, pointsPerSec: r.points_per_sec, peakRssMiB: NaN }
}

export interface PairedLp {
  concurrency: number
  /** points/s of each round: this tree's adapter, and what it is paired with */
  adapter: number[]
  other: number[]
}

/**
 * What lp-paired pairs this tree's adapter with: InfluxDB 1.6 (the default), or a second adapter
 * for an A/B of two builds or two settings (BENCH_PAIRED_B_DIR: another checkout with its own
 * node_modules; BENCH_PAIRED_B_ARGS: extra flags, e.g. `--lineproto.columnarLane=false`).
 */
export interface PairedAgainst {
  name: string
  dir?: string
  args: string[]
}

export function pairedAgainstFromEnv(): PairedAgainst | undefined {
  const dir = process.env.BENCH_PAIRED_B_DIR
  const args = (process.env.BENCH_PAIRED_B_ARGS ?? '').split(' ').filter(Boolean)
  if (dir === undefined && args.length === 0) {
    return undefined
  }
  return { name: `B (${[dir, ...args].filter(Boolean).join(' ')})`, dir: dir === undefined ? undefined : resolve(dir), args }
}

/**
 * The adapter against InfluxDB 1.6 (or a second adapter, `against`) run for run: both servers up
 * at once, and in each round the two take turns at concurrency 1 and then 2, the one going first
 * alternating from round to round. On this 2-core VM the same run swings by 20-30% from one
 * minute to the next, for the peers as much as for the adapter; runs of one system after all runs
 * of the other (lp, lp-peers) then compare two different stretches of the machine, and three of
 * them decided nothing. Paired rounds share each stretch, so medians and per-round wins are a
 * fair answer to "ahead of". Each run writes 1000 series of its own after one warm-up run each.
 */
export async function runLpPairedBench(log: (s: string) => void, rounds: number, against?: PairedAgainst): Promise<PairedLp[] | undefined> {
  if (against === undefined) {
    try {
      await runBash([PEERS_SH, 'start', 'influxdb'])
    } catch (err) {
      log(`influxdb: not started (${(err as Error).message.split('\n')[0]})`)
      return undefined
    }
  }
  const dir = mkdtempSync(join(tmpdir(), 'db-adapter-lp-paired-'))
  const stops: Array<() => Promise<void>> = []
  try {
    const adapter = await startAdapterProcess([`--storage.url=duckdb:${join(dir, 'lp.duckdb')}`, '--log.path=' + dir])
    stops.push(() => adapter.stop())
    let otherRun: (db: string, concurrency: number) => Promise<LpRun>
    if (against === undefined) {
      otherRun = (db, concurrency) => peerRun('influxdb', db, concurrency)
    } else {
      const b = await startAdapterProcess([`--storage.url=duckdb:${join(dir, 'b.duckdb')}`, '--log.path=' + dir, ...against.args], against.dir)
      stops.push(() => b.stop())
      otherRun = (db, concurrency) => adapterRun(b, db, concurrency)
    }
    const otherName = against?.name ?? 'influxdb'
    let k = 0
    log('warm-up: one run each')
    await adapterRun(adapter, `pw${k}`, 1)
    await otherRun(`pw${k++}`, 1)
    const out = [1, 2].map((concurrency): PairedLp => ({ concurrency, adapter: [], other: [] }))
    for (let round = 0; round < rounds; round++) {
      for (const pair of out) {
        const order = round % 2 === 0 ? (['adapter', 'other'] as const) : (['other', 'adapter'] as const)
        for (const system of order) {
          const r = system === 'adapter' ? await adapterRun(adapter, `p${k}`, pair.concurrency) : await otherRun(`p${k}`, pair.concurrency)
          k++
          pair[system].push(r.pointsPerSec)
        }
        const i = pair.adapter.length - 1
        log(`round ${round + 1}, concurrency ${pair.concurrency}: adapter ${Math.round(pair.adapter[i]).toLocaleString('en-US')}, ${otherName} ${Math.round(pair.other[i]).toLocaleString('en-US')} points/s`)
      }
    }
    return out
  } finally {
    for (const stop of stops) {
      await stop().catch(() => undefined)
    }
    if (against === undefined) {
      await runBash([PEERS_SH, 'stop', 'influxdb']).catch(() => undefined)
    }
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Medians, wins and the mean log-ratio ln(adapter / other) with its standard error, as the bench prints them. */
export function pairedSummary(p: PairedLp): { adapter: number; other: number; ratio: number; wins: number; rounds: number; logRatio: number; logRatioSe: number } {
  const adapter = median(p.adapter)
  const other = median(p.other)
  const wins = p.adapter.filter((a, i) => a > p.other[i]).length
  const logs = p.adapter.map((a, i) => Math.log(a / p.other[i]))
  const mean = logs.reduce((x, y) => x + y, 0) / logs.length
  const variance = logs.length > 1 ? logs.reduce((x, y) => x + (y - mean) ** 2, 0) / (logs.length - 1) : NaN
  return { adapter, other, ratio: adapter / other, wins, rounds: p.adapter.length, logRatio: mean, logRatioSe: Math.sqrt(variance / logs.length) }
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
        out[peer].push({ ...(await peerRun(peer, k === 0 ? 'cpu' : `cpu${k}`, concurrency)), cold })
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
