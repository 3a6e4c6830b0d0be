/**
 * Prometheus remote write and remote read (issue 7 figures).
 *  - Remote write: pre-built snappy bodies of 2,000 samples each (as Prometheus' queue sends
 *    them: many series, one sample each) over 10,000 series, at concurrency 1 and 2, every
 *    sample counted back; the same bodies to VictoriaMetrics' /api/v1/write when peers.sh can
 *    start it.
 *  - Remote read: one series holding 1,000,000 samples, read whole; median of 5.
 *
 *   BENCH=prom npm run bench      BENCH_PROM_ROUNDS=50 (rounds of 10,000 series; 500,000 samples)
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { decodeReadResponse, encodeReadRequest, encodeWriteRequest, type TimeSeries } from '../src/ingest/metricsproto/proto.js'
import { AUTH, fmt, median, postBodies, sql, startAdapterProcess } from './lib.js'

const SERIES = 10_000
const PER_BODY = 2_000
const ROUNDS = Number(process.env.BENCH_PROM_ROUNDS ?? 50)
const READ_SAMPLES = 1_000_000
const T0 = 1_700_000_000_000
const PEERS_SH = resolve(process.env.BENCH_PEERS_SH ?? '../shared/tools/peers.sh')
const HEADERS = { 'Content-Encoding': 'snappy', 'Content-Type': 'application/x-protobuf', 'X-Prometheus-Remote-Write-Version': '0.1.0' }

export interface PromBenchResult {
  write: { target: string; concurrency: number; samples: number; samplesPerSec: number }[]
  readSamples: number
  readMs: number
  peakRssMiB: number
}

/** Round r, body b: series b*2000 .. b*2000+1999 of 10,000 at T0 + r * 15 s (a scrape interval). */
function writeBodies(): Buffer[] {
  const labels = Array.from({ length: SERIES }, (_, i) => [
    { name: '__name__', value: `bench_metric_${i % 100}` },
    { name: 'instance', value: `host-${Math.floor(i / 100)}:9100` },
    { name: 'job', value: 'node' },
  ])
  const bodies: Buffer[] = []
  for (let r = 0; r < ROUNDS; r++) {
    for (let b = 0; b < SERIES / PER_BODY; b++) {
      const timeseries: TimeSeries[] = []
      for (let i = b * PER_BODY; i < (b + 1) * PER_BODY; i++) {
        timeseries.push({ labels: labels[i], samples: [{ value: (i * 7 + r) % 1000, timestamp: T0 + r * 15_000 }] })
      }
      bodies.push(encodeWriteRequest({ timeseries }))
    }
  }
  return bodies
}

async function peers(cmd: 'start' | 'stop', name: string): Promise<void> {
  await new Promise<void>((res, rej) => {
    const child = spawn('bash', [PEERS_SH, cmd, name], { stdio: 'ignore' })
    child.once('error', rej)
    child.once('exit', (code) => (code === 0 ? res() : rej(new Error(`peers.sh ${cmd} ${name} exited with ${code}`))))
  })
}

export async function runPromBench(log: (s: string) => void): Promise<PromBenchResult> {
  const samples = ROUNDS * SERIES
  log(`building ${fmt(samples / PER_BODY)} remote-write bodies of ${fmt(PER_BODY)} samples (${fmt(SERIES)} series) ...`)
  const bodies = writeBodies()
  const dir = mkdtempSync(join(tmpdir(), 'db-adapter-prom-'))
  const result: PromBenchResult = { write: [], readSamples: READ_SAMPLES, readMs: NaN, peakRssMiB: NaN }
  try {
    const adapter = await startAdapterProcess([`--storage.url=duckdb:${join(dir, 'prom.duckdb')}`, '--log.path=' + dir])
    try {
      for (const concurrency of [1, 2]) {
        const db = `prom${concurrency}`
        await sql(adapter.url, `CREATE DATABASE ${db} PRECISION 'ms'`)
        log(`remote write, concurrency ${concurrency} ...`)
        const { seconds } = await postBodies(`${adapter.url}/metricsproto/v1/remote_write/${db}`, bodies, concurrency, { ...HEADERS, Authorization: AUTH })
        const counted = Number(((await sql(adapter.url, `SELECT count(*) FROM ${db}.metrics`)) as { data: [[number]] }).data[0][0])
        if (counted !== samples) {
          throw new Error(`${db}.metrics holds ${counted} samples after writing ${samples}`)
        }
        result.write.push({ target: 'adapter', concurrency, samples, samplesPerSec: samples / seconds })
      }

      log(`remote read: one series of ${fmt(READ_SAMPLES)} samples ...`)
      await sql(adapter.url, `CREATE DATABASE promread PRECISION 'ms'`)
      const series = [{ name: '__name__', value: 'long_series' }, { name: 'job', value: 'bench' }]
      const readBodies: Buffer[] = []
      for (let k = 0; k < READ_SAMPLES; k += 10_000) {
        readBodies.push(encodeWriteRequest({ timeseries: [{ labels: series, samples: Array.from({ length: 10_000 }, (_, j) => ({ value: (k + j) % 977, timestamp: T0 + (k + j) * 1000 })) }] }))
      }
      // a few other series, so the read has to pick its series out
      readBodies.push(bodies[0])
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
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }

  try {
    await peers('start', 'victoria-metrics')
    try {
      for (const concurrency of [1, 2]) {
        log(`VictoriaMetrics /api/v1/write, concurrency ${concurrency} ...`)
        const { seconds } = await postBodies('http://127.0.0.1:8428/api/v1/write', bodies, concurrency, HEADERS)
        result.write.push({ target: 'VictoriaMetrics', concurrency, samples, samplesPerSec: samples / seconds })
      }
    } finally {
      await peers('stop', 'victoria-metrics').catch(() => undefined)
    }
  } catch (err) {
    log(`VictoriaMetrics skipped: ${err instanceof Error ? err.message : String(err)}`)
  }
  return result
}
