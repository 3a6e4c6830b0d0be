/**
 * TSBS cpu-only queries against peers (issue 37): the same TSBS cpu data (bench/tsbs.bench.ts's
 * bodies: 10 tags, 10 integer fields, a row every 10 s per host) written by line protocol into
 * the adapter (embedded DuckDB), InfluxDB 1.6 and VictoriaMetrics, then the seven TSBS query
 * types (bench/tsbs-queries.ts), each round drawing new parameters from a seed and asking every
 * system in turn, the one going first rotating. Latency is to the last byte of the answer; each
 * answer is checked against InfluxDB's (bench/tsbs-answers.ts) before it counts.
 *
 *   BENCH=tsbsq npm run bench
 *   BENCH_TSBSQ_HOSTS=100 BENCH_TSBSQ_HOURS=24 BENCH_TSBSQ_ROUNDS=7 BENCH_TSBSQ_SEED=37
 *   BENCH_INFLUX_URL=http://127.0.0.1:28086 BENCH_VM_URL=http://127.0.0.1:28428: peers already
 *   running (else peers.sh starts InfluxDB and VictoriaMetrics on 8086 / 8428, and stops them)
 *   BENCH_PAIRED_B_DIR=<another checkout>: a second adapter (that build) loaded and asked the same
 *   questions in the same rotation, for an A/B of two builds (column "adapter B")
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { AUTH, median, postBodies, sql, startAdapterProcess } from './lib.js'
import { adapterSummary, disagreement, influxSummary, vmSummary, type AnswerSummary } from './tsbs-answers.js'
import { QUERY_TYPES, makeQuery, seededRandom, type QueryType, type TsbsQuery, type TsbsSpan } from './tsbs-queries.js'
import { tsbsBodies } from './tsbs.bench.js'

const HOSTS = Number(process.env.BENCH_TSBSQ_HOSTS ?? 100)
const HOURS = Number(process.env.BENCH_TSBSQ_HOURS ?? 24)
const ROUNDS = Number(process.env.BENCH_TSBSQ_ROUNDS ?? 7)
const SEED = Number(process.env.BENCH_TSBSQ_SEED ?? 37)
const ONLY = process.env.BENCH_TSBSQ_TYPES?.split(',').map((s) => s.trim()) as QueryType[] | undefined
const PEERS_SH = resolve(process.env.BENCH_PEERS_SH ?? '../shared/tools/peers.sh')
const B_DIR = process.env.BENCH_PAIRED_B_DIR
const HOUR = 3_600_000

export type SystemName = 'adapter' | 'adapter-b' | 'influxdb' | 'victoria-metrics'

export interface TsbsQueryRow {
  type: QueryType
  /** median ms of each system to the last byte; undefined where it has no such query */
  ms: Partial<Record<SystemName, number>>
  /** answer size of the adapter's last round */
  rows: number
}

export interface TsbsQueryResult {
  hosts: number
  hours: number
  points: number
  rounds: number
  /** seconds to write every body at concurrency 2 (VictoriaMetrics: until /write acknowledged) */
  loadSeconds: Partial<Record<SystemName, number>>
  rows: TsbsQueryRow[]
}

interface Peers {
  influx: string
  vm: string
  /** the B build's adapter (BENCH_PAIRED_B_DIR), when given */
  b?: string
  stop(): Promise<void>
}

async function runBash(args: string[]): Promise<string> {
  return new Promise((res, rej) => {
    const child = spawn('bash', args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (d: Buffer) => (out += d.toString()))
    child.stderr.on('data', (d: Buffer) => (out += d.toString()))
    child.once('error', rej)
    child.once('exit', (code) => (code === 0 ? res(out) : rej(new Error(`bash ${args.join(' ')} exited with ${code}: ${out.slice(-800)}`))))
  })
}

/** The peers: the URLs given, or InfluxDB and VictoriaMetrics started by peers.sh (an error when either cannot start). */
async function startPeers(log: (s: string) => void): Promise<Peers> {
  const given = { influx: process.env.BENCH_INFLUX_URL, vm: process.env.BENCH_VM_URL }
  const started: string[] = []
  const stop = async (): Promise<void> => {
    if (started.length > 0) {
      await runBash([PEERS_SH, 'stop', ...started]).catch((err: Error) => log(`peers.sh stop: ${err.message}`))
    }
  }
  try {
    for (const [peer, url] of [['influxdb', given.influx], ['victoria-metrics', given.vm]] as const) {
      if (url === undefined) {
        const said = (await runBash([PEERS_SH, 'start', peer])).trim().split('\n').pop() ?? ''
        log(said)
        // one already running under this PEERS_DIR is someone else's: used, never stopped
        if (!said.includes('already running')) {
          started.push(peer)
        }
      }
    }
    const peers = { influx: given.influx ?? 'http://127.0.0.1:8086', vm: given.vm ?? 'http://127.0.0.1:8428', stop }
    const ping = await fetch(`${peers.influx}/ping`).catch((err: Error) => err)
    const health = await fetch(`${peers.vm}/health`).catch((err: Error) => err)
    if (ping instanceof Error || health instanceof Error || !ping.ok || !health.ok) {
      throw new Error(`peers not answering: InfluxDB ${peers.influx}, VictoriaMetrics ${peers.vm}`)
    }
    return peers
  } catch (err) {
    await stop()
    throw new Error(`tsbsq needs InfluxDB 1.6 and VictoriaMetrics (peers.sh start, or BENCH_INFLUX_URL / BENCH_VM_URL): ${(err as Error).message}`, { cause: err })
  }
}

/** GET or POST `url` and read the whole body: the latency a client sees, to the last byte. */
async function timed(url: string, init?: RequestInit): Promise<{ ms: number; body: string }> {
  const t0 = performance.now()
  const res = await fetch(url, init)
  const body = await res.text()
  const ms = performance.now() - t0
  if (!res.ok) {
    throw new Error(`${url.slice(0, 120)}: ${res.status} ${body.slice(0, 300)}`)
  }
  return { ms, body }
}

/** as TSBS's influx runner asks: times come back as RFC 3339 text, like the adapter's */
async function influxQuery(base: string, db: string, q: string): Promise<{ ms: number; body: string }> {
  return timed(`${base}/query?${new URLSearchParams({ db, q }).toString()}`)
}

async function influxCount(base: string, db: string): Promise<number> {
  const { body } = await influxQuery(base, db, 'SELECT count(usage_user) FROM cpu')
  return Number((JSON.parse(body) as { results: Array<{ series?: Array<{ values: number[][] }> }> }).results[0].series?.[0].values[0][1] ?? 0)
}

/** Samples of cpu_usage_user VictoriaMetrics can read back (its writes are acknowledged before they are searchable). */
async function vmCount(base: string, db: string, span: TsbsSpan): Promise<number> {
  const q = new URLSearchParams({ query: `sum(count_over_time(cpu_usage_user{db='${db}'}[${HOURS + 1}h]))`, time: String(span.endMs / 1000), nocache: '1' })
  const { body } = await timed(`${base}/api/v1/query?${q.toString()}`)
  return Number((JSON.parse(body) as { data: { result: Array<{ value: [number, string] }> } }).data.result[0]?.value[1] ?? 0)
}

async function until(what: string, check: () => Promise<boolean>, seconds = 60): Promise<void> {
  const deadline = Date.now() + seconds * 1000
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error(`${what}: not there after ${seconds} s`)
    }
    await new Promise((r) => setTimeout(r, 250))
  }
}

export async function runTsbsQueryBench(log: (s: string) => void): Promise<TsbsQueryResult> {
  // the data ends at least an hour before now: VictoriaMetrics keeps only its retention period
  // (peers.sh: one month) and hides the newest samples (-search.latencyOffset)
  const endMs = (Math.floor(Date.now() / HOUR) - 1) * HOUR
  const span: TsbsSpan = { hosts: HOSTS, startMs: endMs - HOURS * HOUR, endMs }
  const points = HOSTS * HOURS * 360
  const db = `tsbsq${Date.now().toString(36)}`
  log(`generating ${points.toLocaleString('en-US')} TSBS cpu lines (${HOSTS} hosts x ${HOURS} h at 10 s) ...`)
  const bodies = tsbsBodies({ hosts: HOSTS, points, t0Ns: BigInt(span.startMs) * 1_000_000n })
  const peers = await startPeers(log)
  const dir = mkdtempSync(join(tmpdir(), 'db-adapter-tsbsq-'))
  try {
    const adapter = await startAdapterProcess([`--storage.url=duckdb:${join(dir, 'tsbsq.duckdb')}`, '--log.path=' + dir])
    const adapterB = B_DIR === undefined ? undefined : await startAdapterProcess([`--storage.url=duckdb:${join(dir, 'tsbsq-b.duckdb')}`, '--log.path=' + join(dir, 'b')], B_DIR)
    if (adapterB !== undefined) {
      peers.b = adapterB.url
    }
    try {
      const load = await loadAll(log, adapter.url, peers, db, bodies, span, points)
      const rows = await queryRounds(log, adapter.url, peers, db, span)
      return { hosts: HOSTS, hours: HOURS, points, rounds: ROUNDS, loadSeconds: load, rows }
    } finally {
      await adapter.stop()
      await adapterB?.stop()
      await fetch(`${peers.influx}/query`, { method: 'POST', body: new URLSearchParams({ q: `DROP DATABASE ${db}` }) }).catch(() => undefined)
      await fetch(`${peers.vm}/api/v1/admin/tsdb/delete_series?${new URLSearchParams({ 'match[]': `{db='${db}'}` }).toString()}`, { method: 'POST' }).catch(() => undefined)
    }
  } finally {
    await peers.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Writes the bodies into each system (concurrency 2) and waits until each reads every point back. */
async function loadAll(log: (s: string) => void, adapterUrl: string, peers: Peers, db: string, bodies: Buffer[], span: TsbsSpan, points: number): Promise<Partial<Record<SystemName, number>>> {
  const loadAdapter = async (url: string, name: string): Promise<number> => {
    await sql(url, `CREATE DATABASE ${db} PRECISION 'ms'`)
    const w = await postBodies(`${url}/lineproto/v1/write?db=${db}&precision=ns`, bodies, 2, { Authorization: AUTH })
    const counted = Number(((await sql(url, `SELECT count(*) FROM ${db}.cpu`)) as { data: [[number]] }).data[0][0])
    if (counted !== points) {
      throw new Error(`${name}: ${counted} rows after writing ${points}`)
    }
    log(`${name}: ${points.toLocaleString('en-US')} points in ${w.seconds.toFixed(1)} s`)
    return w.seconds
  }
  const adapterW = { seconds: await loadAdapter(adapterUrl, 'adapter') }
  const adapterB = peers.b === undefined ? {} : { 'adapter-b': await loadAdapter(peers.b, 'adapter B') }
  await influxQuery(peers.influx, db, `CREATE DATABASE ${db}`)
  const influxW = await postBodies(`${peers.influx}/write?db=${db}`, bodies, 2)
  await until('InfluxDB count', async () => (await influxCount(peers.influx, db)) === points)
  log(`InfluxDB: in ${influxW.seconds.toFixed(1)} s`)
  const vmW = await postBodies(`${peers.vm}/write?db=${db}`, bodies, 2)
  await until('VictoriaMetrics count', async () => (await vmCount(peers.vm, db, span)) === points)
  log(`VictoriaMetrics: in ${vmW.seconds.toFixed(1)} s`)
  return { adapter: adapterW.seconds, ...adapterB, influxdb: influxW.seconds, 'victoria-metrics': vmW.seconds }
}

interface Asked {
  ms: number
  summary: AnswerSummary
}

function ask(system: SystemName, q: TsbsQuery, adapterUrl: string, peers: Peers, db: string): Promise<Asked> | undefined {
  const summarize = (f: (b: string) => AnswerSummary) => (r: { ms: number; body: string }): Asked => ({ ms: r.ms, summary: f(r.body) })
  if (system === 'adapter' || system === 'adapter-b') {
    return timed(`${system === 'adapter' ? adapterUrl : peers.b!}/rest/sql/${db}`, { method: 'POST', headers: { Authorization: AUTH }, body: q.sql }).then(summarize(adapterSummary))
  }
  if (system === 'influxdb') {
    return influxQuery(peers.influx, db, q.influxql).then(summarize(influxSummary))
  }
  if (q.vm === undefined) {
    return undefined
  }
  return timed(`${peers.vm}/api/v1/query_range?${q.vm}&nocache=1`).then(summarize(vmSummary))
}

/**
 * One warm-up query of each type on each system, then ROUNDS rounds: in each, every type is drawn
 * anew and asked of every system in turn, the first rotating round by round. Answers that
 * disagree with InfluxDB's stop the bench.
 */
async function queryRounds(log: (s: string) => void, adapterUrl: string, peers: Peers, db: string, span: TsbsSpan): Promise<TsbsQueryRow[]> {
  const systems: SystemName[] = ['adapter', ...(peers.b === undefined ? [] : ['adapter-b' as const]), 'influxdb', 'victoria-metrics']
  const types = QUERY_TYPES.filter((t) => ONLY === undefined || ONLY.includes(t))
  const rand = seededRandom(SEED)
  const times = new Map(types.map((t) => [t, new Map<SystemName, number[]>(systems.map((s) => [s, []]))]))
  const rows = new Map<QueryType, number>()
  for (let round = -1; round < ROUNDS; round++) {
    for (const type of types) {
      const q = makeQuery(type, rand, span, db)
      const order = systems.map((_, i) => systems[(i + Math.max(round, 0)) % systems.length])
      const got = new Map<SystemName, Asked>()
      for (const system of order) {
        const answer = await ask(system, q, adapterUrl, peers, db)
        if (answer !== undefined) {
          got.set(system, answer)
        }
      }
      const why = disagreement(q, got.get('adapter')!.summary, got.get('influxdb')!.summary, got.get('victoria-metrics')?.summary)
      if (why !== '') {
        throw new Error(`answers disagree: ${why}`)
      }
      rows.set(type, got.get('adapter')!.summary.rows)
      if (round >= 0) {
        for (const [system, a] of got) {
          times.get(type)!.get(system)!.push(a.ms)
        }
      }
    }
    log(round < 0 ? 'warm-up round done' : `round ${round + 1} of ${ROUNDS} done`)
  }
  return types.map((type) => ({
    type,
    rows: rows.get(type) ?? 0,
    ms: Object.fromEntries(
      [...times.get(type)!].filter(([, xs]) => xs.length > 0).map(([s, xs]) => [s, median(xs)]),
    ),
  }))
}
