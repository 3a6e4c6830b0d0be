import { TD, TdError } from '../../td-error.js'
import { constValue } from './expr-walk.js'
import { MAX_FILL_ROWS } from './fill-windows.js'
import type { Output } from './plan-output.js'
import type { Scan } from './plan-scan.js'
import type { QueryShape } from './query-shape.js'
import type { SelectPlan } from './select-plan.js'
import { timeRange } from './time-range.js'
import { alignStart } from './window.js'

/**
 * FILL's post-processing: which result columns it fills or stamps, its values, and, when WHERE
 * bounds the time on both sides, the first and last window to produce. Undefined without FILL.
 */
export function fillPlan(shape: QueryShape, out: Output, scan: Scan): SelectPlan['fill'] {
  const { stmt, src, window } = shape
  const { roles, convert } = out
  const fillMode = stmt.window?.fill?.mode
  if (window === undefined || fillMode === undefined || fillMode === 'none') {
    return undefined
  }
  const fillCols = roles.flatMap((r, i) => (r === 'agg' ? [i] : []))
  const values = (stmt.window?.fill?.values ?? []).map((v, n) => {
    const col = fillCols[n]
    const lit = constValue(v)
    return col === undefined ? lit : convert[col](lit)
  })
  const fill: NonNullable<SelectPlan['fill']> = {
    mode: fillMode,
    wIndex: out.wIndex,
    keyIndexes: out.keyIndexes,
    fillCols,
    wstartCols: roles.flatMap((r, i) => (r === 'wstart' ? [i] : [])),
    wendCols: roles.flatMap((r, i) => (r === 'wend' ? [i] : [])),
    wdurationCols: roles.flatMap((r, i) => (r === 'wduration' ? [i] : [])),
    values,
    spec: window,
  }
  const range = src?.ts === undefined || stmt.where === undefined ? undefined : timeRange(stmt.where, scan.whereCtx, src.ts)
  if (range?.lo !== undefined && range.hi !== undefined) {
    const first = alignStart(range.lo, window)
    const last = alignStart(range.hi, window)
    if (last >= first && (last - first) / window.sliding + 1n > MAX_FILL_ROWS) {
      throw new TdError(TD.PAR_INVALID_FILL_TIME_RANGE, 'Start(end) time of query range required or time range too large')
    }
    fill.range = { first, last }
  }
  if (stmt.limit !== undefined) {
    fill.limit = stmt.limit
  }
  if (stmt.orderBy[0]?.desc === true) {
    fill.desc = true
  }
  return fill
}
