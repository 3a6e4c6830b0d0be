/**
 * TDengine's statistical aggregates beyond the SQL staples: VAR_POP, PERCENTILE, APERCENTILE,
 * MODE, HYPERLOGLOG, ELAPSED and IRATE. Each returns one value per group, so they compile like
 * AVG over the grouped scan `b`.
 */
import { TD, TdError } from '../../td-error.js'
import type { Expr } from './ast.js'
import type { Compiled, CompileCtx } from './compile-context.js'
import { fixed, isNumeric } from './type-info.js'
import { ticksPerMs } from './time-range.js'
import { durationToTicks } from './window.js'

export function paraValue(what: string): TdError {
  return new TdError(TD.FUNC_FUNTION_PARA_VALUE, `Invalid function para value: ${what}`)
}

function paraType(): TdError {
  return new TdError(TD.FUNC_FUNTION_PARA_TYPE, 'Invalid function para type')
}

/** a numeric literal argument (optionally negated), as a number */
export function numberArg(e: Expr | undefined): number {
  if (e?.kind === 'num') {
    return Number(e.text)
  }
  if (e?.kind === 'unary' && e.op === '-' && e.expr.kind === 'num') {
    return -Number(e.expr.text)
  }
  throw paraType()
}

/** an integer literal argument within [lo, hi] */
export function intArg(e: Expr | undefined, lo: number, hi: number, what: string): number {
  const n = numberArg(e)
  if (!Number.isInteger(n)) {
    throw paraType()
  }
  if (n < lo || n > hi) {
    throw paraValue(`${what} must be in [${lo}, ${hi}]`)
  }
  return n
}

/** a percentile argument p in [0, 100], as the fraction backend quantiles take */
function fractionArg(e: Expr): string {
  const p = numberArg(e)
  if (p < 0 || p > 100) {
    throw paraValue('percentile must be in [0, 100]')
  }
  return String(p / 100)
}

/** a time unit argument (`1s`, `1a`...) in ticks; undefined when absent (one tick) */
export function unitArg(e: Expr | undefined, ctx: CompileCtx): bigint {
  if (e === undefined) {
    return 1n
  }
  if (e.kind !== 'duration') {
    throw paraType()
  }
  const ticks = durationToTicks(e.duration, ctx.precision)
  if (ticks <= 0n) {
    throw paraValue('time unit is shorter than the database precision')
  }
  return ticks
}

const EXTRA = new Set(['var_pop', 'percentile', 'apercentile', 'mode', 'hyperloglog', 'elapsed', 'irate', 'twa', 'leastsquares'])

export function isExtraAggregate(name: string): boolean {
  return EXTRA.has(name)
}

/** compiles one of EXTRA; `arg` is the first argument compiled inside the aggregate */
export function extraAggregate(e: Expr & { kind: 'call' }, arg: Compiled, ctx: CompileCtx): Compiled {
  const p = ctx.sql
  const d = p.dialect
  const dbl = p.physType('DOUBLE')
  const t = arg.type.type
  const numericOnly = (): void => {
    if (!isNumeric(t) && t !== 'NULL') {
      throw paraType()
    }
  }
  const x = `CAST(${arg.sql} AS ${dbl})`
  switch (e.name) {
    case 'var_pop':
      numericOnly()
      return { sql: `var_pop(${x})`, type: fixed('DOUBLE') }
    case 'hyperloglog':
      // exact distinct count: TDengine's estimate is exact at the cardinalities a sketch is unsure of
      return { sql: `count(DISTINCT ${arg.sql})`, type: fixed('BIGINT') }
    case 'mode':
      return { sql: d.mode(arg.sql), type: arg.type }
    case 'percentile': {
      numericOnly()
      const fractions = e.args.slice(1).map(fractionArg)
      if (fractions.length === 1) {
        return { sql: d.quantile(x, fractions[0]), type: fixed('DOUBLE') }
      }
      // several percentiles: one VARCHAR `[v1, v2]`, each printed with six decimals
      const parts = fractions.map((f) => d.fixed6(d.quantile(x, f)))
      return { sql: `('[' || ${parts.join(` || ', ' || `)} || ']')`, type: { type: 'VARCHAR', length: 3198 } }
    }
    case 'apercentile': {
      numericOnly()
      const algo = e.args[2]
      if (algo !== undefined && (algo.kind !== 'str' || !['default', 't-digest'].includes(algo.value.toLowerCase()))) {
        throw paraValue('algorithm must be "default" or "t-digest"')
      }
      // the exact percentile: within the error bounds of either approximation
      return { sql: d.quantile(x, fractionArg(e.args[1])), type: fixed('DOUBLE') }
    }
    case 'elapsed':
      return elapsed(e, arg, ctx)
    case 'irate':
      numericOnly()
      return irate(arg, ctx)
    case 'twa':
      numericOnly()
      return twa(e, arg, ctx)
    case 'leastsquares':
      numericOnly()
      return leastSquares(e, arg, ctx)
  }
  throw new TdError(TD.PAR_INVALID_FUNCTION_NAME, `Invalid function name: ${e.name}`)
}

function tsOf(ctx: CompileCtx): string {
  const ts = ctx.tsName === undefined ? undefined : ctx.scope.get(ctx.tsName)?.sql
  if (ts === undefined) {
    throw new TdError(TD.PAR_INVALID_FIRST_COLUMN, 'First column must be timestamp')
  }
  return ts
}

/**
 * ELAPSED(ts[, unit]): the time the data covers, in units. In an INTERVAL window the span is the
 * window clipped to the first and last timestamp of the whole partition, so inner windows count
 * their full length, as TDengine documents.
 */
function elapsed(e: Expr & { kind: 'call' }, arg: Compiled, ctx: CompileCtx): Compiled {
  const ts = tsOf(ctx)
  if (arg.sql !== ts) {
    throw new TdError(TD.FUNC_FUNTION_PARA_TYPE, 'Invalid function para type: elapsed needs the primary timestamp column')
  }
  const unit = unitArg(e.args[1], ctx)
  const dbl = ctx.sql.physType('DOUBLE')
  let span = `(max(${ts}) - min(${ts}))`
  if (ctx.window !== undefined) {
    const keys = [...(ctx.agg?.keys.values() ?? [])]
    const over = `OVER (${keys.length > 0 ? `PARTITION BY ${keys.join(', ')}` : ''})`
    const w = ctx.window.w
    const end = `least(${w} + ${ctx.window.spec.interval}, max(max(${ts})) ${over})`
    const start = `greatest(${w}, min(min(${ts})) ${over})`
    span = `(${end} - ${start})`
  }
  return { sql: `(CAST(${span} AS ${dbl}) / ${unit})`, type: fixed('DOUBLE') }
}

/**
 * IRATE(x): the rate per second between the last two non-NULL points; after a drop (a counter
 * reset) the last value alone over that time. One point gives 0.
 */
function irate(arg: Compiled, ctx: CompileCtx): Compiled {
  const ts = tsOf(ctx)
  const dbl = ctx.sql.physType('DOUBLE')
  const x = `CAST(${arg.sql} AS ${dbl})`
  const nth = (v: string, n: number): string => `((array_agg(${v} ORDER BY ${ts} DESC) FILTER (WHERE ${arg.sql} IS NOT NULL))[${n}])`
  const last = nth(x, 1)
  const prev = nth(x, 2)
  const secs = `(CAST(${nth(ts, 1)} - ${nth(ts, 2)} AS ${dbl}) / ${Number(ticksPerMs(ctx.precision)) * 1000})`
  const delta = `(CASE WHEN ${last} >= ${prev} THEN ${last} - ${prev} ELSE ${last} END)`
  const sql = `(CASE WHEN count(${arg.sql}) = 0 THEN NULL WHEN count(${arg.sql}) = 1 THEN CAST(0 AS ${dbl}) ELSE ${delta} / ${secs} END)`
  return { sql, type: fixed('DOUBLE') }
}

/** the scan column of a LEASTSQUARES or TWA call (agg-rows.ts) */
export function aggRowColumnName(e: Expr): string {
  return `__aggrow:${JSON.stringify(e)}`
}

function rowColumn(e: Expr, ctx: CompileCtx): string {
  const ref = ctx.scope.get(aggRowColumnName(e))?.sql
  if (ref === undefined) {
    throw new TdError(TD.PAR_INTERNAL_ERROR, 'per-row column missing')
  }
  return ref
}

/**
 * TWA(x): the time-weighted average of the non-NULL points, the trapezoids between neighbours
 * over the time they span; one point is its own average. Inside an INTERVAL window the curve is
 * cut at the window's edges, the value there interpolated from the points outside it.
 */
function twa(e: Expr & { kind: 'call' }, arg: Compiled, ctx: CompileCtx): Compiled {
  const ts = tsOf(ctx)
  const dbl = ctx.sql.physType('DOUBLE')
  const y = `CAST(${arg.sql} AS ${dbl})`
  if (ctx.window !== undefined) {
    // per-row area and length clipped to the row's INTERVAL window (twa-window.ts)
    const length = ctx.scope.get(`${aggRowColumnName(e)}:length`)?.sql
    if (length === undefined) {
      throw new TdError(TD.PAR_WINDOW_NOT_ALLOWED_FUNC, 'twa is only supported in an INTERVAL window without SLIDING or natural month/year units')
    }
    const covered = `sum(${length})`
    const sql = `(CASE WHEN count(${arg.sql}) = 0 THEN NULL WHEN ${covered} = 0 THEN avg(${y}) ELSE sum(${rowColumn(e, ctx)}) / CAST(${covered} AS ${dbl}) END)`
    return { sql, type: fixed('DOUBLE') }
  }
  const valued = `(CASE WHEN ${arg.sql} IS NOT NULL THEN ${ts} END)`
  const span = `(max(${valued}) - min(${valued}))`
  const area = `sum(${y} * CAST(${rowColumn(e, ctx)} AS ${dbl}))`
  const sql = `(CASE WHEN count(${arg.sql}) = 0 THEN NULL WHEN ${span} = 0 THEN avg(${y}) ELSE ${area} / 2 / CAST(${span} AS ${dbl}) END)`
  return { sql, type: fixed('DOUBLE') }
}

/**
 * LEASTSQUARES(y, start, step): the least-squares line through (start + step * i, y_i) over the
 * non-NULL values in time order, as TDengine prints it: `{slop:%.6f, intercept:%.6f}`; NULL when
 * the line is undetermined (one point).
 */
function leastSquares(e: Expr & { kind: 'call' }, arg: Compiled, ctx: CompileCtx): Compiled {
  const p = ctx.sql
  const d = p.dialect
  const dbl = p.physType('DOUBLE')
  const start = numberArg(e.args[1])
  const step = numberArg(e.args[2])
  const y = `CAST(${arg.sql} AS ${dbl})`
  const x = `(CASE WHEN ${arg.sql} IS NOT NULL THEN CAST(${start} AS ${dbl}) + CAST(${step} AS ${dbl}) * CAST(${rowColumn(e, ctx)} - 1 AS ${dbl}) END)`
  const n = `CAST(count(${arg.sql}) AS ${dbl})`
  const sx = `sum(${x})`
  const det = `(${n} * sum(${x} * ${x}) - ${sx} * ${sx})`
  const slope = `((${n} * sum(${x} * ${y}) - ${sx} * sum(${y})) / ${det})`
  const intercept = `((sum(${y}) - ${slope} * ${sx}) / ${n})`
  const text = `('{slop:' || ${d.fixed6(slope)} || ', intercept:' || ${d.fixed6(intercept)} || '}')`
  return { sql: `(CASE WHEN count(${arg.sql}) < 2 OR ${det} = 0 THEN NULL ELSE ${text} END)`, type: { type: 'VARCHAR', length: 126 } }
}
