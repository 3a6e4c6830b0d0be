/**
 * Memory per super table, marginal: N and 5N one-row measurements (separate processes, each on a
 * DuckDB file of its own under one memory_limit); the figures are the growth from N to 5N divided
 * by 4N, so start-up and the first (cached) blocks cancel out.
 *  - the adapter: a process of its own receiving the measurements by HTTP line protocol;
 *  - the schemaless core in a process of its own (bench/card-breakdown.ts): RSS after the writes,
 *    after a CHECKPOINT (steady state) and after opening the file again (a restart), the V8 heap
 *    after a full GC, and DuckDB's buffers by tag (`duckdb_memory()`);
 *  - the floor (bench/raw-cardinality.ts): the same two physical tables made directly in DuckDB,
 *    one table alone, and two views over shared tables (the layout of super tables of one shape).
 * Figures and history: bench/README.md.
 *
 *   BENCH=card npm run bench          CARD_BENCH_STABLES=2000 (N; default 1000)
 *                                     CARD_BENCH_MEMORY_LIMIT=128MB (DuckDB memory_limit; 0 = DuckDB's default, 80% of RAM)
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AUTH, startAdapterProcess } from './lib.js'
import type { Phase } from './card-breakdown.js'

/** marginal KiB per super table between the two sizes */
export interface CardinalityResult {
  stables: [number, number]
  memoryLimit: string
  adapterRss: number
  core: { written: number; checkpointed: number; reopened: number; heap: number; fileKiB: number; duckdb: Record<string, number>; duckdbReopened: Record<string, number> }
  raw: { pair: number; single: number; views: number }
}

const SIZE_UNITS: Record<string, number> = { '': 1, KB: 1e3, MB: 1e6, GB: 1e9, KIB: 1024, MIB: 1024 ** 2, GIB: 1024 ** 3 }

function bytesOf(size: string): number {
  const m = /^(\d+)\s*([a-z]*)$/i.exec(size.trim())
  const unit = SIZE_UNITS[(m?.[2] ?? '').toUpperCase()]
  if (!m || unit === undefined) {
    throw new Error(`CARD_BENCH_MEMORY_LIMIT: not a size: ${size}`)
  }
  return Number(m[1]) * unit
}

async function adapterRssKiB(dir: string, n: number, limit: string): Promise<number> {
  const a = await startAdapterProcess([`--storage.url=duckdb:${join(dir, `card-${n}.duckdb`)}`, `--log.path=${dir}`, '--smlAutoCreateDB=true', `--storage.memoryLimit=${limit === '0' ? '0' : limit}`, '--schemaless.maxStablesPerDatabase=0'])
  try {
    const write = async (body: string): Promise<void> => {
      const res = await fetch(`${a.url}/lineproto/v1/write?db=card&precision=ms`, { method: 'POST', body, headers: { Authorization: AUTH } })
      if (res.status !== 204) {
        throw new Error(`write: HTTP ${res.status} ${await res.text()}`)
      }
    }
    for (let i = 0; i < n; i += 100) {
      await write(Array.from({ length: Math.min(100, n - i) }, (_, j) => `m${i + j},h=a v=1 1700000000000`).join('\n'))
    }
    return a.rssMiB() * 1024
  } finally {
    await a.stop()
  }
}

async function child(args: string[], nodeArgs: string[] = []): Promise<string> {
  const p = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  p.stdout.on('data', (b: Buffer) => (out += b.toString()))
  const code = await new Promise<number | null>((resolve) => p.on('exit', resolve))
  if (code !== 0) {
    throw new Error(`${args[0]} exited with ${code}`)
  }
  return out
}

async function corePhases(dir: string, n: number, limitBytes: number): Promise<Map<string, Phase>> {
  const script = join(import.meta.dirname, 'card-breakdown.ts')
  const out = await child([script, dir, String(n), String(limitBytes)], ['--expose-gc'])
  const reopened = await child([script, dir, String(n), String(limitBytes), 'reopen'], ['--expose-gc'])
  const phases = new Map<string, Phase>()
  for (const line of `${out}\n${reopened}`.split('\n').filter((l) => l.trim() !== '')) {
    const p = JSON.parse(line) as Phase
    phases.set(p.phase, p)
  }
  return phases
}

async function rawRssKiB(dir: string, n: number, mode: 'pair' | 'single' | 'views', limit: string): Promise<number> {
  const file = join(dir, `raw-${mode}-${n}.duckdb`)
  return Number(JSON.parse(await child([join(import.meta.dirname, 'raw-cardinality.ts'), file, String(n), mode, limit])).rssKiB)
}

export async function runCardinalityBench(log: (s: string) => void): Promise<CardinalityResult> {
  const n = Number(process.env.CARD_BENCH_STABLES ?? 1000)
  const sizes: [number, number] = [n, 5 * n]
  const memoryLimit = process.env.CARD_BENCH_MEMORY_LIMIT ?? '128MB'
  const limitBytes = memoryLimit === '0' ? 0 : bytesOf(memoryLimit)
  const dir = mkdtempSync(join(tmpdir(), 'card-bench-'))
  const per = (a: number, b: number): number => (b - a) / (sizes[1] - sizes[0])
  try {
    log(`${sizes[0]} and ${sizes[1]} super tables of one row each, memory_limit ${memoryLimit}: adapter, core, raw DuckDB`)
    const adapter = [await adapterRssKiB(dir, sizes[0], memoryLimit), await adapterRssKiB(dir, sizes[1], memoryLimit)]
    const core = [await corePhases(dir, sizes[0], limitBytes), await corePhases(dir, sizes[1], limitBytes)]
    const phase = (name: string, what: (p: Phase) => number): number => per(what(core[0].get(name)!), what(core[1].get(name)!))
    const tags = (name: string): Record<string, number> => {
      const out: Record<string, number> = {}
      for (const tag of new Set([...Object.keys(core[0].get(name)!.duckdb), ...Object.keys(core[1].get(name)!.duckdb)])) {
        out[tag] = phase(name, (p) => p.duckdb[tag] ?? 0)
      }
      return out
    }
    const raw = { pair: [0, 0], single: [0, 0], views: [0, 0] }
    for (const mode of ['pair', 'single', 'views'] as const) {
      for (const i of [0, 1]) {
        raw[mode][i] = await rawRssKiB(dir, sizes[i], mode, memoryLimit)
      }
    }
    return {
      stables: sizes,
      memoryLimit,
      adapterRss: per(adapter[0], adapter[1]),
      core: {
        written: phase('written', (p) => p.rssKiB),
        checkpointed: phase('checkpointed', (p) => p.rssKiB),
        reopened: phase('reopen', (p) => p.rssKiB),
        heap: phase('checkpointed', (p) => p.heapKiB),
        fileKiB: phase('checkpointed', (p) => p.fileKiB),
        duckdb: tags('checkpointed'),
        duckdbReopened: tags('reopen'),
      },
      raw: { pair: per(raw.pair[0], raw.pair[1]), single: per(raw.single[0], raw.single[1]), views: per(raw.views[0], raw.views[1]) },
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
