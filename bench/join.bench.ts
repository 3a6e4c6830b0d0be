/**
 * Issue 35: a JOIN on the primary timestamp over 1M + 1M rows through /rest/sql, beside the same
 * join run directly in DuckDB on a copy of the adapter's file (the floor). Half of b's timestamps
 * match a's. Runs alternate adapter / raw so both sides see the same machine conditions.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DuckDBInstance } from '@duckdb/node-api'
import { openStorage } from '../src/sql/catalog/open.js'
import { median, sql, startAdapterProcess, timedQuery } from './lib.js'
import { T0 } from './workload.js'

const ROWS = Number(process.env.BENCH_JOIN_ROWS ?? 1_000_000)
const RUNS = 5
const CHUNK = 100_000
const QUERY = 'SELECT count(*), avg(a.c - b.c) FROM jb.a a JOIN jb.b b ON a.ts = b.ts'

export interface JoinBenchResult {
  rows: number
  matches: number
  restMs: number
  rawMs: number
}

async function load(url: string): Promise<{ schema: string; tids: [number, number] }> {
  const storage = await openStorage(url, { rootPassword: 'taosdata' })
  try {
    await storage.catalog.createDatabase('jb', { precision: 'ms' }, true)
    const columns = [
      { name: 'ts', type: 'TIMESTAMP' as const, length: 8 },
      { name: 'c', type: 'DOUBLE' as const, length: 8 },
    ]
    await storage.catalog.createStable('jb', 'st', columns, [{ name: 'g', type: 'INT', length: 4 }], true)
    const tids: number[] = []
    for (const [k, name] of ['a', 'b'].entries()) {
      const child = await storage.catalog.createChildTable('jb', name, 'st', { g: k }, true)
      tids.push(child.tid)
      for (let from = 0; from < ROWS; from += CHUNK) {
        const n = Math.min(CHUNK, ROWS - from)
        const rows: unknown[][] = new Array(n)
        for (let i = 0; i < n; i++) {
          const r = from + i
          // b: every other row half a second later, so half the rows match
          const ts = T0 + r * 1000 + (k === 1 && r % 2 === 1 ? 500 : 0)
          rows[i] = [BigInt(ts), (r % 1000) / 10 + k]
        }
        await storage.engine.writeRows([{ db: 'jb', table: 'st', tid: child.tid, columns: ['ts', 'c'], rows }])
      }
    }
    return { schema: storage.engine.dialect.schemaName('jb'), tids: [tids[0], tids[1]] }
  } finally {
    await storage.close()
  }
}

export async function runJoinBench(log: (s: string) => void): Promise<JoinBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'db-adapter-join-bench-'))
  try {
    const file = join(dir, 'adapter.duckdb')
    log(`loading 2 x ${ROWS} rows ...`)
    const { schema, tids } = await load(`duckdb:${file}`)
    const rawFile = join(dir, 'raw.duckdb')
    copyFileSync(file, rawFile)
    const rawDb = await DuckDBInstance.create(rawFile, { access_mode: 'READ_ONLY' })
    const raw = await rawDb.connect()
    const rawQuery =
      `SELECT count(*), avg(a.c - b.c) FROM (SELECT ts, c FROM "${schema}"."st" WHERE _tid = ${tids[0]}) a ` +
      `JOIN (SELECT ts, c FROM "${schema}"."st" WHERE _tid = ${tids[1]}) b ON a.ts = b.ts`
    const adapter = await startAdapterProcess([`--storage.url=duckdb:${file}`, '--log.path=' + dir])
    try {
      const checked = await sql(adapter.url, QUERY)
      const matches = Number(checked.data[0][0])
      if (matches !== Math.ceil(ROWS / 2)) {
        throw new Error(`the join matched ${matches} rows, expected ${Math.ceil(ROWS / 2)}`)
      }
      const rawCheck = await raw.runAndReadAll(rawQuery)
      if (Number(rawCheck.getRows()[0][0]) !== matches) {
        throw new Error('the raw join disagrees with the adapter')
      }
      const rest: number[] = []
      const direct: number[] = []
      for (let i = 0; i < RUNS; i++) {
        rest.push((await timedQuery(adapter.url, QUERY)).ms)
        const t0 = performance.now()
        await raw.runAndReadAll(rawQuery)
        direct.push(performance.now() - t0)
      }
      return { rows: ROWS, matches, restMs: median(rest), rawMs: median(direct) }
    } finally {
      await adapter.stop()
      raw.closeSync()
      rawDb.closeSync()
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
