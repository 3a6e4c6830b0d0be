/**
 * @module
 * Rows the HTTP write endpoints ingested and rejected, by protocol:
 * `db_adapter_rows_total{protocol, result="written"|"rejected"}`.
 *
 * The counter lives on the adapter's registry (built in src/lifecycle.ts, like the receivers'
 * counters) and reaches the handlers as IngestDeps.metrics; each handler reports its write result
 * with `countRows` (a no-op without metrics, e.g. route modules tested on their own).
 *
 * Rows are points (line protocol lines, OpenTSDB items or lines) and, for remote write, samples.
 * Rejected rows are the ones refused in a write that otherwise went through (malformed lines, type
 * conflicts, unstorable series); a request refused as a whole (auth, size, missing database,
 * storage down) counts no rows, it shows in the HTTP status counter instead.
 */
import { Counter } from 'prom-client'
import type { Registry } from 'prom-client'

export type RowProtocol = 'lineproto' | 'tsdbproto_json' | 'tsdbproto_telnet' | 'metricsproto'

export interface IngestMetrics {
  rows: Counter<'protocol' | 'result'>
}

export function createIngestMetrics(registry: Registry): IngestMetrics {
  return {
    rows: new Counter({
      name: 'db_adapter_rows_total',
      help: 'Rows the HTTP write endpoints got, by protocol and result: written, rejected (malformed or refused by the schema, the rest of the request written)',
      labelNames: ['protocol', 'result'],
      registers: [registry],
    }),
  }
}

/** Counts the rows of one write; zero counts are not added (no empty series appear). */
export function countRows(metrics: IngestMetrics | undefined, protocol: RowProtocol, written: number, rejected: number): void {
  if (metrics === undefined) {
    return
  }
  if (written > 0) {
    metrics.rows.inc({ protocol, result: 'written' }, written)
  }
  if (rejected > 0) {
    metrics.rows.inc({ protocol, result: 'rejected' }, rejected)
  }
}
