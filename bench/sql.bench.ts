/**
 * Issue 3 figures: /rest/sql ingest and the INTERVAL aggregate, each beside the same work done
 * directly in DuckDB (the floor), and peak RSS while a 1-million-row result streams.
 *
 * Each adapter statement or query alternates with its raw counterpart (run by a process of its
 * own, bench/raw-duckdb.ts), so both sides of a ratio are measured under the same machine
 * conditions: on the shared 2-core bench VM, the raw query alone took 153 ms in one run and
 * 217 ms in another, minutes apart.
 */
import { fork } from 'node:child_process'
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openStorage } from '../src/sql/catalog/open.js'
import type { RawRequest } from './raw-duckdb.js'
import { fmt, median, sql, startAdapterProcess, timedQuery } from './lib.js'
import {
  AGG_CHILDREN,
  AGG_QUERY,
  STATE_QUERY,
  INSERT_ROWS_PER_STATEMENT,
  INSERT_TABLES,
  insertStatement,
  loadAggregateData,
  WARMUP_STATEMENTS,
} from './workload.js'

const INSERT_STATEMENTS = Number(process.env.BENCH_INSERT_STATEMENTS ?? 40)
const AGG_ROWS_PER_CHILD = Number(process.env.BENCH_AGG_ROWS_PER_CHILD ?? 100_000)
const AGG_RUNS = 7
const STATE_RUNS = 5

export interface SqlBenchResult {
  restIngestRowsPerSec: number
  rawIngestRowsPerSec: number
  aggRows: number
  restAggMs: number
  /** first byte of the aggregate's body: the backend query is done, encoding starts */
  restAggFirstByteMs: number
  rawAggMs: number
  /** STATE_WINDOW over a CASE expression, PARTITION BY tbname */
  stateRows: number
  restStateMs: number
  rawStateMs: number
  streamRows: number
  streamMs: number
  /** the 1M-row response's size */
  streamBytes: number
  /** adapter RSS right before the 1M-row query, and its peak while the result streamed */
  rssBeforeStreamMiB: number
  streamPeakRssMiB: number
  peakRssMiB: number
}


/**
 * The raw side runs in a process of its own (bench/raw-duckdb.ts): a DuckDB instance living in
 * this process, the HTTP client's, slowed the adapter's side by 10-40 ms per aggregate (the
 * adapter's tail after the first byte went from 57-64 ms to 76-87 ms), which a separate process
 * did not.
 */
interface RawDuckDB {
  ingest(k: number): Promise<number>
  aggregate(): Promise<{ ms: number; rows: number }>
  state(): Promise<{ ms: number; rows: number }>
  close(): Promise<void>
}

function startRawDuckDB(ingestDir: string, aggFile: string, schema: string): Promise<RawDuckDB> {
  const child = fork('bench/raw-duckdb.ts', [ingestDir, aggFile, schema], { execArgv: ['--import', 'tsx'] })
  const answer = <T>(): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const onExit = (code: number | null): void => reject(new Error(`raw DuckDB process exited with code ${code}`))
      child.once('exit', onExit)
      child.once('message', (m) => {
        child.off('exit', onExit)
        resolve(m as T)
      })
    })
  const call = <T>(request: RawRequest): Promise<T> => {
    const a = answer<T>()
    child.send(request)
    return a
  }
  return answer<'ready'>().then(() => ({
    ingest: (k) => call<number>({ op: 'ingest', k }),
    aggregate: () => call<{ ms: number; rows: number }>({ op: 'aggregate' }),
    state: () => call<{ ms: number; rows: number }>({ op: 'state' }),
    async close() {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.send({ op: 'close' } satisfies RawRequest)
      await exited
    },
  }))
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
    const raw = await startRawDuckDB(dir, rawFile, schema)
    const adapter = await startAdapterProcess([`--storage.url=duckdb:${file}`, '--log.path=' + dir]).catch(async (err: unknown) => {
      await raw.close()
      throw err
    })
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
      let restMs = 0
      let rawMs = 0
      for (const [k, s] of statements.entries()) {
        const started = performance.now()
        const body = await sql(adapter.url, s)
        const ms = performance.now() - started
        if (body.data[0][0] !== INSERT_ROWS_PER_STATEMENT) {
          throw new Error(`insert reported ${body.data[0][0]} rows`)
        }
        const direct = await raw.ingest(k)
        if (k >= WARMUP_STATEMENTS) {
          restMs += ms
          rawMs += direct
        }
      }
      const restIngestRowsPerSec = (INSERT_STATEMENTS * INSERT_ROWS_PER_STATEMENT) / (restMs / 1000)
      const rawIngestRowsPerSec = (INSERT_STATEMENTS * INSERT_ROWS_PER_STATEMENT) / (rawMs / 1000)

      // the INTERVAL aggregate, alternating with the raw query
      let aggRows = 0
      const times: number[] = []
      const firstBytes: number[] = []
      const rawTimes: number[] = []
      // once untimed on each side, the adapter's body parsed whole: the rows are all there
      const checked = await sql(adapter.url, AGG_QUERY)
      if (checked.data.length !== checked.rows || checked.rows === 0) {
        throw new Error(`the aggregate said rows ${checked.rows} and sent ${checked.data.length}`)
      }
      await raw.aggregate()
      for (let i = 0; i < AGG_RUNS; i++) {
        const r = await timedQuery(adapter.url, AGG_QUERY)
        times.push(r.ms)
        firstBytes.push(r.firstByteMs)
        aggRows = r.rows
        if (aggRows !== checked.rows) {
          throw new Error(`the aggregate returned ${aggRows} rows, before ${checked.rows}`)
        }
        const direct = await raw.aggregate()
        if (direct.rows !== aggRows) {
          throw new Error(`the raw aggregate returned ${direct.rows} rows, the adapter ${aggRows}`)
        }
        rawTimes.push(direct.ms)
      }
      const restAggMs = median(times)
      const restAggFirstByteMs = median(firstBytes)

      // the STATE_WINDOW query, alternating with the hand-written window-function query
      const stateChecked = await sql(adapter.url, STATE_QUERY)
      if (stateChecked.rows === 0 || stateChecked.data.length !== stateChecked.rows) {
        throw new Error(`the state windows said rows ${stateChecked.rows} and sent ${stateChecked.data.length}`)
      }
      const stateTimes: number[] = []
      const rawStateTimes: number[] = []
      for (let i = 0; i < STATE_RUNS; i++) {
        const r = await timedQuery(adapter.url, STATE_QUERY)
        const direct = await raw.state()
        if (r.rows !== stateChecked.rows || direct.rows !== r.rows) {
          throw new Error(`state windows: adapter ${r.rows} rows (first run ${stateChecked.rows}), raw DuckDB ${direct.rows}`)
        }
        stateTimes.push(r.ms)
        rawStateTimes.push(direct.ms)
      }

      // a 1-million-row result, streamed: the adapter's RSS before it and its peak during it
      // (VmHWM restarted) show what the result itself costs in memory, next to its size
      const peakBeforeStreamMiB = adapter.peakRssMiB()
      const rssBeforeStreamMiB = adapter.rssMiB()
      adapter.resetPeakRss()
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
      const streamPeakRssMiB = adapter.peakRssMiB()
      const peakRssMiB = Math.max(peakBeforeStreamMiB, streamPeakRssMiB)
      result = {
        restIngestRowsPerSec,
        rawIngestRowsPerSec,
        aggRows,
        restAggMs,
        restAggFirstByteMs,
        rawAggMs: median(rawTimes),
        stateRows: stateChecked.rows,
        restStateMs: median(stateTimes),
        rawStateMs: median(rawStateTimes),
        streamRows: 1_000_000,
        streamMs,
        streamBytes: bytes,
        rssBeforeStreamMiB,
        streamPeakRssMiB,
        peakRssMiB,
      }
    } finally {
      await adapter.stop()
      await raw.close()
    }
    return result
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
