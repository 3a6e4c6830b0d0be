/**
 * Where the memory of N one-row super tables goes, in one process of its own (the schemaless
 * core over a DuckDB file, no HTTP): RSS, V8 heap after a full GC, and DuckDB's buffers by tag
 * (`duckdb_memory()`), after the writes, after a CHECKPOINT, and (`reopen`) after opening the
 * same file again. Started as
 *   node --expose-gc --import tsx bench/card-breakdown.ts <dir> <count> <memory limit bytes, 0 = DuckDB's default> [reopen]
 * and prints one JSON object per phase. bench/cardinality.bench.ts runs it at two sizes for
 * the marginal figures.
 */
import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { openStorage } from '../src/sql/catalog/open.js'
import { createSchemaless } from '../src/ingest/schemaless/schemaless.js'
import type { Point } from '../src/ingest/point.js'

const [dir, count, limit, mode] = process.argv.slice(2)
const n = Number(count)
const memoryLimitBytes = Number(limit)
const file = join(dir, `core-${n}.duckdb`)

export interface Phase {
  phase: string
  rssKiB: number
  heapKiB: number
  /** DuckDB's buffers by tag, KiB */
  duckdb: Record<string, number>
  /** the database file and its WAL, KiB */
  fileKiB: number
}

const storage = await openStorage(`duckdb:${file}`, { rootPassword: 'taosdata', ...(memoryLimitBytes > 0 ? { memoryLimitBytes } : {}) })

async function phase(name: string): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc
  gc?.()
  gc?.()
  const duckdb: Record<string, number> = {}
  for (const [tag, bytes] of await storage.engine.query('SELECT tag, memory_usage_bytes FROM duckdb_memory() WHERE memory_usage_bytes > 0')) {
    duckdb[String(tag)] = Math.round(Number(bytes) / 1024)
  }
  const m = process.memoryUsage()
  const size = (f: string): number => (existsSync(f) ? statSync(f).size : 0)
  const fileKiB = Math.round((size(file) + size(`${file}.wal`)) / 1024)
  const p: Phase = { phase: name, rssKiB: Math.round(m.rss / 1024), heapKiB: Math.round(m.heapUsed / 1024), duckdb, fileKiB }
  process.stdout.write(`${JSON.stringify(p)}\n`)
}

if (mode === 'reopen') {
  await phase('reopen')
} else {
  const sml = createSchemaless(storage, { autoCreateDb: true, maxStablesPerDatabase: 0, maxTablesPerDatabase: 0 })
  const write = (points: Point[]): Promise<unknown> => sml.write('card', points, { user: 'root', precision: 'ms' })
  // the first write warms the write path up; the empty database is the baseline
  await write([{ measurement: 'warm', tags: [['h', 'a']], fields: [{ name: 'v', type: 'DOUBLE', value: 1 }], ts: 1700000000000n }])
  await phase('empty')
  for (let i = 0; i < n; i += 100) {
    const points: Point[] = []
    for (let j = i; j < Math.min(n, i + 100); j++) {
      points.push({ measurement: `m${j}`, tags: [['h', 'a']], fields: [{ name: 'v', type: 'DOUBLE', value: 1 }], ts: 1700000000000n })
    }
    await write(points)
  }
  await phase('written')
  await storage.engine.exec('CHECKPOINT')
  await phase('checkpointed')
}
await storage.close()
