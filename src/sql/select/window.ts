import type { Precision } from '../../storage/td-types.js'
import { TD, TdError } from '../../td-error.js'
import { durationTicks } from '../time.js'
import type { Duration, IntervalWindow } from './ast.js'
import { monthWindowStart, nextMonthWindow, type MonthWindow } from './calendar-window.js'

/** INTERVAL window in ticks of the database precision. */
export interface WindowSpec {
  interval: bigint
  offset: bigint
  /** = interval without SLIDING */
  sliding: bigint
  /** natural month/year windows (interval and sliding then only approximate their length) */
  months?: MonthWindow & { precision: Precision }
}

const MONTH_TICKS_MS = 30n * 86_400_000n

/** INTERVAL(kn) / INTERVAL(ky): months, an offset in months or fixed units, never SLIDING (TDengine's checks) */
function resolveMonthWindow(w: IntervalWindow, precision: Precision): WindowSpec {
  const k = w.interval.value * (w.interval.unit === 'y' ? 12 : 1)
  if (!Number.isInteger(k) || k <= 0) {
    throw new TdError(TD.PAR_SYNTAX_ERROR, `syntax error near "${w.interval.value}${w.interval.unit}" (interval must be a positive integer)`)
  }
  if (w.sliding !== undefined) {
    throw new TdError(TD.PAR_INTER_SLIDING_UNIT, 'Does not support sliding when interval is natural month/year')
  }
  let offMonths = 0
  let offset = 0n
  const o = w.offset
  if (o !== undefined) {
    if (o.unit === 'y' && w.interval.unit === 'n') {
      throw new TdError(TD.PAR_INTER_OFFSET_UNIT, "Cannot use 'year' as offset when interval is 'month'")
    }
    if (o.unit === 'n' || o.unit === 'y') {
      offMonths = o.value * (o.unit === 'y' ? 12 : 1)
    } else {
      offset = durationToTicks(o, precision)
    }
    const approxMonths = offMonths + Number(offset / (MONTH_TICKS_MS * ticksPerMs(precision)))
    if (offset < 0n || offMonths < 0 || !Number.isInteger(offMonths) || approxMonths >= k) {
      throw new TdError(TD.PAR_INTER_OFFSET_TOO_BIG, 'Interval offset should be shorter than interval')
    }
  }
  const approx = BigInt(k) * MONTH_TICKS_MS * ticksPerMs(precision)
  return { interval: approx, offset, sliding: approx, months: { k, offMonths, precision } }
}

function ticksPerMs(p: Precision): bigint {
  return p === 'ms' ? 1n : p === 'us' ? 1000n : 1_000_000n
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
  if (w.interval.unit === 'n' || w.interval.unit === 'y') {
    return resolveMonthWindow(w, precision)
  }
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
  if (spec.months !== undefined) {
    return monthWindowStart(ts, spec.months, spec.offset, spec.months.precision)
  }
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

/** the start of the window after the one starting at `start` (sliding windows step by `sliding`) */
export function nextWindowStart(start: bigint, spec: WindowSpec): bigint {
  if (spec.months !== undefined) {
    return nextMonthWindow(start, spec.months, spec.offset, spec.months.precision)
  }
  return start + spec.sliding
}
