/**
 * Functions that answer several rows per partition, compiled as window functions over the scan
 * `b` (like DIFF): the row-aligned CSUM, MAVG, STATECOUNT and STATEDURATION, and the selections
 * TOP, BOTTOM, SAMPLE, TAIL and UNIQUE, which keep the rows a ranking picks. Each adds the
 * condition a row must meet to be output to `series.valid`; rows then come out in time order.
 * The partition is PARTITION BY, GROUP BY and the INTERVAL window where TDengine allows them.
 */
import { TD, TdError } from '../../td-error.js'
import type { Expr } from './ast.js'
import type { Compiled, CompileCtx } from './compile-context.js'
import { intArg, numberArg, paraValue, unitArg } from './agg-extra.js'
import { fixed, isNumeric, isSignedInt, isUnsignedInt, type TypeInfo } from './type-info.js'

/** the functions compiled here */
export const ROWS_FUNCS = new Set(['csum', 'mavg', 'statecount', 'stateduration', 'top', 'bottom', 'sample', 'tail', 'unique'])

const STATE_OPS: Record<string, string> = { lt: '<', gt: '>', le: '<=', ge: '>=', ne: '<>', eq: '=' }

/** STATECOUNT/STATEDURATION's condition over the value `x` (backend SQL) */
export function stateCondition(e: Expr & { kind: 'call' }, x: string): string {
  const op = e.args[1]
  if (op?.kind !== 'str') {
    throw new TdError(TD.FUNC_FUNTION_PARA_TYPE, 'Invalid function para type')
  }
  const sqlOp = STATE_OPS[op.value.toLowerCase()]
  if (sqlOp === undefined) {
    throw paraValue('oper must be one of LT, GT, LE, GE, NE, EQ')
  }
  return `(${x} ${sqlOp} ${numberArg(e.args[2])})`
}

/** the scan column numbering a state function's runs (see state-runs.ts) */
export function runColumnName(e: Expr): string {
  return `__run:${JSON.stringify(e)}`
}

function csumType(t: TypeInfo): TypeInfo {
  if (isUnsignedInt(t.type)) {
    return fixed('BIGINT UNSIGNED')
  }
  if (isSignedInt(t.type) || t.type === 'BOOL') {
    return fixed('BIGINT')
  }
  return fixed('DOUBLE')
}

/** compiles one of ROWS_FUNCS; `x` is its first argument compiled for the row */
export function rowsCall(e: Expr & { kind: 'call' }, x: Compiled, ctx: CompileCtx): Compiled {
  const series = ctx.series
  if (series === undefined || ctx.inAgg || ctx.level !== 'main') {
    throw new TdError(TD.PAR_NOT_ALLOWED_FUNC, `${e.name} function is not supported here`)
  }
  const p = ctx.sql
  const ts = series.ts
  const window = (extraPart: string[], order: string, frame = ''): string => {
    const part = [...series.part, ...extraPart]
    return `OVER (${part.length > 0 ? `PARTITION BY ${part.join(', ')} ` : ''}ORDER BY ${order}${frame})`
  }
  const running = ' ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW'
  const numeric = (): void => {
    if (!isNumeric(x.type.type) && x.type.type !== 'NULL' && !(e.name === 'csum' && x.type.type === 'BOOL')) {
      throw new TdError(TD.FUNC_FUNTION_PARA_TYPE, 'Invalid function para type')
    }
  }
  const notNull = `${x.sql} IS NOT NULL`
  switch (e.name) {
    case 'csum': {
      numeric()
      const type = csumType(x.type)
      const v = type.type === 'DOUBLE' ? `CAST(${x.sql} AS ${p.physType('DOUBLE')})` : `CAST(${x.sql} AS ${p.physType(type.type)})`
      series.valid.push(notNull)
      return { sql: `CAST(sum(${v}) ${window([], ts, running)} AS ${p.physType(type.type)})`, type }
    }
    case 'mavg': {
      numeric()
      const k = intArg(e.args[1], 1, 1000, 'k')
      const frame = ` ROWS BETWEEN ${k - 1} PRECEDING AND CURRENT ROW`
      series.valid.push(notNull, `count(${x.sql}) ${window([], ts, frame)} = ${k}`)
      return { sql: `avg(CAST(${x.sql} AS ${p.physType('DOUBLE')})) ${window([], ts, frame)}`, type: fixed('DOUBLE') }
    }
    case 'statecount':
    case 'stateduration':
      return stateCall(e, x, ctx, window, running)
    case 'top':
    case 'bottom': {
      numeric()
      const k = intArg(e.args[1], 1, 100, 'k')
      // ties: the earlier row wins (TDengine picks any of them)
      const rank = `row_number() ${window([], `${x.sql} ${e.name === 'top' ? 'DESC' : 'ASC'} NULLS LAST, ${ts} ASC`)}`
      series.valid.push(notNull, `${rank} <= ${k}`)
      return x
    }
    case 'sample': {
      const k = intArg(e.args[1], 1, 1000, 'k')
      series.valid.push(`row_number() ${window([], 'random()')} <= ${k}`)
      return x
    }
    case 'tail': {
      const k = intArg(e.args[1], 1, 100, 'k')
      const off = e.args[2] === undefined ? 0 : intArg(e.args[2], 0, 100, 'offset_rows')
      const rank = `row_number() ${window([], `${ts} DESC`)}`
      series.valid.push(`${rank} > ${off}`, `${rank} <= ${off + k}`)
      return x
    }
    case 'unique':
      series.valid.push(`row_number() ${window([x.sql], ts)} = 1`)
      return x
  }
  throw new TdError(TD.PAR_INVALID_FUNCTION_NAME, `Invalid function name: ${e.name}`)
}

/**
 * STATECOUNT: consecutive rows meeting the condition so far (-1 on a row that does not); NULL
 * values are skipped (NULL out, the run goes on). STATEDURATION: the time since the run's first
 * row, in units. A run is the rows after one failing row up to the next: the scan numbers them.
 */
function stateCall(
  e: Expr & { kind: 'call' },
  x: Compiled,
  ctx: CompileCtx,
  window: (extraPart: string[], order: string, frame?: string) => string,
  running: string,
): Compiled {
  if (!isNumeric(x.type.type)) {
    throw new TdError(TD.FUNC_FUNTION_PARA_TYPE, 'Invalid function para type')
  }
  const run = ctx.scope.get(runColumnName(e))?.sql
  if (run === undefined) {
    throw new TdError(TD.PAR_INTERNAL_ERROR, `${e.name}: run column missing`)
  }
  const cond = stateCondition(e, x.sql)
  const p = ctx.sql
  const bi = p.physType('BIGINT')
  const ts = ctx.series?.ts as string
  let value: string
  if (e.name === 'statecount') {
    value = `count(CASE WHEN ${cond} THEN 1 END) ${window([run], ts, running)}`
  } else {
    const since = `(${ts} - min(CASE WHEN ${cond} THEN ${ts} END) ${window([run], ts, running)})`
    value = p.dialect.quotient(since, unitArg(e.args[3], ctx).toString())
  }
  return { sql: `(CASE WHEN ${x.sql} IS NULL THEN NULL WHEN ${cond} THEN CAST(${value} AS ${bi}) ELSE CAST(-1 AS ${bi}) END)`, type: fixed('BIGINT') }
}
