import { TD, TdError } from '../../td-error.js'
import type { CompileCtx } from './compile-context.js'
import { compile } from './compile-expr.js'
import type { Expr } from './ast.js'
import { children, containsAgg, containsSeries, exprKey, findCompanion } from './expr-walk.js'
import { FUNCTIONS } from './functions.js'
import type { Scan } from './plan-scan.js'
import type { QueryShape } from './query-shape.js'
import { rowWindowBounds, rowWindowKeys } from './row-window.js'
import type { SqlWriter } from './sql-writer.js'

/** the name of the first DIFF-like (time-series or multi-row) call in `e` */
function seriesName(e: Expr): string | undefined {
  const kind = e.kind === 'call' ? FUNCTIONS.get(e.name)?.kind : undefined
  if (e.kind === 'call' && (kind === 'timeseries' || kind === 'rows')) {
    return e.name
  }
  return children(e).map(seriesName).find((n) => n !== undefined)
}

/** TDengine's text for TSDB_CODE_PAR_NOT_ALLOWED_FUNC */
const NOT_ALLOWED_FUNC_DESC =
  'Some functions are allowed only in the SELECT list of a query. And, cannot be mixed with other non scalar functions or columns.'

/** The select list's compile context over `b`, with the grouping keys it reads. */
export interface Grouping {
  ctx: CompileCtx
  /** backend SQL of PARTITION BY then GROUP BY keys */
  keySqls: string[]
  /** pre-aggregation: aggregate SQL -> its column alias in the per-child query */
  hoisted: Map<string, string>
  /** pre-aggregation: alias -> the newest row's value, for the hoisted LAST_ROWs */
  lastRows: Map<string, string>
}

/**
 * Grouping and partitioning: checks the statement's shape, then sets up what the select list
 * compiles against: the window start, DIFF/DERIVATIVE's window over each partition, the grouping
 * keys, the companion row of a single selection function, and hoisting for pre-aggregation.
 */
export function grouping(shape: QueryShape, scan: Scan, w: SqlWriter): Grouping {
  const { stmt, src, window, aggregated, groupExprs, pre } = shape
  if (stmt.slimit !== undefined && stmt.partitionBy.length === 0 && stmt.groupBy.length === 0) {
    throw new TdError(TD.PAR_SLIMIT_LEAK_PARTITION_GROUP_BY, 'slimit/soffset can only be used with PARTITION BY or GROUP BY')
  }
  if (stmt.groupBy.length > 0 && (window !== undefined || stmt.rowWindow !== undefined)) {
    throw new TdError(TD.PAR_GROUPBY_WINDOW_COEXIST, "GROUP BY and WINDOW-clause can't be used together")
  }
  const ctx: CompileCtx = { ...scan.whereCtx, scope: scan.mainScope, level: 'main' }
  delete ctx.tid
  // the window start as the outer queries see it (grouping and ordering may use __w itself)
  const wStart = scan.windowNumber === undefined ? `b.${w.q('__w')}` : scan.windowNumber.startSql(`b.${w.q('__w')}`)
  if (window !== undefined) {
    ctx.window = { spec: window, w: wStart }
    if (window.months !== undefined && scan.windowNumber !== undefined) {
      // months differ in length: the end is the next window's start
      ctx.window.end = scan.windowNumber.startSql(`(b.${w.q('__w')} + 1)`)
    }
  } else if (stmt.rowWindow !== undefined) {
    const b = rowWindowBounds(shape, scan)
    ctx.window = { spec: { interval: 0n, offset: 0n, sliding: 0n }, w: b.start, end: b.end }
  }
  const series = shape.items.some((i) => containsSeries(i.expr))
  if (series) {
    if (aggregated) {
      // TDengine's translateIndefiniteRowsFunc: 9807 beside an aggregate, and in a window or a
      // GROUP BY with the function's name
      const name = shape.items.map((i) => seriesName(i.expr)).find((n) => n !== undefined)
      const windowed = window !== undefined || stmt.rowWindow !== undefined || stmt.groupBy.length > 0
      throw new TdError(
        TD.PAR_NOT_ALLOWED_FUNC,
        windowed && !shape.items.some((i) => containsAgg(i.expr)) && name !== undefined
          ? `${name} function is not supported in window query or group query`
          : NOT_ALLOWED_FUNC_DESC,
      )
    }
    const tsSql = src?.ts === undefined ? undefined : scan.mainScope.get(src.ts)?.sql
    if (tsSql === undefined) {
      throw new TdError(TD.PAR_INVALID_FIRST_COLUMN, 'First column must be timestamp')
    }
    // TOP, SAMPLE... rank within GROUP BY keys and windows too (DIFF and CSUM refuse those)
    const part = (shape.rowsFn ? groupExprs : stmt.partitionBy).map((g) => compile(g, ctx).sql)
    if (shape.rowsFn && window !== undefined) {
      part.push(wStart)
    }
    ctx.series = { over: `(${part.length > 0 ? `PARTITION BY ${part.join(', ')} ` : ''}ORDER BY ${tsSql})`, valid: [], part, ts: tsSql }
  }
  const keySqls = groupExprs.map((g) => compile(g, ctx).sql)
  if (aggregated) {
    const keys = new Map<string, string>()
    groupExprs.forEach((g, i) => keys.set(exprKey(g), keySqls[i]))
    rowWindowKeys(shape, ctx, keys)
    ctx.agg = { keys, companion: findCompanion(shape.items, stmt), oneGroup: stmt.groupBy.length === 0 && window === undefined && stmt.rowWindow === undefined }
  }
  const hoisted = new Map<string, string>()
  const lastRows = new Map<string, string>()
  if (pre) {
    ctx.hoist = (aggregateSql, lastRow) => {
      let alias = hoisted.get(aggregateSql)
      if (alias === undefined) {
        alias = `__a${hoisted.size}`
        hoisted.set(aggregateSql, alias)
        if (lastRow !== undefined) {
          lastRows.set(alias, lastRow)
        }
      }
      return `b.${w.q(alias)}`
    }
  }
  return { ctx, keySqls, hoisted, lastRows }
}
