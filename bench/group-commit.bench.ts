/**
 * Group commit in the DuckDB engine (BENCH=group): concurrent appendColumns calls of 2,000 rows
 * into a file database, this checkout's engine and, with BENCH_PAIRED_B_DIR, another checkout's,
 * run for run alternating (each run its own process and file); rows/s, CPU s per million rows
 * and calls per commit, medians. BENCH_GROUP_BODIES (default 400) calls a run, BENCH_GROUP_RUNS (5).
 */
import { execFileSync } from 'node:child_process'
import { resolve } from 'node:path'
import { median } from './lib.js'

interface Run {
  rowsPerSec: number
  cpuPerMillion: number
  stored: number
  callsPerGroup: number
}

export interface GroupBenchRow {
  build: string
  concurrency: number
  runs: Run[]
}

export function runGroupCommitBench(log: (s: string) => void): GroupBenchRow[] {
  const bodies = Number(process.env.BENCH_GROUP_BODIES ?? 400)
  const runs = Number(process.env.BENCH_GROUP_RUNS ?? 5)
  const builds = [{ build: 'this', root: resolve('.') }]
  if (process.env.BENCH_PAIRED_B_DIR !== undefined) {
    builds.push({ build: `B (${process.env.BENCH_PAIRED_B_DIR})`, root: resolve(process.env.BENCH_PAIRED_B_DIR) })
  }
  const rows: GroupBenchRow[] = []
  for (const concurrency of [1, 2, 4]) {
    const mine = builds.map((b) => ({ build: b.build, concurrency, runs: [] as Run[] }))
    rows.push(...mine)
    for (let r = 0; r < runs; r++) {
      builds.forEach((b, i) => {
        const out = execFileSync(process.execPath, ['--import', 'tsx', resolve('bench/group-commit-run.ts'), b.root, String(concurrency), String(bodies)], { encoding: 'utf8' })
        const run = JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as Run
        if (run.stored !== bodies * 2_000) {
          throw new Error(`${b.build}: ${run.stored} rows stored of ${bodies * 2_000}`)
        }
        mine[i].runs.push(run)
      })
      log(`  concurrency ${concurrency}, run ${r + 1} of ${runs}: ${mine.map((m) => `${m.build} ${Math.round(m.runs[r].rowsPerSec)} rows/s`).join(', ')}`)
    }
  }
  return rows
}

export function groupTable(rows: GroupBenchRow[]): Record<string, Record<string, string>> {
  const fmt = (n: number, d = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d })
  return Object.fromEntries(
    rows.map((r) => [
      `${r.build}, concurrency ${r.concurrency}`,
      {
        'median rows/s': fmt(median(r.runs.map((x) => x.rowsPerSec))),
        'CPU s per 1M rows': fmt(median(r.runs.map((x) => x.cpuPerMillion)), 2),
        'calls per commit': fmt(median(r.runs.map((x) => x.callsPerGroup)), 1),
      },
    ]),
  )
}
