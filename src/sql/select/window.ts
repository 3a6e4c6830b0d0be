import type { Precision } from '../../storage/td-types.js'
import { TD, TdError } from '../../td-error.js'
import { durationTicks } from '../time.js'
import type { Duration, IntervalWindow } from './ast.js'

/** INTERVAL window in ticks of the database precision. */
export interface WindowSpec {
  interval: bigint
  offset: bigint
  /** = interval without SLIDING */
  sliding: bigint
}

export function durationToTicks(d: Duration, precision: Precision): bigint {
  if (d.unit === '') {
    return BigInt(Math.trunc(d.value))
  }
  if (d.unit === 'n' || d.unit === 'y') {
    // calendar windows need month arithmetic on the backend; not built yet
    throw new TdError(TD.PAR_SYNTAX_ERROR, `syntax error near "${d.value}${d.unit}" (calendar month/year windows are not supported)`)
  }
  return durationTicks(d.value, d.unit, precision)
}

export function resolveWindow(w: IntervalWindow, precision: Precision): WindowSpec {
  const interval = durationToTicks(w.interval, precision)
  if (interval <= 0n) {
    throw new TdError(TD.PAR_SYNTAX_ERROR, `syntax error near "interval" (interval must be positive)`)
  }
  const offset = w.offset === undefined ? 0n : durationToTicks(w.offset, precision)
  if (offset < 0n || offset >= interval) {
    throw new TdError(TD.PAR_INTER_OFFSET_TOO_BIG, 'Interval offset should be shorter than interval')
  }
  const sliding = w.sliding === undefined ? interval : durationToTicks(w.sliding, precision)
  if (sliding > interval) {
    throw new TdError(TD.PAR_INTER_SLIDING_TOO_BIG, 'sliding value no larger than the interval value')
  }
  if (sliding <= 0n || sliding * 100n < interval) {
    throw new TdError(TD.PAR_INTER_SLIDING_TOO_BIG, 'sliding value should be at least 1% of the interval value')
  }
  return { interval, offset, sliding }
}

/** Start of the sliding-aligned window containing ts: ts - ((ts - o) mod s + s) mod s (negative-safe). */
export function alignStart(ts: bigint, spec: WindowSpec): bigint {
  const s = spec.sliding
  return ts - ((((ts - spec.offset) % s) + s) % s)
}

/**
 * Window numbering from a lower time bound. When the WHERE keeps every ts at or after `lo`, the
 * scan computes each row's window as a small count of windows since `base` (the start of the
 * window holding `lo`) and the window start is `base + n * sliding`, worked out per group after
 * aggregating. DuckDB knows from the column's statistics that the count is small and groups on a
 * compressed narrow integer, faster than on the aligned BIGINT start.
 */
export interface WindowIndex {
  /** the start of the window holding the lower bound (ticks) */
  base: bigint
  /** the window's number since base, computed in the scan */
  indexSql: string
  /** its start, from the number: `base + n * sliding` */
  startSql(n: string): string
}

/**
 * `lo`: a lower bound every row's ts keeps (ticks). For windows that do not overlap (a row in one
 * window only); `ts - base` is never negative, so the plain quotient is exact.
 */
export function windowIndex(ts: string, spec: WindowSpec, lo: bigint, quotient: (a: string, b: string) => string): WindowIndex {
  const base = alignStart(lo, spec)
  const s = spec.sliding.toString()
  // parenthesised when negative: `ts - -5` is valid SQL, but one lost space would make it a comment
  const b = base < 0n ? `(${base})` : base.toString()
  return {
    base,
    indexSql: quotient(`${ts} - ${b}`, s),
    startSql: (n) => `(${b} + ${n} * ${s})`,
  }
}

/**
 * Backend SQL for the aligned window start of `ts` (a BIGINT expression). Plain integer arithmetic
 * so both backends compute it in the scan. `%` truncates toward zero on both, so a timestamp
 * before the offset (before 1970) needs `((x % s) + s) % s`; every other one takes the single
 * `%`, cheaper than a second modulo on every row. `fromOffset`: the query's WHERE keeps every ts
 * at or after the offset, so the single `%` alone is exact and the CASE goes too.
 */
export function alignSql(ts: string, spec: WindowSpec, fromOffset = false): string {
  const s = spec.sliding.toString()
  const shifted = spec.offset === 0n ? ts : `(${ts} - ${spec.offset})`
  if (fromOffset) {
    return `(${ts} - (${shifted} % ${s}))`
  }
  return `(CASE WHEN ${shifted} >= 0 THEN ${ts} - (${shifted} % ${s}) ELSE ${ts} - (((${shifted} % ${s}) + ${s}) % ${s}) END)`
}

/** how many sliding steps of earlier windows also cover a row (0 without SLIDING) */
export function extraWindows(spec: WindowSpec): number {
  return Number((spec.interval + spec.sliding - 1n) / spec.sliding) - 1
}
