/**
 * TSBS-style line-protocol ingest (TSBS "cpu-only" shape): measurement `cpu`, 10 tags (hostname,
 * region, datacenter, rack, os, arch, team, service, service_version, service_environment),
 * 10 integer fields (usage_user .. usage_guest_nice), 4000 hosts, 10 s apart, ns timestamps,
 * batches of 5000 lines. Bodies are generated before timing; every row is counted afterwards.
 * The same bodies go to the peers in the lp-peers section.
 *
 *   BENCH=tsbs npm run bench        BENCH_TSBS_POINTS=400000 (default)
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AUTH, postBodies, sql, startAdapterProcess } from './lib.js'

const HOSTS = 4000
const BATCH = 5000
const POINTS = Number(process.env.BENCH_TSBS_POINTS ?? 400_000)
const FIELDS = ['usage_user', 'usage_system', 'usage_idle', 'usage_nice', 'usage_iowait', 'usage_irq', 'usage_softirq', 'usage_steal', 'usage_guest', 'usage_guest_nice']
const REGIONS = ['us-east-1', 'us-west-1', 'us-west-2', 'eu-west-1', 'eu-central-1', 'ap-southeast-1', 'ap-southeast-2', 'ap-northeast-1', 'sa-east-1']

export interface TsbsRun {
  concurrency: number
  points: number
  pointsPerSec: number
  valuesPerSec: number
  peakRssMiB: number
}

/** What tsbsBodies writes: `points` lines of `hosts` hosts, the first at `t0Ns`, 10 s apart per host. */
export interface TsbsShape {
  hosts: number
  points: number
  t0Ns: bigint
}

/** The bodies: `points` lines, time-major (with 4000 hosts, every batch holds all hosts of 1.25 timestamps). */
export function tsbsBodies(shape: Partial<TsbsShape> = {}): Buffer[] {
  const { hosts = HOSTS, points = POINTS, t0Ns: t0 = 1_451_606_400_000_000_000n } = shape
  const tags = Array.from({ length: hosts }, (_, h) => {
    const region = REGIONS[h % REGIONS.length]
    return `hostname=host_${h},region=${region},datacenter=${region}${'abc'[h % 3]},rack=${h % 100},os=Ubuntu${h % 2 ? '16.04' : '18.04'}LTS,arch=${h % 2 ? 'x64' : 'x86'},team=${['SF', 'NYC', 'LON', 'CHI'][h % 4]},service=${h % 20},service_version=${h % 2},service_environment=${['production', 'staging', 'test'][h % 3]}`
  })
  const bodies: Buffer[] = []
  let lines: string[] = []
  for (let n = 0; n < points; n++) {
    const h = n % hosts
    const round = Math.floor(n / hosts)
    let f = ''
    for (let k = 0; k < FIELDS.length; k++) {
      f += `${k ? ',' : ''}${FIELDS[k]}=${(h * 7 + round * 13 + k * 31) % 100}i`
    }
    lines.push(`cpu,${tags[h]} ${f} ${t0 + BigInt(round) * 10_000_000_000n}`)
    if (lines.length === BATCH) {
      bodies.push(Buffer.from(lines.join('\n')))
      lines = []
    }
  }
  if (lines.length > 0) {
    bodies.push(Buffer.from(lines.join('\n')))
  }
  return bodies
}

export async function runTsbsBench(log: (s: string) => void): Promise<TsbsRun[]> {
  log(`generating ${POINTS.toLocaleString('en-US')} TSBS cpu lines (${HOSTS} hosts, 10 tags, 10 fields) ...`)
  const bodies = tsbsBodies()
  const dir = mkdtempSync(join(tmpdir(), 'db-adapter-tsbs-'))
  const runs: TsbsRun[] = []
  try {
    const adapter = await startAdapterProcess([`--storage.url=duckdb:${join(dir, 'tsbs.duckdb')}`, '--log.path=' + dir])
    try {
      for (const concurrency of [1, 2]) {
        const db = `tsbs${concurrency}`
        await sql(adapter.url, `CREATE DATABASE ${db} PRECISION 'ns'`)
        log(`TSBS cpu, concurrency ${concurrency} ...`)
        const { seconds } = await postBodies(`${adapter.url}/lineproto/v1/write?db=${db}`, bodies, concurrency, { Authorization: AUTH })
        const counted = (await sql(adapter.url, `SELECT count(*) FROM ${db}.cpu`)) as { data: [[number]] }
        const rows = Number(counted.data[0][0])
        const hosts = ((await sql(adapter.url, `SELECT DISTINCT tbname FROM ${db}.cpu`)) as { rows: number }).rows
        if (rows !== POINTS || hosts !== Math.min(HOSTS, POINTS)) {
          throw new Error(`${db}.cpu holds ${rows} rows of ${hosts} hosts after writing ${POINTS} points`)
        }
        runs.push({ concurrency, points: POINTS, pointsPerSec: POINTS / seconds, valuesPerSec: (POINTS * FIELDS.length) / seconds, peakRssMiB: adapter.peakRssMiB() })
      }
    } finally {
      await adapter.stop()
    }
    return runs
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
