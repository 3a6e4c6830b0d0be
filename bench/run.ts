/**
 * `npm run bench`: prints the figures the issues ask for. Each section runs the real adapter
 * process beside a floor (the same work done directly in the backend).
 * Select sections with BENCH=sql,... (default: all).
 */
import { fmt } from './lib.js'
import { runSqlBench } from './sql.bench.js'

const selected = new Set((process.env.BENCH ?? 'sql').split(',').map((s) => s.trim()))
const log = (s: string) => process.stdout.write(`  ${s}\n`)

if (selected.has('sql')) {
  console.log('/rest/sql over embedded DuckDB')
  const r = await runSqlBench(log)
  console.table({
    'ingest rows/s (10,000-row INSERTs)': {
      adapter: fmt(r.restIngestRowsPerSec),
      'raw DuckDB': fmt(r.rawIngestRowsPerSec),
      ratio: fmt(r.restIngestRowsPerSec / r.rawIngestRowsPerSec, 2),
    },
    [`INTERVAL(1m) PARTITION BY tbname, ${fmt(r.aggRows)} result rows, median ms`]: {
      adapter: fmt(r.restAggMs, 1),
      'raw DuckDB': fmt(r.rawAggMs, 1),
      ratio: fmt(r.restAggMs / r.rawAggMs, 2),
    },
    [`${fmt(r.streamRows)}-row result streamed, ms`]: {
      adapter: fmt(r.streamMs, 0),
      'raw DuckDB': '-',
      ratio: '-',
    },
    'adapter peak RSS, MiB': { adapter: fmt(r.peakRssMiB, 0), 'raw DuckDB': '-', ratio: '-' },
  })
}
