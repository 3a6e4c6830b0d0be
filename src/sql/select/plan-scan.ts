import type { Expr } from './ast.js'
import type { CompileCtx, Ref } from './compile-context.js'
import { compile, lookup } from './compile-expr.js'
import { children, exprKey } from './expr-walk.js'
import { FUNCTIONS } from './functions.js'
import { monthWindowSql } from './calendar-window.js'
import type { QueryShape } from './query-shape.js'
import type { PlanEnv } from './select-plan.js'
import { TBNAME_TYPE } from './sources.js'
import type { SqlWriter } from './sql-writer.js'
import { aggRowColumns } from './agg-rows.js'
import { stateRunColumns } from './state-runs.js'
import { timeRange } from './time-range.js'
import { alignSql, extraWindows, windowIndex, type WindowIndex } from './window.js'

/**
 * The scan: the base query `b` that reads the source (its columns under positional aliases, the
 * WHERE clause, the window start or number `__w`, the child's `__tid`), and the scopes the outer
 * queries compile against.
 */
export interface Scan {
  /** the base query; undefined without FROM */
  sql: string | undefined
  /** names as the queries over `b` see them */
  mainScope: Map<string, Ref>
  /** the WHERE clause's context: names as the base query reads them */
  whereCtx: CompileCtx
  /** the tag join's columns under their `b` aliases (pre-aggregation only) */
  tagCols: string[]
  /** set when __w is a window number rather than the window's start (see windowIndex) */
  windowNumber: WindowIndex | undefined
}

export function scanQuery(shape: QueryShape, env: PlanEnv, w: SqlWriter): Scan {
  const { src, needJoin, pre } = shape
  const cols = scanColumns(shape, w)
  const whereCtx = whereContext(shape, env, w, cols.whereScope)
  const whereParts = whereConditions(shape, whereCtx)
  const win = windowColumn(shape, env, w, whereCtx)
  cols.baseCols.push(...stateRunColumns(shape, whereCtx, w, cols.mainScope))
  cols.baseCols.push(...aggRowColumns(shape, whereCtx, w, cols.mainScope, win?.sql))
  if (win !== undefined) {
    cols.baseCols.push(`${win.sql} AS ${w.q('__w')}`)
    if (win.where !== undefined) {
      whereParts.push(win.where)
    }
  }
  const sql =
    src === undefined
      ? undefined
      : `SELECT ${cols.baseCols.join(', ')} FROM ${src.from(needJoin && !pre)}${shape.tidJoin ?? ''}${win?.crossJoin ?? ''}` +
        (whereParts.length > 0 ? ` WHERE ${whereParts.map((p) => `(${p})`).join(' AND ')}` : '')
  return { sql, mainScope: cols.mainScope, whereCtx, tagCols: cols.tagCols, windowNumber: win?.windowNumber }
}

/** the source's columns under positional aliases (`cN`, tbname, `__tid`), and the scopes that name them */
function scanColumns(
  shape: QueryShape,
  w: SqlWriter,
): { baseCols: string[]; tagCols: string[]; mainScope: Map<string, Ref>; whereScope: Map<string, Ref> } {
  const { src, needJoin, pre } = shape
  const baseCols: string[] = []
  const mainScope = new Map<string, Ref>()
  const whereScope = new Map<string, Ref>()
  const tagCols: string[] = []
  if (src !== undefined) {
    // join columns are keyed `qualifier.name`, and by their bare name where that is unique
    const bare = new Map<string, number>()
    src.cols.forEach((c) => bare.set(c.name, (bare.get(c.name) ?? 0) + 1))
    src.cols.forEach((c, i) => {
      if (c.tag && src.kind === 'stable' && !needJoin) {
        return
      }
      ;(pre && c.tag ? tagCols : baseCols).push(`${c.raw} AS ${w.q(`c${i}`)}`)
      const key = c.qualifier === undefined ? c.name : `${c.qualifier}.${c.name}`
      const keys = c.qualifier !== undefined && bare.get(c.name) === 1 ? [key, c.name] : [key]
      for (const k of keys) {
        mainScope.set(k, { sql: `b.${w.q(`c${i}`)}`, type: c.type, ts: key === src.ts })
        whereScope.set(k, { sql: c.raw, type: c.type, ts: key === src.ts })
      }
      if (c.qualifier !== undefined && (bare.get(c.name) ?? 0) > 1) {
        const ambiguous = { sql: '', type: c.type, ts: false, ambiguous: true as const }
        mainScope.set(c.name, ambiguous)
        whereScope.set(c.name, ambiguous)
      }
    })
    if (src.tbname !== undefined && !mainScope.has('tbname') && (src.kind !== 'stable' || needJoin)) {
      ;(pre ? tagCols : baseCols).push(`${src.tbname} AS ${w.q('tbname')}`)
      mainScope.set('tbname', { sql: `b.${w.q('tbname')}`, type: TBNAME_TYPE, ts: false })
      whereScope.set('tbname', { sql: src.tbname, type: TBNAME_TYPE, ts: false })
    }
    if (src.tidRaw !== undefined) {
      baseCols.push(`${src.tidRaw} AS ${w.q('__tid')}`)
    }
  }
  return { baseCols, tagCols, mainScope, whereScope }
}

function whereContext(shape: QueryShape, env: PlanEnv, w: SqlWriter, whereScope: Map<string, Ref>): CompileCtx {
  const src = shape.src
  const ctx: CompileCtx = {
    sql: w,
    session: env.ctx,
    scope: whereScope,
    qualifiers: src?.qualifiers ?? new Set(),
    precision: shape.precision,
    now: shape.now,
    tsName: src?.ts,
    level: 'where',
    inAgg: false,
  }
  if (src?.tidRaw !== undefined && src.tidOf !== undefined) {
    ctx.tid = { raw: src.tidRaw, of: src.tidOf }
  }
  return ctx
}

/** the base query's conditions: the source's own (a child's `_tid`), WHERE, and non-NULL DIFF input */
function whereConditions(shape: QueryShape, whereCtx: CompileCtx): string[] {
  const { stmt, src, items } = shape
  const whereParts = [...(src?.baseWhere ?? [])]
  if (shape.tidWhere !== undefined) {
    whereParts.push(shape.tidWhere)
  }
  if (stmt.where !== undefined) {
    const c = compile(stmt.where, whereCtx)
    whereParts.push(c.sql)
  }
  // DIFF/DERIVATIVE take the previous non-NULL value: with one input column, drop NULL rows first
  const seriesArgs = new Set<string>()
  const walkSeries = (e: Expr): void => {
    const nullSkipping = e.kind === 'call' && (FUNCTIONS.get(e.name)?.kind === 'timeseries' || e.name === 'csum' || e.name === 'mavg')
    if (e.kind === 'call' && nullSkipping && e.args.length > 0) {
      seriesArgs.add(exprKey(e.args[0]))
    }
    children(e).forEach(walkSeries)
  }
  items.forEach((i) => walkSeries(i.expr))
  if (seriesArgs.size === 1) {
    const arg = JSON.parse([...seriesArgs][0]) as Expr
    if (arg.kind === 'col') {
      whereParts.push(`${lookup(arg, whereCtx).sql} IS NOT NULL`)
    }
  }
  return whereParts
}

/**
 * `__w`, a row's INTERVAL window: its number since a lower time bound of the WHERE clause when
 * there is one (see windowIndex), else its aligned start; with SLIDING, a cross join repeats a
 * row for every window that still covers it, with the condition that keeps only those.
 */
function windowColumn(
  shape: QueryShape,
  env: PlanEnv,
  w: SqlWriter,
  whereCtx: CompileCtx,
): { sql: string; crossJoin?: string; where?: string; windowNumber?: WindowIndex } | undefined {
  const { stmt, src, window } = shape
  if (window === undefined || src?.ts === undefined) {
    return undefined
  }
  const tsRaw = whereCtx.scope.get(src.ts)?.sql as string
  if (window.months !== undefined) {
    // natural months: the window number since January 1900 and its start, in integer SQL
    const m = monthWindowSql(window.months, window.offset, window.months.precision, (a, b) => w.dialect.quotient(a, b), (a, b) => w.dialect.floorDiv(a, b))
    const indexSql = m.indexSql(tsRaw)
    return { sql: indexSql, windowNumber: { base: 0n, indexSql, startSql: m.startSql } }
  }
  const extra = extraWindows(window)
  // Grafana-style queries bound the time from below; from the offset on, one `%` aligns
  const lo = stmt.where === undefined ? undefined : timeRange(stmt.where, whereCtx, src.ts).lo
  const align = alignSql(tsRaw, window, lo !== undefined && lo >= window.offset)
  if (extra === 0 && lo !== undefined && env.windowNumbers !== false) {
    const windowNumber = windowIndex(tsRaw, window, lo, (a, b) => w.dialect.quotient(a, b))
    return { sql: windowNumber.indexSql, windowNumber }
  }
  if (extra === 0) {
    return { sql: align }
  }
  // a row belongs to every sliding window that still covers it
  const js = Array.from({ length: extra + 1 }, (_v, j) => `(${j})`).join(', ')
  const start = `(${align} - sw.j * ${window.sliding})`
  return { sql: start, crossJoin: ` CROSS JOIN (VALUES ${js}) AS sw(j)`, where: `${tsRaw} < ${start} + ${window.interval}` }
}
