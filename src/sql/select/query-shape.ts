import { TD, TdError } from '../../td-error.js'
import { nowTicks } from '../time.js'
import type { Precision } from '../../storage/td-types.js'
import type { Expr, SelectItem, SelectStmt } from './ast.js'
import { collectRefs, containsAgg, containsRows, resolvePositional } from './expr-walk.js'
import { checkFunctionPlacement } from './func-rules.js'
import { preAggregable } from './pre-aggregate.js'
import type { PlanEnv } from './select-plan.js'
import { expandItems, type Source } from './sources.js'
import { resolveWindow, type WindowSpec } from './window.js'
import { tagFilter } from './tag-filter.js'

/** What the statement asks of its source, decided before any SQL is written. */
export interface QueryShape {
  stmt: SelectStmt
  src: Source | undefined
  precision: Precision
  /** NOW in ticks of the source's precision */
  now: bigint
  /** the select list with `*` expanded */
  items: SelectItem[]
  window: WindowSpec | undefined
  /** a super table whose tags or tbname are read: the tag table is joined */
  needJoin: boolean
  /** aggregates, an INTERVAL window or GROUP BY: one output row per group */
  aggregated: boolean
  /** PARTITION BY then GROUP BY expressions (positions and aliases resolved) */
  groupExprs: Expr[]
  /** tags and tbname are joined after the per-child aggregation (see preAggregable) */
  pre: boolean
  /** TOP, CSUM...: rows per partition (window and GROUP BY keys included), in time order */
  rowsFn: boolean
  /** the WHERE's tag and tbname equalities as a `_tid` condition or join (tag-filter.ts); `stmt` is without them */
  tidWhere?: string
  tidJoin?: string
}

export function queryShape(given: SelectStmt, src: Source | undefined, env: PlanEnv): QueryShape {
  const filtered = env.tagIndex === false ? undefined : tagFilter(given, src, env.dialect)
  const stmt = filtered?.stmt ?? given
  const precision: Precision = src?.precision ?? 'ms'
  const now = nowTicks(precision, env.nowMs)
  checkFunctionPlacement(stmt, src)
  const items = expandItems(stmt.items, src)
  const refs = collectRefs(stmt)
  const window = stmt.window === undefined ? undefined : resolveWindow(stmt.window, precision)
  if (window !== undefined && src?.ts === undefined) {
    throw new TdError(TD.PAR_SYNTAX_ERROR, 'syntax error near "interval" (window query needs a timestamp column)')
  }
  const needJoin = src !== undefined && src.kind === 'stable' && (refs.star || refs.names.has('tbname') || src.cols.some((c) => c.tag && refs.names.has(c.name)))
  const hasAgg = items.some((i) => containsAgg(i.expr)) || (stmt.having !== undefined && containsAgg(stmt.having))
  const rowsFn = items.some((i) => containsRows(i.expr))
  const aggregated = hasAgg || (!rowsFn && (window !== undefined || stmt.rowWindow !== undefined || stmt.groupBy.length > 0))
  const groupExprs = [...stmt.partitionBy, ...stmt.groupBy.map((g) => resolvePositional(g, items))]
  const pre =
    needJoin && aggregated && stmt.rowWindow === undefined && env.preAggregate !== false && src !== undefined && preAggregable(stmt, items, src, window, groupExprs, refs.star)
  const shape: QueryShape = { stmt, src, precision, now, items, window, needJoin, aggregated, groupExprs, pre, rowsFn }
  if (filtered?.tidWhere !== undefined) {
    shape.tidWhere = filtered.tidWhere
  }
  if (filtered?.tidJoin !== undefined) {
    shape.tidJoin = filtered.tidJoin
  }
  return shape
}
