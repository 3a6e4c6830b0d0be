/**
 * Prometheus remote write beside VictoriaMetrics and beside line protocol, and remote read.
 *  - Remote write: snappy bodies of 2,000 samples each (as Prometheus' queue sends a scrape:
 *    many series, one sample each) over 10,000 series, at concurrency 1 and 2. Each target first
 *    registers the series (untimed); then runs alternate: adapter remote write, VictoriaMetrics
 *    /api/v1/write (the same bodies), adapter line protocol (the same samples as line-protocol
 *    bodies), the storage floor (raw DuckDB appending the same samples, one commit a body, in this
 *    process: prom-floor.ts), again and again, each run over scrapes of its own time range; medians. Every run's
 *    samples are counted back from storage (VictoriaMetrics' after /internal/force_flush), and
 *    each target's CPU time over the run is read from /proc (its process, every thread).
 *  - Remote read: one series holding 1,000,000 samples, read whole; median of 5.
 *
 *   BENCH=prom npm run bench    BENCH_PROM_ROUNDS=50 (scrapes of 10,000 series; 500,000 samples a run)
 *                               BENCH_PROM_RUNS=3 (runs of each target per concurrency)
 *                               BENCH_VM_URL=http://127.0.0.1:18428 (a VictoriaMetrics already running)
 *                               while iterating: BENCH_PROM_TARGETS=rw,vm,lp,floor (a subset), BENCH_PROM_CONCURRENCY=1,2, BENCH_PROM_READ=0 (no remote read)
 *                               BENCH_PAIRED_B_DIR=<another checkout>: its adapter's remote write too (target "B"), in
 *                               each run beside this one's, the one going first alternating from run to run
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { compressSync } from 'snappy'
import { decodeReadResponse, encodeReadRequest, encodeWriteRequest } from '../src/ingest/metricsproto/proto.js'
import { AUTH, fmt, median, postBodies, sql, startAdapterProcess } from './lib.js'
import { StorageFloor, type FloorBody } from './prom-floor.js'
import { cpuSeconds, startVictoriaMetrics, vmCount, type Peer } from './prom-peer.js'

const SERIES = 10_000
const PER_BODY = 2_000
const ROUNDS = Number(process.env.BENCH_PROM_ROUNDS ?? 50)
const RUNS = Number(process.env.BENCH_PROM_RUNS ?? 3)
/** while iterating: a subset of rw,vm,lp,floor (the figures compare all four) */
const TARGETS = new Set((process.env.BENCH_PROM_TARGETS ?? 'rw,vm,lp,floor').split(','))
const CONCURRENCIES = (process.env.BENCH_PROM_CONCURRENCY ?? '1,2').split(',').map(Number)
const READ_SAMPLES = 1_000_000
const SCRAPE_MS = 15_000
/** scrape slots: one to register the series, then ROUNDS per run, RUNS runs at each of 2 concurrencies */
const SLOTS = 1 + 2 * RUNS * ROUNDS
/** whole minutes, the last slot an hour ago: inside any retention VictoriaMetrics is started with */
const T0 = Math.floor((Date.now() - 3_600_000 - SLOTS * SCRAPE_MS) / 60_000) * 60_000
const HEADERS = { 'Content-Encoding': 'snappy', 'Content-Type': 'application/x-protobuf', 'X-Prometheus-Remote-Write-Version': '0.1.0' }

export type PromTarget = 'adapter remote write' | 'VictoriaMetrics remote write' | 'adapter line protocol' | 'B adapter remote write' | 'DuckDB floor (append + commit a body)'

export interface PromBenchResult {
  samples: number
  /** samples/s and the target's CPU seconds per million samples of every run, by concurrency and target, in run order */
  runs: { concurrency: number; target: PromTarget; samplesPerSec: number[]; cpuPerMillion: number[] }[]
  readSamples: number
  readMs: number
  peakRssMiB: number
}

const metricOf = (i: number): string => `bench_metric_${i % 100}`
const instanceOf = (i: number): string => `host-${Math.floor(i / 100)}:9100`
const valueOf = (i: number, slot: number): number => (i * 7 + slot) % 1000
const tsOf = (slot: number): number => T0 + slot * SCRAPE_MS

/** protobuf: a length-delimited field */
function delimited(field: number, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from([(field << 3) | 2]), varint(body.length), body])
}

function varint(n: number): Buffer {
  const out: number[] = []
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80)
    n = Math.floor(n / 0x80)
  }
  out.push(n)
  return Buffer.from(out)
}

/** Each series' labels (TimeSeries field 1), encoded once: prompb as Prometheus writes it. */
const LABEL_BYTES: Buffer[] = Array.from({ length: SERIES }, (_, i) =>
  Buffer.concat(
    [['__name__', metricOf(i)], ['instance', instanceOf(i)], ['job', 'node']].map(([n, v]) =>
      delimited(1, Buffer.concat([delimited(1, Buffer.from(n)), delimited(2, Buffer.from(v))])),
    ),
  ),
)

/**
 * Scrape slots [from, from + rounds), 10,000 series each, as remote-write bodies: body b of a slot
 * holds series b*2000 .. b*2000+1999, one sample each (as Prometheus' queue sends a scrape).
 */
export function writeBodies(from: number, rounds: number): Buffer[] {
  const bodies: Buffer[] = []
  const sample = Buffer.alloc(9 + 1 + 10)
  for (let slot = from; slot < from + rounds; slot++) {
    const ts = varint(tsOf(slot))
    for (let b = 0; b < SERIES / PER_BODY; b++) {
      const series: Buffer[] = []
      for (let i = b * PER_BODY; i < (b + 1) * PER_BODY; i++) {
        sample[0] = 0x09
        sample.writeDoubleLE(valueOf(i, slot), 1)
        sample[9] = 0x10
        ts.copy(sample, 10)
        series.push(delimited(1, Buffer.concat([LABEL_BYTES[i], delimited(2, sample.subarray(0, 10 + ts.length))])))
      }
      bodies.push(compressSync(Buffer.concat(series)))
    }
  }
  return bodies
}

/** The same samples as the storage floor's columns (prom-floor.ts), body by body. */
function floorBodies(from: number, rounds: number): FloorBody[] {
  const bodies: FloorBody[] = []
  for (let slot = from; slot < from + rounds; slot++) {
    for (let b = 0; b < SERIES / PER_BODY; b++) {
      const body: FloorBody = { tids: new Int32Array(PER_BODY), ts: new BigInt64Array(PER_BODY).fill(BigInt(tsOf(slot))), v: new Float64Array(PER_BODY) }
      for (let k = 0; k < PER_BODY; k++) {
        body.tids[k] = b * PER_BODY + k + 1
        body.v[k] = valueOf(b * PER_BODY + k, slot)
      }
      bodies.push(body)
    }
  }
  return bodies
}

/** The same samples as line protocol (measurement = metric name, the other labels as tags, field `value`), same bodies. */
function lineBodies(from: number, rounds: number): Buffer[] {
  const bodies: Buffer[] = []
  for (let slot = from; slot < from + rounds; slot++) {
    for (let b = 0; b < SERIES / PER_BODY; b++) {
      let text = ''
      for (let i = b * PER_BODY; i < (b + 1) * PER_BODY; i++) {
        text += `${metricOf(i)},instance=${instanceOf(i)},job=node value=${valueOf(i, slot)} ${tsOf(slot)}\n`
      }
      bodies.push(Buffer.from(text))
    }
  }
  return bodies
}

/** the adapter's group commits so far and the writes they carried (/metrics) */
async function groupCommits(url: string): Promise<{ commits: number; writes: number }> {
  const text = await (await fetch(`${url}/metrics`)).text()
  const value = (name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN)
  return { commits: value('db_adapter_storage_group_commits_total'), writes: value('db_adapter_storage_group_commit_writes_total') }
}

/** Samples the adapter holds in slots [from, from + rounds). */
async function countAdapter(url: string, db: string, lineProtocol: boolean, from: number, rounds: number): Promise<number> {
  const where = `WHERE ts >= ${tsOf(from)} AND ts <= ${tsOf(from + rounds - 1)}`
  const count = async (table: string, ts: string): Promise<number> =>
    Number(((await sql(url, `SELECT count(*) FROM ${db}.${table} ${where.replaceAll('ts', ts)}`)) as { data: [[number]] }).data[0][0])
  if (!lineProtocol) {
    return count('metrics', 'ts')
  }
  let n = 0
  for (let m = 0; m < 100; m++) {
    n += await count(metricOf(m), '_ts')
  }
  return n
}

export async function runPromBench(log: (s: string) => void): Promise<PromBenchResult> {
  const samples = ROUNDS * SERIES
  const result: PromBenchResult = { samples, runs: [], readSamples: READ_SAMPLES, readMs: NaN, peakRssMiB: NaN }
  // never silently without the peer: startVictoriaMetrics throws, naming why, and the bench fails
  const vm: Peer = await startVictoriaMetrics(log)
  const dir = mkdtempSync(join(tmpdir(), 'db-adapter-prom-'))
  try {
    // (no management server: other benches' adapters may hold its fixed port)
    const adapter = await startAdapterProcess([`--storage.url=duckdb:${join(dir, 'prom.duckdb')}`, '--log.path=' + dir, '--manager.enable=false'])
    // BENCH_PAIRED_B_DIR: another build's adapter, for an A/B in the same runs
    const bDir = process.env.BENCH_PAIRED_B_DIR
    const adapterB = bDir === undefined ? undefined : await startAdapterProcess([`--storage.url=duckdb:${join(dir, 'b.duckdb')}`, `--log.path=${dir}`, '--manager.enable=false'], bDir)
    let storageFloor: StorageFloor | undefined
    try {
      const rwUrlB = adapterB === undefined ? '' : `${adapterB.url}/metricsproto/v1/remote_write/rw`
      const rwUrl = `${adapter.url}/metricsproto/v1/remote_write/rw`
      const lpUrl = `${adapter.url}/lineproto/v1/write?db=lp&precision=ms&u=root&p=taosdata`
      // this bench's samples apart from any a VictoriaMetrics at BENCH_VM_URL already holds
      const tag = `b${process.pid}x${Date.now()}`
      const vmUrl = `${vm.url}/api/v1/write?extra_label=bench=${tag}`
      await sql(adapter.url, `CREATE DATABASE rw PRECISION 'ms'`)
      await sql(adapter.url, `CREATE DATABASE lp PRECISION 'ms'`)
      // every target registers the 10,000 series first (untimed): the runs measure a scrape's steady state
      log(`registering ${fmt(SERIES)} series in each target ...`)
      await postBodies(rwUrl, writeBodies(0, 1), 1, { ...HEADERS, Authorization: AUTH })
      if (adapterB !== undefined) {
        await sql(adapterB.url, `CREATE DATABASE rw PRECISION 'ms'`)
        await postBodies(rwUrlB, writeBodies(0, 1), 1, { ...HEADERS, Authorization: AUTH })
      }
      await postBodies(vmUrl, writeBodies(0, 1), 1, HEADERS)
      await postBodies(lpUrl, lineBodies(0, 1), 1)
      // the floor: raw DuckDB in this process, the same samples, one commit a body (prom-floor.ts)
      storageFloor = TARGETS.has('floor') ? await StorageFloor.open(dir) : undefined
      await storageFloor?.write(floorBodies(0, 1), 1)
      let slot = 1
      for (const concurrency of CONCURRENCIES) {
        const rw = { concurrency, target: 'adapter remote write' as const, samplesPerSec: [] as number[], cpuPerMillion: [] as number[] }
        const peer = { concurrency, target: 'VictoriaMetrics remote write' as const, samplesPerSec: [] as number[], cpuPerMillion: [] as number[] }
        const lp = { concurrency, target: 'adapter line protocol' as const, samplesPerSec: [] as number[], cpuPerMillion: [] as number[] }
        const rwB = { concurrency, target: 'B adapter remote write' as const, samplesPerSec: [] as number[], cpuPerMillion: [] as number[] }
        const floor = { concurrency, target: 'DuckDB floor (append + commit a body)' as const, samplesPerSec: [] as number[], cpuPerMillion: [] as number[] }
        result.runs.push(rw, peer, lp, rwB, floor)
        for (let run = 0; run < RUNS; run++, slot += ROUNDS) {
          log(`concurrency ${concurrency}, run ${run + 1} of ${RUNS} (${fmt(samples)} samples): adapter remote write, VictoriaMetrics, adapter line protocol ...`)
          const bodies = writeBodies(slot, ROUNDS)
          const lines = lineBodies(slot, ROUNDS)
          const check = (who: string, counted: number): void => {
            if (counted !== samples) {
              throw new Error(`${who} holds ${counted} samples of run ${run + 1} after writing ${samples}`)
            }
          }
          // CPU time of the target's process (every thread) over the timed writes: on a shared
          // machine a steadier measure of the work per sample than the wall clock
          const timed = async (into: PromBenchResult['runs'][number], pid: number | undefined, post: () => Promise<{ seconds: number }>): Promise<void> => {
            const cpu = cpuSeconds(pid)
            const { seconds } = await post()
            into.cpuPerMillion.push(((cpuSeconds(pid) - cpu) / samples) * 1e6)
            into.samplesPerSec.push(samples / seconds)
          }
          const runB = async (): Promise<void> => {
            if (adapterB !== undefined) {
              await timed(rwB, adapterB.child.pid, () => postBodies(rwUrlB, bodies, concurrency, { ...HEADERS, Authorization: AUTH }))
              check('adapter B (remote write)', await countAdapter(adapterB.url, 'rw', false, slot, ROUNDS))
            }
          }
          if (run % 2 === 1) {
            await runB()
          }
          if (TARGETS.has('rw')) {
            const before = await groupCommits(adapter.url)
            await timed(rw, adapter.child.pid, () => postBodies(rwUrl, bodies, concurrency, { ...HEADERS, Authorization: AUTH }))
            check('the adapter (remote write)', await countAdapter(adapter.url, 'rw', false, slot, ROUNDS))
            const after = await groupCommits(adapter.url)
            log(`    adapter: ${fmt((after.writes - before.writes) / Math.max(1, after.commits - before.commits), 2)} bodies a commit`)
          }
          if (run % 2 === 0) {
            await runB()
          }
          if (TARGETS.has('vm')) {
            await timed(peer, vm.pid, () => postBodies(vmUrl, bodies, concurrency, HEADERS))
            check('VictoriaMetrics', await vmCount(vm.url, `{bench="${tag}"}`, tsOf(slot), tsOf(slot + ROUNDS - 1), samples))
          }
          if (TARGETS.has('lp')) {
            await timed(lp, adapter.child.pid, () => postBodies(lpUrl, lines, concurrency))
            check('the adapter (line protocol)', await countAdapter(adapter.url, 'lp', true, slot, ROUNDS))
          }
          const f = storageFloor
          if (f !== undefined) {
            const columns = floorBodies(slot, ROUNDS)
            await timed(floor, process.pid, () => f.write(columns, concurrency))
            check('the DuckDB floor', await f.count(tsOf(slot), tsOf(slot + ROUNDS - 1)))
          }
        }
      }

      if (process.env.BENCH_PROM_READ === '0') {
        return result
      }
      log(`remote read: one series of ${fmt(READ_SAMPLES)} samples ...`)
      await sql(adapter.url, `CREATE DATABASE promread PRECISION 'ms'`)
      const series = [{ name: '__name__', value: 'long_series' }, { name: 'job', value: 'bench' }]
      const readBodies: Buffer[] = []
      for (let k = 0; k < READ_SAMPLES; k += 10_000) {
        readBodies.push(encodeWriteRequest({ timeseries: [{ labels: series, samples: Array.from({ length: 10_000 }, (_, j) => ({ value: (k + j) % 977, timestamp: T0 + (k + j) * 1000 })) }] }))
      }
      // a few other series, so the read has to pick its series out
      readBodies.push(writeBodies(0, 1)[0])
      await postBodies(`${adapter.url}/metricsproto/v1/remote_write/promread`, readBodies, 2, { ...HEADERS, Authorization: AUTH })
      const query = encodeReadRequest({
        queries: [{ startMs: BigInt(T0), endMs: BigInt(T0 + READ_SAMPLES * 1000), matchers: [{ type: 0, name: '__name__', value: 'long_series' }] }],
        acceptedResponseTypes: [0],
      })
      const times: number[] = []
      for (let i = 0; i < 5; i++) {
        const t = performance.now()
        const res = await fetch(`${adapter.url}/metricsproto/v1/remote_read/promread`, { method: 'POST', headers: { ...HEADERS, Authorization: AUTH }, body: query })
        const decoded = decodeReadResponse(Buffer.from(await res.arrayBuffer()))
        times.push(performance.now() - t)
        const got = decoded[0]?.timeseries[0]?.samples.length
        if (res.status !== 200 || got !== READ_SAMPLES) {
          throw new Error(`remote read answered ${res.status} with ${got} samples`)
        }
      }
      result.readMs = median(times)
      result.peakRssMiB = adapter.peakRssMiB()
    } finally {
      await adapter.stop()
      await adapterB?.stop()
      storageFloor?.close()
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
    await vm.stop()
  }
  return result
}

/** The table run.ts prints: per concurrency and target, median samples/s and the ratio to VictoriaMetrics'. */
export function promTable(r: PromBenchResult): Record<string, Record<string, string>> {
  const rows: Record<string, Record<string, string>> = {}
  for (const run of r.runs.filter((x) => x.samplesPerSec.length > 0)) {
    const vm = r.runs.find((x) => x.concurrency === run.concurrency && x.target === 'VictoriaMetrics remote write')
    const m = median(run.samplesPerSec)
    rows[`${run.target}, concurrency ${run.concurrency}`] = {
      'median samples/s': fmt(m),
      'x VictoriaMetrics': vm === undefined || vm.samplesPerSec.length === 0 ? '-' : fmt(m / median(vm.samplesPerSec), 2),
      'CPU s per 1M samples': fmt(median(run.cpuPerMillion), 2),
      runs: run.samplesPerSec.map((x) => fmt(x)).join(' '),
    }
    const b = r.runs.find((x) => x.concurrency === run.concurrency && x.target === 'B adapter remote write')
    if (run.target === 'adapter remote write' && b !== undefined && b.samplesPerSec.length > 0) {
      // the A/B: run by run (each pair ran back to back), the median of this build's samples/s over B's
      rows[`${run.target}, concurrency ${run.concurrency}`]['x B (median of pairs)'] = fmt(median(run.samplesPerSec.map((x, i) => x / b.samplesPerSec[i])), 2)
    }
  }
  return rows
}
