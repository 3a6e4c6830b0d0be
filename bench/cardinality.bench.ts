/**
 * Memory per super table: the adapter (a process of its own, on a DuckDB file) receives N
 * one-row measurements by line protocol; its RSS growth per super table is set beside the floor,
 * the same two physical tables per super table created and filled directly in DuckDB by a process
 * of its own (bench/raw-cardinality.ts). Figures and history: bench/README.md.
 *
 *   BENCH=card npm run bench          CARD_BENCH_STABLES=2000
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AUTH, startAdapterProcess } from './lib.js'

export interface CardinalityResult {
  stables: number
  adapterKiB: number
  rawKiB: number
}

async function adapterPerStable(dir: string, n: number): Promise<number> {
  const a = await startAdapterProcess([`--storage.url=duckdb:${join(dir, 'card.duckdb')}`, `--log.path=${dir}`, '--smlAutoCreateDB=true'])
  try {
    // a first write warms the write path up, so its one-off allocations are not counted
    const write = async (body: string): Promise<void> => {
      const res = await fetch(`${a.url}/lineproto/v1/write?db=card&precision=ms`, { method: 'POST', body, headers: { Authorization: AUTH } })
      if (res.status !== 204) {
        throw new Error(`write: HTTP ${res.status} ${await res.text()}`)
      }
    }
    await write('warm,h=a v=1 1700000000000')
    const before = a.rssMiB()
    for (let i = 0; i < n; i += 100) {
      await write(Array.from({ length: Math.min(100, n - i) }, (_, j) => `m${i + j},h=a v=1 1700000000000`).join('\n'))
    }
    return ((a.rssMiB() - before) * 1024) / n
  } finally {
    await a.stop()
  }
}

async function rawPerStable(dir: string, n: number): Promise<number> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'raw-cardinality.ts'), join(dir, 'raw.duckdb'), String(n)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  child.stdout.on('data', (b: Buffer) => (out += b.toString()))
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
  if (code !== 0) {
    throw new Error(`raw-cardinality exited with ${code}`)
  }
  return Number(JSON.parse(out).kibPerStable)
}

export async function runCardinalityBench(log: (s: string) => void): Promise<CardinalityResult> {
  const n = Number(process.env.CARD_BENCH_STABLES ?? 1000)
  const dir = mkdtempSync(join(tmpdir(), 'card-bench-'))
  try {
    log(`${n} super tables of one row each, adapter then raw DuckDB`)
    const adapterKiB = await adapterPerStable(dir, n)
    const rawKiB = await rawPerStable(dir, n)
    return { stables: n, adapterKiB, rawKiB }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
