/**
 * Issue 3 figures: /rest/sql ingest and the INTERVAL aggregate, each beside the same work done
 * directly in DuckDB (the floor), and peak RSS while a 1-million-row result streams.
 *
 * Each adapter statement or query alternates with its raw counterpart, so both sides of a ratio
 * are measured under the same machine conditions: on the shared 2-core bench VM, the raw query
 * alone took 153 ms in one run and 217 ms in another, minutes apart.
 */
import { DuckDBInstance } from '@duckdb/node-api'
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openStorage } from '../src/storage/index.js'
import { fmt, median, sql, startAdapterProcess, timedQuery } from './lib.js'
import {
  AGG_CHILDREN,
  AGG_QUERY,
  AGG_WHERE_FROM,
  INSERT_ROWS_PER_STATEMENT,
  INSERT_TABLES,
  T0,
  insertStatement,
  loadAggregateData,
  WARMUP_STATEMENTS,
} from './workload.js'

const INSERT_STATEMENTS = Number(process.env.BENCH_INSERT_STATEMENTS ?? 40)
const AGG_ROWS_PER_CHILD = Number(process.env.BENCH_AGG_ROWS_PER_CHILD ?? 100_000)
const AGG_RUNS = 7

export interface SqlBenchResult {
  restIngestRowsPerSec: number
  rawIngestRowsPerSec: number
  aggRows: number
  restAggMs: number
  /** first byte of the aggregate's body: the backend query is done, encoding starts */
  restAggFirstByteMs: number
  rawAggMs: number
  streamRows: number
  streamMs: number
  peakRssMiB: number
}


/** The same rows appended directly to DuckDB, one appender per statement, in the adapter's layout for bench.w. */
async function openRawIngest(dir: string): Promise<{ statement(k: number): Promise<number>; close(): void }> {
  const db = await DuckDBInstance.create(join(dir, 'raw.duckdb'))
  const con = await db.connect()
  // the adapter's own DuckDB layout for bench.w (no index: see the dialect's dataTableKey)
  await con.run('CREATE TABLE w (_tid INTEGER NOT NULL, ts BIGINT NOT NULL, c DOUBLE, i INTEGER)')
  const perTable = INSERT_ROWS_PER_STATEMENT / INSERT_TABLES
  return {
    /** appends statement k's rows and commits; resolves with the milliseconds it took */
    async statement(k) {
      const started = performance.now()
      const appender = await con.createAppender('w')
      for (let t = 0; t < INSERT_TABLES; t++) {
        for (let r = 0; r < perTable; r++) {
          appender.appendInteger(t + 1)
          appender.appendBigInt(BigInt(T0 + k * perTable + r))
          appender.appendDouble((r % 1000) / 10)
          appender.appendInteger(r)
          appender.endRow()
        }
      }
      appender.closeSync()
      return performance.now() - started
    },
    close() {
      con.closeSync()
      db.closeSync()
    },
  }
}

/**
 * The aggregate run directly in DuckDB, on a copy of the adapter's file (the adapter holds the
 * original open): the same tables, the same data, the same layout.
 */
async function openRawAggregate(file: string, schema: string): Promise<{ run(): Promise<{ ms: number; rows: number }>; close(): void }> {
  const db = await DuckDBInstance.create(file, { access_mode: 'READ_ONLY' })
  const con = await db.connect()
  const q = `SELECT t.tbname, d.ts - (d.ts % 60000) AS w, avg(d.c)
    FROM "${schema}"."st" d JOIN "${schema}"."st$tags" t ON d._tid = t._tid
    WHERE d.ts >= ${AGG_WHERE_FROM} GROUP BY t.tbname, w ORDER BY t.tbname, w`
  return {
    async run() {
      const started = performance.now()
      const reader = await con.runAndReadAll(q)
      return { ms: performance.now() - started, rows: reader.currentRowCount }
    },
    close() {
      con.closeSync()
      db.closeSync()
    },
  }
}

export async function runSqlBench(log: (s: string) => void): Promise<SqlBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'db-adapter-bench-'))
  try {
    const file = join(dir, 'adapter.duckdb')
    log(`loading ${fmt(AGG_CHILDREN * AGG_ROWS_PER_CHILD)} rows for the aggregate ...`)
    await loadAggregateData(`duckdb:${file}`, AGG_ROWS_PER_CHILD)
    const schemaProbe = await openStorage(`duckdb:${file}`, { rootPassword: 'taosdata' })
    const schema = schemaProbe.engine.dialect.schemaName('agg')
    await schemaProbe.close()
    const rawFile = join(dir, 'raw-agg.duckdb')
    copyFileSync(file, rawFile)
    const raw = await openRawAggregate(rawFile, schema)

    const adapter = await startAdapterProcess([`--storage.url=duckdb:${file}`, '--log.path=' + dir])
    let result: SqlBenchResult
    try {
      // ingest through /rest/sql
      await sql(adapter.url, 'CREATE DATABASE IF NOT EXISTS bench PRECISION "ms"')
      await sql(adapter.url, 'CREATE STABLE bench.w (ts TIMESTAMP, c DOUBLE, i INT) TAGS (t INT)')
      for (let t = 0; t < INSERT_TABLES; t++) {
        await sql(adapter.url, `CREATE TABLE bench.w${t} USING bench.w TAGS (${t})`)
      }
      const statements = Array.from({ length: WARMUP_STATEMENTS + INSERT_STATEMENTS }, (_, k) => insertStatement(k))
      // statement by statement, alternating with the raw appends
      const rawIngest = await openRawIngest(dir)
      let restMs = 0
      let rawMs = 0
      for (const [k, s] of statements.entries()) {
        const started = performance.now()
        const body = await sql(adapter.url, s)
        const ms = performance.now() - started
        if (body.data[0][0] !== INSERT_ROWS_PER_STATEMENT) {
          throw new Error(`insert reported ${body.data[0][0]} rows`)
        }
        const direct = await rawIngest.statement(k)
        if (k >= WARMUP_STATEMENTS) {
          restMs += ms
          rawMs += direct
        }
      }
      rawIngest.close()
      const restIngestRowsPerSec = (INSERT_STATEMENTS * INSERT_ROWS_PER_STATEMENT) / (restMs / 1000)
      const rawIngestRowsPerSec = (INSERT_STATEMENTS * INSERT_ROWS_PER_STATEMENT) / (rawMs / 1000)

      // the INTERVAL aggregate, alternating with the raw query
      let aggRows = 0
      const times: number[] = []
      const firstBytes: number[] = []
      const rawTimes: number[] = []
      for (let i = 0; i < AGG_RUNS; i++) {
        const r = await timedQuery(adapter.url, AGG_QUERY)
        times.push(r.ms)
        firstBytes.push(r.firstByteMs)
        aggRows = r.body.rows
        const direct = await raw.run()
        if (direct.rows !== aggRows) {
          throw new Error(`the raw aggregate returned ${direct.rows} rows, the adapter ${aggRows}`)
        }
        rawTimes.push(direct.ms)
      }
      raw.close()
      const restAggMs = median(times)
      const restAggFirstByteMs = median(firstBytes)

      // a 1-million-row result, streamed
      const t1 = performance.now()
      const res = await fetch(`${adapter.url}/rest/sql`, {
        method: 'POST',
        headers: { Authorization: 'Basic ' + Buffer.from('root:taosdata').toString('base64') },
        body: 'SELECT ts, c, tbname FROM agg.st LIMIT 1000000',
      })
      let bytes = 0
      for await (const chunk of res.body!) {
        bytes += (chunk as Uint8Array).byteLength
      }
      const streamMs = performance.now() - t1
      if (bytes < 1_000_000 * 20) {
        throw new Error(`1M-row result was only ${bytes} bytes`)
      }
      const peakRssMiB = adapter.peakRssMiB()
      result = {
        restIngestRowsPerSec,
        rawIngestRowsPerSec,
        aggRows,
        restAggMs,
        restAggFirstByteMs,
        rawAggMs: median(rawTimes),
        streamRows: 1_000_000,
        streamMs,
        peakRssMiB,
      }
    } finally {
      await adapter.stop()
    }
    return result
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
