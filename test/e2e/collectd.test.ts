/**
 * End-to-end with a real collectd (Debian's collectd-core 5.12, installed by
 * test/lib/debian-package.ts when it can be, else skipped; .ci/run requires it): collectd reads cpu, memory and load every second and sends them with
 * its network plugin to the adapter's collectd receiver, and writes the same values with its csv
 * plugin. Every value in collectd's CSV files must be in the adapter, at the same time (CSV keeps
 * milliseconds), and nothing else. Uses startIngestServer, so test/integration re-runs it on
 * PostgreSQL unchanged.
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningAdapter } from '../../src/lifecycle.js'
import { sqlRows, startIngestServer } from '../ingest/server.js'
import { file, needDebianPackages } from '../lib/debian-package.js'
import { collectdConfHead } from '../lib/collectd-conf.js'

const COLLECTD = '/usr/sbin/collectd'
const HOST = 'e2e-collectd'
const RUN_SECONDS = Number(process.env.COLLECTD_E2E_SECONDS ?? 6)

const need = needDebianPackages('real collectd end-to-end', [{ pkg: 'collectd-core', present: file(COLLECTD) }])
const dir = mkdtempSync(join(tmpdir(), 'collectd-e2e-'))
let adapter: RunningAdapter
let collectdLog = ''

beforeAll(async () => {
  if (need.skip) {
    return
  }
  adapter = await startIngestServer((c) => {
    c.collagent.enable = true
    c.collagent.port = 0
  })
  const conf = join(dir, 'collectd.conf')
  writeFileSync(
    conf,
    `${collectdConfHead(dir, HOST)}LoadPlugin cpu
LoadPlugin memory
LoadPlugin load
LoadPlugin csv
<Plugin csv>
  DataDir "${dir}/csv"
  StoreRates false
</Plugin>
LoadPlugin network
<Plugin network>
  Server "127.0.0.1" "${adapter.receivers[0].port}"
</Plugin>
`,
  )
  const check = spawnSync(COLLECTD, ['-t', '-C', conf], { encoding: 'utf8' })
  if (check.status !== 0) {
    throw new Error(`collectd -t rejected the configuration: ${check.stdout}${check.stderr}`)
  }
  const child = spawn(COLLECTD, ['-f', '-C', conf], { stdio: ['ignore', 'pipe', 'pipe'] })
  child.stdout.on('data', (d: Buffer) => (collectdLog += d.toString()))
  child.stderr.on('data', (d: Buffer) => (collectdLog += d.toString()))
  await new Promise((r) => setTimeout(r, RUN_SECONDS * 1000))
  // on SIGTERM collectd flushes the network plugin's last, partly filled packet
  child.kill('SIGTERM')
  await new Promise((r) => child.once('exit', r))
}, 60_000)

afterAll(async () => {
  await adapter?.stop()
  rmSync(dir, { recursive: true, force: true })
})

/** collectd's CSV rows of one file pattern as `epoch-ms value` strings. */
function csvRows(sub: string, prefix: string): string[] {
  const folder = join(dir, 'csv', HOST, sub)
  const out: string[] = []
  for (const f of readdirSync(folder).filter((n) => n.startsWith(prefix))) {
    for (const line of readFileSync(join(folder, f), 'utf8').trim().split('\n').slice(1)) {
      const [epoch, ...values] = line.split(',')
      out.push(`${epoch.replace('.', '')} ${values.map((v) => Number(v)).join(' ')}`)
    }
  }
  return out.sort()
}

/**
 * The adapter's rows of a super table and tag filter as `epoch-ms value`, rounded as collectd's
 * CSV writer prints them: times to milliseconds, values with six decimals (%f, glibc's rounding).
 */
async function adapterRows(table: string, where: string): Promise<string[]> {
  const rows = await sqlRows(adapter.url, `select cast(_ts as bigint), \`value\` from collagent.${table} where host = '${HOST}' and ${where}`)
  return rows.map(([ns, v]) => `${(BigInt(ns as number | string) + 500_000n) / 1_000_000n} ${printfSixDecimals(Number(v))}`).sort()
}

/**
 * `%f` (six decimals) as glibc prints a double: an exact tie rounds to even, where JS toFixed
 * rounds away from zero (collectd's load 1.1328125 is "1.132812" in its CSV, "1.132813" by
 * toFixed). toFixed(30) shows the exact expansion far enough to tell a tie from a near one.
 */
function printfSixDecimals(v: number): number {
  const exact = v.toFixed(30)
  const dot = exact.indexOf('.')
  if (/^50*$/.test(exact.slice(dot + 7)) && Number(exact[dot + 6]) % 2 === 0) {
    return Number(exact.slice(0, dot + 7))
  }
  return Number(v.toFixed(6))
}

/**
 * The same points, times within a millisecond: collectd prints a time as the double nearest its
 * 2^-30 s count, which near a half millisecond can round the other way than the exact
 * nanoseconds the adapter stores.
 */
function expectSamePoints(adapter: string[], csv: string[], what: string): void {
  const parse = (rows: string[]) => rows.map((r) => r.split(' ').map(Number))
  const a = parse(adapter)
  const c = parse(csv)
  expect(a.length, `${what}: ${adapter.join(', ')} vs ${csv.join(', ')}`).toBe(c.length)
  for (let i = 0; i < a.length; i++) {
    expect(Math.abs(a[i][0] - c[i][0]), `${what} row ${i}: ${adapter[i]} vs ${csv[i]}`).toBeLessThanOrEqual(1)
    expect(a[i][1], `${what} row ${i}: ${adapter[i]} vs ${csv[i]}`).toBe(c[i][1])
  }
}

/**
 * Waits (bounded) until the adapter holds as many rows as collectd's CSV for this table, then
 * compares them: the network plugin's packets are written shortly after collectd's CSV lines, so
 * each series, not only the first one checked, may still be in flight.
 */
async function expectStored(table: string, where: string, csv: string[], what: string): Promise<void> {
  await expect.poll(async () => (await adapterRows(table, where)).length, { timeout: 10_000, message: what }).toBeGreaterThanOrEqual(csv.length)
  expectSamePoints(await adapterRows(table, where), csv, what)
}

describe.skipIf(need.skip)('real collectd -> collectd receiver', () => {
  it('stores every value collectd reports, with the time collectd gave it', async () => {
    const memoryUsed = csvRows('memory', 'memory-used-')
    expect(memoryUsed.length, collectdLog).toBeGreaterThanOrEqual(RUN_SECONDS - 2)
    await expectStored('memory_value', "type_instance = 'used'", memoryUsed, 'memory used')
    await expectStored('cpu_value', "instance = '0' and type_instance = 'user'", csvRows('cpu-0', 'cpu-user-'), 'cpu-0 user')
    // load has three data sources: load_0, load_1, load_2 carry shortterm, midterm, longterm
    const load = csvRows('load', 'load-').map((r) => r.split(' '))
    for (const [i, table] of ['load_0', 'load_1', 'load_2'].entries()) {
      const csv = load.map((f) => `${f[0]} ${Number(f[1 + i])}`).sort()
      await expectStored(table, '1 = 1', csv, table)
    }
  })
})
