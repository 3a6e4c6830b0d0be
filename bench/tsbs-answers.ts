/**
 * What the TSBS query bench compares between systems so a fast wrong answer does not count:
 * per answer the rows, the numeric cells (no time, no tags, no NULLs) and their sum.
 */
import type { TsbsQuery } from './tsbs-queries.js'

export interface AnswerSummary {
  rows: number
  cells: number
  sum: number
}

function add(s: AnswerSummary, v: unknown): void {
  if (typeof v === 'number' && Number.isFinite(v)) {
    s.cells++
    s.sum += v
  }
}

/** /rest/sql: `column_meta` names each column's type; timestamps and strings are not summed. */
export function adapterSummary(body: string): AnswerSummary {
  const j = JSON.parse(body) as { code: number; desc?: string; column_meta: Array<[string, string, number]>; data: unknown[][]; rows: number }
  if (j.code !== 0) {
    throw new Error(`adapter: ${j.code} ${j.desc ?? ''}`)
  }
  const numeric = j.column_meta.map(([, type]) => !/TIMESTAMP|CHAR|BINARY|JSON|BOOL/i.test(type))
  const s: AnswerSummary = { rows: j.data.length, cells: 0, sum: 0 }
  for (const row of j.data) {
    row.forEach((v, i) => numeric[i] && add(s, v))
  }
  return s
}

/** InfluxDB 1.x /query: one series per group, the first column is the time; tags come as strings under SELECT *. */
export function influxSummary(body: string): AnswerSummary {
  const j = JSON.parse(body) as { results: Array<{ error?: string; series?: Array<{ values: unknown[][] }> }> }
  const r = j.results[0]
  if (r.error !== undefined) {
    throw new Error(`InfluxDB: ${r.error}`)
  }
  const s: AnswerSummary = { rows: 0, cells: 0, sum: 0 }
  for (const series of r.series ?? []) {
    for (const row of series.values) {
      s.rows++
      row.slice(1).forEach((v) => add(s, v))
    }
  }
  return s
}

/** VictoriaMetrics /api/v1/query_range: a matrix; every point is a row of one cell. */
export function vmSummary(body: string): AnswerSummary {
  const j = JSON.parse(body) as { status: string; error?: string; data: { result: Array<{ values: Array<[number, string]> }> } }
  if (j.status !== 'success') {
    throw new Error(`VictoriaMetrics: ${j.error ?? body.slice(0, 200)}`)
  }
  const s: AnswerSummary = { rows: 0, cells: 0, sum: 0 }
  for (const series of j.data.result) {
    for (const [, v] of series.values) {
      s.rows++
      add(s, Number(v))
    }
  }
  return s
}

const near = (a: number, b: number, rel: number): boolean => Math.abs(a - b) <= rel * Math.max(Math.abs(a), Math.abs(b), 1)

/**
 * Empty when the answers agree, else why not. InfluxDB answers the same question with the same
 * window semantics (buckets [t, t+1m) from the epoch): cells and sum must match (0.5% for the
 * float sums of averages). VictoriaMetrics' rollups look back over (t - 1m, t] at each step, so
 * only its number of points is compared, within 15%.
 */
export function disagreement(q: TsbsQuery, adapter: AnswerSummary, influx: AnswerSummary, vm?: AnswerSummary): string {
  const why: string[] = []
  if (adapter.cells === 0) {
    why.push('the adapter answered no values')
  }
  if (adapter.cells !== influx.cells || !near(adapter.sum, influx.sum, 0.005)) {
    why.push(`adapter ${adapter.cells} values summing to ${adapter.sum}, InfluxDB ${influx.cells} summing to ${influx.sum}`)
  }
  if (vm !== undefined && !near(adapter.cells, vm.cells, 0.15)) {
    why.push(`adapter ${adapter.cells} values, VictoriaMetrics ${vm.cells}`)
  }
  return why.length === 0 ? '' : `${q.type}: ${why.join('; ')}\n  ${q.sql}`
}
