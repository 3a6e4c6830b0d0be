/**
 * TWA inside an INTERVAL window, per scan row: the area under the piecewise-linear curve through
 * the non-NULL points that the row's segments put into the row's window, and the time it covers.
 * A row owns the segment to its next point, clipped at the window's end, and, when the point
 * before it lies in an earlier window, the segment from the window's start (the value there
 * interpolated) to itself. The window's TWA is then sum(area) / sum(length).
 */
import type { SqlWriter } from './sql-writer.js'
import { alignSql, extraWindows, type WindowSpec } from './window.js'

export interface TwaWindowSql {
  area: string
  length: string
}

/** undefined where the window is not a plain INTERVAL (SLIDING or natural months: not built) */
export function twaWindowColumns(y: string, ts: string, part: string[], window: WindowSpec, w: SqlWriter): TwaWindowSql | undefined {
  if (window.months !== undefined || extraWindows(window) > 0) {
    return undefined
  }
  const d = w.dialect
  const dbl = w.physType('DOUBLE')
  const f = (v: string): string => `CAST(${v} AS ${dbl})`
  const yv = f(y)
  const valued = `(CASE WHEN ${y} IS NOT NULL THEN ${ts} END)`
  const over = (frame: string): string => `OVER (${part.length > 0 ? `PARTITION BY ${part.join(', ')} ` : ''}ORDER BY ${ts} ROWS BETWEEN ${frame})`
  const before = over('UNBOUNDED PRECEDING AND 1 PRECEDING')
  const after = over('1 FOLLOWING AND UNBOUNDED FOLLOWING')
  const pt = `max(${valued}) ${before}`
  const nt = `min(${valued}) ${after}`
  const pv = d.valueAtKeyOver(yv, valued, 'max', before)
  const nv = d.valueAtKeyOver(yv, valued, 'min', after)
  const ws = alignSql(ts, window)
  const we = `(${ws} + ${window.interval})`
  // right: [ts, least(nt, we)], the value at its end interpolated on the segment to the next point
  const rEnd = `least(${nt}, ${we})`
  const rVal = `(${yv} + (${nv} - ${yv}) * ${f(`${rEnd} - ${ts}`)} / ${f(`${nt} - ${ts}`)})`
  const rLen = `(CASE WHEN ${nt} IS NULL THEN 0 ELSE ${rEnd} - ${ts} END)`
  const rArea = `(CASE WHEN ${nt} IS NULL THEN 0 ELSE (${yv} + ${rVal}) / 2 * ${f(`${rEnd} - ${ts}`)} END)`
  // left: [ws, ts] when the previous point lies before the window
  const lVal = `(${pv} + (${yv} - ${pv}) * ${f(`${ws} - ${pt}`)} / ${f(`${ts} - ${pt}`)})`
  const lOwn = `${pt} < ${ws}`
  const lLen = `(CASE WHEN ${lOwn} THEN ${ts} - ${ws} ELSE 0 END)`
  const lArea = `(CASE WHEN ${lOwn} THEN (${lVal} + ${yv}) / 2 * ${f(`${ts} - ${ws}`)} ELSE 0 END)`
  return {
    area: `(CASE WHEN ${y} IS NOT NULL THEN ${rArea} + ${lArea} END)`,
    length: `(CASE WHEN ${y} IS NOT NULL THEN ${rLen} + ${lLen} END)`,
  }
}
