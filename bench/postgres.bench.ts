/**
 * Issue 4 figures, PostgreSQL column: /rest/sql ingest (10,000-row INSERT statements) beside raw
 * COPY into the same table (the floor; target >= 50%), and the INTERVAL aggregate through the
 * adapter beside the same query run directly in PostgreSQL.
 *
 * PostgreSQL comes from BENCH_PG_URL when set (an empty database), else a Testcontainers
 * container (`source test/integration/docker-env.sh` first where there is no registry).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import pg from 'pg'
import { from as copyFrom } from 'pg-copy-streams'
import { postgresDialect } from '../src/storage/postgres/dialect.js'
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

const INSERT_STATEMENTS = Number(process.env.BENCH_PG_INSERT_STATEMENTS ?? 20)
const AGG_ROWS_PER_CHILD = Number(process.env.BENCH_PG_AGG_ROWS_PER_CHILD ?? 10_000)

export interface PgBenchResult {
  restIngestRowsPerSec: number
  rawCopyRowsPerSec: number
  aggRows: number
  restAggMs: number
  /** first byte of the aggregate's body: the backend query is done, encoding starts */
  restAggFirstByteMs: number
  rawAggMs: number
}


/**
 * The floor: the same rows, 10,000 per COPY (one transaction each), straight into the adapter's
 * own physical table `td_bench.w` (same key and indexes), at timestamps the adapter did not use.
 */
async function rawCopy(url: string, tids: number[]): Promise<number> {
  const c = new pg.Client({ connectionString: url })
  await c.connect()
  try {
    const perTable = INSERT_ROWS_PER_STATEMENT / INSERT_TABLES
    const offset = (WARMUP_STATEMENTS + INSERT_STATEMENTS) * perTable + 1_000_000
    let started = performance.now()
    for (let k = 0; k < WARMUP_STATEMENTS + INSERT_STATEMENTS; k++) {
      if (k === WARMUP_STATEMENTS) {
        started = performance.now()
      }
      const lines: string[] = []
      for (let t = 0; t < INSERT_TABLES; t++) {
        for (let r = 0; r < perTable; r++) {
          lines.push(`${tids[t]}\t${T0 + offset + k * perTable + r}\t${(r % 1000) / 10}\t${r}\n`)
        }
      }
      await pipeline(Readable.from([lines.join('')]), c.query(copyFrom('COPY td_bench.w (_tid, ts, c, i) FROM STDIN')))
    }
    return (INSERT_STATEMENTS * INSERT_ROWS_PER_STATEMENT) / ((performance.now() - started) / 1000)
  } finally {
    await c.end()
  }
}


/** The same aggregate written by hand for PostgreSQL: per table, 1-minute buckets, avg. */
async function rawAggregate(url: string): Promise<number> {
  const c = new pg.Client({ connectionString: url })
  await c.connect()
  const schema = postgresDialect.schemaName('agg')
  const q = `SELECT t.tbname, d.ts - (d.ts % 60000) AS w, avg(d.c)
    FROM "${schema}"."st" d JOIN "${schema}"."st$tags" t ON d._tid = t._tid
    WHERE d.ts >= ${AGG_WHERE_FROM} GROUP BY t.tbname, w ORDER BY t.tbname, w`
  try {
    const times: number[] = []
    for (let i = 0; i < 5; i++) {
      const started = performance.now()
      const r = await c.query(q)
      if (r.rowCount === 0) {
        throw new Error('raw aggregate returned no rows')
      }
      times.push(performance.now() - started)
    }
    return median(times)
  } finally {
    await c.end()
  }
}

async function withPostgres<T>(log: (s: string) => void, fn: (url: string) => Promise<T>): Promise<T> {
  if (process.env.BENCH_PG_URL) {
    return fn(process.env.BENCH_PG_URL)
  }
  // the integration suite's container helper (image from DB_ADAPTER_TEST_PG_IMAGE)
  const { startPostgres } = await import('../test/integration/pg-container.js')
  log('starting PostgreSQL with Testcontainers ...')
  const pgc = await startPostgres()
  try {
    return await fn(pgc.url)
  } finally {
    await pgc.stop()
  }
}

export async function runPgBench(log: (s: string) => void): Promise<PgBenchResult> {
  return withPostgres(log, async (url) => {
    const dir = mkdtempSync(join(tmpdir(), 'db-adapter-pgbench-'))
    try {
      log(`loading ${fmt(AGG_CHILDREN * AGG_ROWS_PER_CHILD)} rows for the aggregate ...`)
      await loadAggregateData(url, AGG_ROWS_PER_CHILD)
      const adapter = await startAdapterProcess([`--storage.url=${url}`, `--log.path=${dir}`])
      let restIngestRowsPerSec: number
      let restAggMs: number
      let restAggFirstByteMs: number
      let aggRows = 0
      try {
        await sql(adapter.url, 'CREATE DATABASE IF NOT EXISTS bench PRECISION "ms"')
        await sql(adapter.url, 'CREATE STABLE bench.w (ts TIMESTAMP, c DOUBLE, i INT) TAGS (t INT)')
        for (let t = 0; t < INSERT_TABLES; t++) {
          await sql(adapter.url, `CREATE TABLE bench.w${t} USING bench.w TAGS (${t})`)
        }
        const statements = Array.from({ length: WARMUP_STATEMENTS + INSERT_STATEMENTS }, (_, k) => insertStatement(k))
        let started = performance.now()
        for (const [k, s] of statements.entries()) {
          if (k === WARMUP_STATEMENTS) {
            started = performance.now()
          }
          const body = await sql(adapter.url, s)
          if (body.data[0][0] !== INSERT_ROWS_PER_STATEMENT) {
            throw new Error(`insert reported ${body.data[0][0]} rows`)
          }
        }
        restIngestRowsPerSec = (INSERT_STATEMENTS * INSERT_ROWS_PER_STATEMENT) / ((performance.now() - started) / 1000)

        const times: number[] = []
        const firstBytes: number[] = []
        for (let i = 0; i < 5; i++) {
          const r = await timedQuery(adapter.url, AGG_QUERY)
          times.push(r.ms)
          firstBytes.push(r.firstByteMs)
          aggRows = r.rows
        }
        restAggMs = median(times)
        restAggFirstByteMs = median(firstBytes)
      } finally {
        await adapter.stop()
      }
      // the children's tids, read from the catalog the adapter wrote
      const c = new pg.Client({ connectionString: url })
      await c.connect()
      let tids: number[]
      try {
        const r = await c.query<{ tid: number }>(
          `SELECT tid FROM db_adapter_catalog.tables WHERE db = 'bench' AND stable = 'w' ORDER BY name`,
        )
        tids = r.rows.map((x) => Number(x.tid))
      } finally {
        await c.end()
      }
      const rawCopyRowsPerSec = await rawCopy(url, tids)
      const rawAggMs = await rawAggregate(url)
      return { restIngestRowsPerSec, rawCopyRowsPerSec, aggRows, restAggMs, restAggFirstByteMs, rawAggMs }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
}
