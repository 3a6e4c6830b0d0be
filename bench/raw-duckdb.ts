/**
 * The raw-DuckDB side of the SQL bench (sql.bench.ts), as a process of its own: the same rows
 * appended and the same aggregate queried directly, with no adapter in between. Started with
 * `<ingest dir> <aggregate file> <schema>`; answers each request message with one message.
 */
import { DuckDBInstance } from '@duckdb/node-api'
import { join } from 'node:path'
import { AGG_WHERE_FROM, INSERT_ROWS_PER_STATEMENT, INSERT_TABLES, STATE_CONDITION, T0 } from './workload.js'

export type RawRequest = { op: 'ingest'; k: number } | { op: 'aggregate' } | { op: 'state' } | { op: 'close' }

/** The same rows appended directly to DuckDB, one appender per statement, in the adapter's layout for bench.w. */
export async function openRawIngest(dir: string): Promise<{ statement(k: number): Promise<number>; close(): void }> {
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
export async function openRawAggregate(
  file: string,
  schema: string,
): Promise<{ run(): Promise<{ ms: number; rows: number }>; state(): Promise<{ ms: number; rows: number }>; close(): void }> {
  const db = await DuckDBInstance.create(file, { access_mode: 'READ_ONLY' })
  const con = await db.connect()
  // STATE_QUERY written by hand: a window starts where the state differs from the previous row's
  // (the data has no NULLs, so none of the adapter's NULL handling is needed here)
  const state = `SELECT tbname, min(ts), max(ts), count(*), avg(c) FROM (
    SELECT tbname, ts, c, sum(chg) OVER (PARTITION BY tbname ORDER BY ts ROWS UNBOUNDED PRECEDING) AS w FROM (
      SELECT t.tbname, d.ts, d.c,
        CASE WHEN (d.${STATE_CONDITION}) IS DISTINCT FROM lag(d.${STATE_CONDITION}) OVER (PARTITION BY d._tid ORDER BY d.ts) THEN 1 ELSE 0 END AS chg
      FROM "${schema}"."st" d JOIN "${schema}"."st$tags" t ON d._tid = t._tid WHERE d.ts >= ${AGG_WHERE_FROM}))
    GROUP BY tbname, w ORDER BY tbname, min(ts)`
  const q = `SELECT t.tbname, d.ts - (d.ts % 60000) AS w, avg(d.c)
    FROM "${schema}"."st" d JOIN "${schema}"."st$tags" t ON d._tid = t._tid
    WHERE d.ts >= ${AGG_WHERE_FROM} GROUP BY t.tbname, w ORDER BY t.tbname, w`
  return {
    async run() {
      const started = performance.now()
      const reader = await con.runAndReadAll(q)
      return { ms: performance.now() - started, rows: reader.currentRowCount }
    },
    async state() {
      const started = performance.now()
      const reader = await con.runAndReadAll(state)
      return { ms: performance.now() - started, rows: reader.currentRowCount }
    },
    close() {
      con.closeSync()
      db.closeSync()
    },
  }
}

if (process.send !== undefined) {
  const [ingestDir, aggFile, schema] = process.argv.slice(2)
  const ingest = await openRawIngest(ingestDir)
  const aggregate = await openRawAggregate(aggFile, schema)
  process.on('message', (m: RawRequest) => {
    const reply = (v: unknown): void => {
      process.send?.(v)
    }
    if (m.op === 'ingest') {
      void ingest.statement(m.k).then(reply)
    } else if (m.op === 'aggregate') {
      void aggregate.run().then(reply)
    } else if (m.op === 'state') {
      void aggregate.state().then(reply)
    } else {
      ingest.close()
      aggregate.close()
      process.exit(0)
    }
  })
  process.send('ready')
}
