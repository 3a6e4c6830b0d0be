/**
 * Per-row scan columns for the aggregates that depend on their rows' order in time: LEASTSQUARES
 * numbers the non-NULL values (its x is start + step * (n - 1)), TWA weighs each value by the
 * time to its neighbours (the trapezoids' sum, regrouped per point). Computed in the scan as
 * window functions over the query's groups, so the grouped select list only sums them.
 */
import { aggRowColumnName } from './agg-extra.js'
import type { Expr } from './ast.js'
import type { CompileCtx, Ref } from './compile-context.js'
import { compile } from './compile-expr.js'
import { children } from './expr-walk.js'
import type { QueryShape } from './query-shape.js'
import type { SqlWriter } from './sql-writer.js'
import { twaWindowColumns } from './twa-window.js'
import { fixed } from './type-info.js'

/** backend columns `expr AS alias` for the scan; `windowSql`: the row's window (`__w`) as the scan computes it */
export function aggRowColumns(shape: QueryShape, whereCtx: CompileCtx, w: SqlWriter, mainScope: Map<string, Ref>, windowSql: string | undefined): string[] {
  const src = shape.src
  const ts = src?.ts === undefined ? undefined : whereCtx.scope.get(src.ts)?.sql
  if (ts === undefined || !shape.aggregated) {
    return []
  }
  const out: string[] = []
  const walk = (e: Expr): void => {
    if (e.kind === 'call' && (e.name === 'leastsquares' || e.name === 'twa') && e.args.length >= 1) {
      const key = aggRowColumnName(e)
      if (!mainScope.has(key)) {
        const y = compile(e.args[0], whereCtx).sql
        const part = shape.groupExprs.map((g) => compile(g, whereCtx).sql)
        if (e.name === 'twa' && windowSql !== undefined && shape.window !== undefined) {
          // the neighbours come from the whole partition, not the row's window
          const cols = twaWindowColumns(y, ts, part, shape.window, w)
          if (cols !== undefined) {
            out.push(`${cols.area} AS ${w.q(`__g${out.length}`)}`)
            mainScope.set(key, { sql: `b.${w.q(`__g${out.length - 1}`)}`, type: fixed('DOUBLE'), ts: false })
            out.push(`${cols.length} AS ${w.q(`__g${out.length}`)}`)
            mainScope.set(`${key}:length`, { sql: `b.${w.q(`__g${out.length - 1}`)}`, type: fixed('BIGINT'), ts: false })
          }
          return
        }
        if (windowSql !== undefined) {
          part.push(windowSql)
        }
        const over = (frame: string): string => `OVER (${part.length > 0 ? `PARTITION BY ${part.join(', ')} ` : ''}ORDER BY ${ts} ROWS BETWEEN ${frame})`
        const alias = `__g${out.length}`
        let sql: string
        if (e.name === 'leastsquares') {
          sql = `count(${y}) ${over('UNBOUNDED PRECEDING AND CURRENT ROW')}`
        } else {
          const valued = `(CASE WHEN ${y} IS NOT NULL THEN ${ts} END)`
          const prev = `max(${valued}) ${over('UNBOUNDED PRECEDING AND 1 PRECEDING')}`
          const next = `min(${valued}) ${over('1 FOLLOWING AND UNBOUNDED FOLLOWING')}`
          sql = `(CASE WHEN ${y} IS NOT NULL THEN coalesce(${next}, ${ts}) - coalesce(${prev}, ${ts}) END)`
        }
        out.push(`${sql} AS ${w.q(alias)}`)
        mainScope.set(key, { sql: `b.${w.q(alias)}`, type: fixed('BIGINT'), ts: false })
      }
    }
    children(e).forEach(walk)
  }
  shape.items.forEach((i) => walk(i.expr))
  if (shape.stmt.having !== undefined) {
    walk(shape.stmt.having)
  }
  return out
}
