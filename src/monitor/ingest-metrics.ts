/**
 * @module
 * Rows the HTTP write endpoints ingested and rejected, by protocol:
 * `db_adapter_rows_total{protocol, result="written"|"rejected"}`.
 *
 * The counter lives on the adapter's registry (built in src/lifecycle.ts, like the receivers'
 * counters) and reaches the handlers through the request context: `ingestMetricsScope` is put in
 * front of the write route modules, and each handler reports its write result with `countRows`
 * (a no-op where no scope is installed, e.g. route modules tested on their own).
 *
 * Rows are points (line protocol lines, OpenTSDB items or lines) and, for remote write, samples.
 * Rejected rows are the ones refused in a write that otherwise went through (malformed lines, type
 * conflicts, unstorable series); a request refused as a whole (auth, size, missing database,
 * storage down) counts no rows, it shows in the HTTP status counter instead.
 */
import type { Context, MiddlewareHandler } from 'hono'
import { Counter } from 'prom-client'
import type { Registry } from 'prom-client'

export type RowProtocol = 'lineproto' | 'tsdbproto_json' | 'tsdbproto_telnet' | 'metricsproto'

export interface IngestMetrics {
  rows: Counter<'protocol' | 'result'>
}

declare module 'hono' {
  interface ContextVariableMap {
    /** where the write handler of this request counts its rows (set by `ingestMetricsScope`) */
    ingestMetrics: IngestMetrics
  }
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

/** Middleware for write route modules: their handlers count rows into `metrics`. */
export function ingestMetricsScope(metrics: IngestMetrics): MiddlewareHandler {
  // two parameters: the HTTP metrics' route label tells middleware from handlers by arity
  return async function ingestMetricsScope(c, next) {
    c.set('ingestMetrics', metrics)
    await next()
  }
}

/** Counts the rows of one write; zero counts are not added (no empty series appear). */
export function countRows(c: Context, protocol: RowProtocol, written: number, rejected: number): void {
  const metrics = c.get('ingestMetrics') as IngestMetrics | undefined
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

/**
 * Rejected samples of a remote write: every sample of the request that was not written (the
 * store reports rejected series, not their samples; a rejected series loses all its samples).
 */
export function rejectedSamples(req: { timeseries: Array<{ samples: unknown[] }> }, written: number): number {
  let total = 0
  for (const s of req.timeseries) {
    total += s.samples.length
  }
  return Math.max(0, total - written)
}
