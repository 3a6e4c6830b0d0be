/**
 * The expression compiler: AST expressions to backend SQL with their TDengine types, function
 * calls (scalar, aggregate, selection, DIFF/DERIVATIVE, system) included; they recurse into one
 * another, so they share this file.
 */
import { TD, TdError } from '../../td-error.js'
import { todayTicks } from '../time.js'
import type { Dialect } from '../../storage/dialect.js'
import type { TdType } from '../../storage/td-types.js'
import type { Expr } from './ast.js'
import type { Companion, Compiled, CompileCtx, Ref } from './compile-context.js'
import { jsonCompare, jsonContains, jsonMember, jsonStringText } from './compile-json.js'
import { exprKey, pseudoRole } from './expr-walk.js'
import type { FuncSpec } from './func-spec.js'
import { FUNCTIONS, SERVER_VERSION } from './functions.js'
import { extraAggregate, isExtraAggregate } from './agg-extra.js'
import { histogramCall } from './histogram.js'
import { rowsCall } from './rows-funcs.js'
import { fixed, isNumeric, isSignedInt, isUnsignedInt, type TypeInfo } from './type-info.js'
import { TBNAME_TYPE } from './sources.js'
import { castSql } from './scalar-cast.js'
import { scalarCall } from './scalar-call.js'
import { isTimeCall, ticksPerMs, timeConst, timeConstIfTimestamp } from './time-range.js'
import { durationToTicks } from './window.js'

function invalidColumn(name: string): TdError {
  return new TdError(TD.PAR_INVALID_COLUMN, `Invalid column name: ${name}`)
}

export function lookup(e: Expr & { kind: 'col' }, ctx: CompileCtx): Ref {
  if (e.table !== undefined && !ctx.qualifiers.has(e.table)) {
    throw invalidColumn(`${e.table}.${e.name}`)
  }
  // a join's columns are in scope as `qualifier.name`
  const direct = (e.table === undefined ? undefined : ctx.scope.get(`${e.table}.${e.name}`)) ?? ctx.scope.get(e.name)
  if (direct?.ambiguous === true) {
    throw new TdError(TD.PAR_AMBIGUOUS_COLUMN, `Column ambiguously defined: ${e.name}`)
  }
  if (direct !== undefined) {
    return direct
  }
  if ((e.name === '_rowts' || e.name === '_c0') && ctx.tsName !== undefined) {
    const ts = ctx.scope.get(ctx.tsName)
    if (ts !== undefined) {
      return ts
    }
  }
  throw invalidColumn(e.name)
}

const DOUBLE = fixed('DOUBLE')
const BOOL = fixed('BOOL')

/** Compiles an AST expression into backend SQL in the given context. */
export function compile(e: Expr, ctx: CompileCtx): Compiled {
  const p = ctx.sql
  // grouped query: a whole grouping expression is a key
  if (ctx.agg !== undefined && !ctx.inAgg) {
    const key = ctx.agg.keys.get(exprKey(e))
    if (key !== undefined) {
      return { sql: key, type: typeOfKey(e, ctx) }
    }
  }
  switch (e.kind) {
    case 'num':
      if (e.isFloat) {
        return { sql: `CAST(${e.text} AS ${p.physType('DOUBLE')})`, type: DOUBLE }
      }
      return { sql: `CAST(${BigInt(e.text).toString()} AS ${p.physType('BIGINT')})`, type: fixed('BIGINT') }
    case 'str':
      return { sql: p.literal(e.value, fixed('VARCHAR')), type: { type: 'VARCHAR', length: Buffer.byteLength(e.value) } }
    case 'bool':
      return { sql: e.value ? 'TRUE' : 'FALSE', type: BOOL }
    case 'null':
      return { sql: 'NULL', type: fixed('NULL') }
    case 'duration':
      return { sql: durationToTicks(e.duration, ctx.precision).toString(), type: fixed('BIGINT') }
    case 'star':
      throw new TdError(TD.PAR_SYNTAX_ERROR, 'syntax error near "*"')
    case 'col':
      return compileCol(e, ctx)
    case 'call':
      return compileCall(e, ctx)
    case 'unary': {
      const inner = compile(e.expr, ctx)
      if (e.op === 'NOT') {
        return { sql: `(NOT ${inner.sql})`, type: BOOL }
      }
      if (e.op === '~') {
        return { sql: `(~ CAST(${inner.sql} AS ${p.physType('BIGINT')}))`, type: fixed('BIGINT') }
      }
      if (e.op === '+') {
        return inner
      }
      return { sql: `(- CAST(${inner.sql} AS ${p.physType('DOUBLE')}))`, type: DOUBLE }
    }
    case 'binary':
      return compileBinary(e, ctx)
    case 'json':
      return e.op === '->' ? jsonMember(compile(e.expr, ctx), e.key, p) : jsonContains(compile(e.expr, ctx), e.key, p)
    case 'between': {
      if (e.expr.kind === 'json' && e.expr.op === '->') {
        const lo = compile({ kind: 'binary', op: '>=', left: e.expr, right: e.low }, ctx)
        const hi = compile({ kind: 'binary', op: '<=', left: e.expr, right: e.high }, ctx)
        return { sql: `(${e.not ? 'NOT ' : ''}(${lo.sql} AND ${hi.sql}))`, type: BOOL }
      }
      const x = compile(e.expr, ctx)
      const lo = compileAgainst(e.low, x.type, ctx)
      const hi = compileAgainst(e.high, x.type, ctx)
      return { sql: `(${x.sql} ${e.not ? 'NOT ' : ''}BETWEEN ${lo.sql} AND ${hi.sql})`, type: BOOL }
    }
    case 'in': {
      if (e.expr.kind === 'json' && e.expr.op === '->') {
        // a member IN constants: each compared within its kind, as `=` is
        const member = e.expr
        const eqs = e.list.map((v) => compile({ kind: 'binary', op: '=', left: member, right: v }, ctx).sql)
        return { sql: `(${e.not ? 'NOT ' : ''}(${eqs.join(' OR ')}))`, type: BOOL }
      }
      const byTid = tbnameToTid(e.expr, e.list, ctx)
      if (byTid !== undefined) {
        return { sql: byTid.length === 0 ? (e.not ? 'TRUE' : 'FALSE') : `(${ctx.tid?.raw} ${e.not ? 'NOT ' : ''}IN (${byTid.join(', ')}))`, type: BOOL }
      }
      const x = compile(e.expr, ctx)
      const list = e.list.map((v) => compileAgainst(v, x.type, ctx).sql)
      return { sql: `(${x.sql} ${e.not ? 'NOT ' : ''}IN (${list.join(', ')}))`, type: BOOL }
    }
    case 'like': {
      const x = e.expr.kind === 'json' && e.expr.op === '->' ? jsonStringText(compile(e.expr.expr, ctx), e.expr.key, p) : compile(e.expr, ctx)
      const pat = compile(e.pattern, ctx)
      const d = ctx.sql.dialect
      let sql: string
      if (e.op === 'LIKE') {
        sql = `(${x.sql} ${e.not ? 'NOT ' : ''}LIKE ${pat.sql} ESCAPE ${d.quoteString('\\')})`
      } else {
        const m = d.regexMatch(x.sql, pat.sql)
        sql = (e.op === 'NMATCH') !== e.not ? `(NOT ${m})` : `(${m})`
      }
      return { sql, type: BOOL }
    }
    case 'isNull': {
      const x = compile(e.expr, ctx)
      return { sql: `(${x.sql} IS ${e.not ? 'NOT ' : ''}NULL)`, type: BOOL }
    }
    case 'case': {
      const operand = e.operand === undefined ? undefined : compile(e.operand, ctx)
      const whens = e.whens.map((w) => ({
        when: operand === undefined ? compile(w.when, ctx) : compileAgainst(w.when, operand.type, ctx),
        then: compile(w.then, ctx),
      }))
      const elseC = e.else === undefined ? undefined : compile(e.else, ctx)
      const type = whens.map((w) => w.then.type).find((t) => t.type !== 'NULL') ?? elseC?.type ?? fixed('NULL')
      const sql =
        `(CASE${operand === undefined ? '' : ` ${operand.sql}`} ` +
        whens.map((w) => `WHEN ${w.when.sql} THEN ${w.then.sql}`).join(' ') +
        (elseC === undefined ? '' : ` ELSE ${elseC.sql}`) +
        ' END)'
      return { sql, type }
    }
    case 'cast':
      return castSql(compile(e.expr, ctx), e.expr, castType(e.type.name, e.type.length), ctx)
  }
}

function typeOfKey(e: Expr, ctx: CompileCtx): TypeInfo {
  // compile without the key shortcut to learn the type
  return compile(e, { ...ctx, agg: undefined }).type
}

function castType(name: string, length?: number): TypeInfo {
  const n = name.toLowerCase()
  const map: Record<string, TdType> = {
    bool: 'BOOL',
    tinyint: 'TINYINT',
    smallint: 'SMALLINT',
    int: 'INT',
    integer: 'INT',
    bigint: 'BIGINT',
    'tinyint unsigned': 'TINYINT UNSIGNED',
    'smallint unsigned': 'SMALLINT UNSIGNED',
    'int unsigned': 'INT UNSIGNED',
    'bigint unsigned': 'BIGINT UNSIGNED',
    float: 'FLOAT',
    double: 'DOUBLE',
    binary: 'VARCHAR',
    varchar: 'VARCHAR',
    nchar: 'NCHAR',
    timestamp: 'TIMESTAMP',
  }
  const t = map[n]
  if (t === undefined) {
    throw new TdError(TD.PAR_SYNTAX_ERROR, `syntax error near "${name}"`)
  }
  if (t === 'VARCHAR' || t === 'NCHAR') {
    return { type: t, length: length ?? 64 }
  }
  return fixed(t)
}

/** compiles `e` where it is compared with a value of type `t` (datetime strings become ticks) */
function compileAgainst(e: Expr, t: TypeInfo, ctx: CompileCtx): Compiled {
  if (t.type === 'TIMESTAMP') {
    const v = timeConst(e, ctx)
    if (v !== undefined) {
      return { sql: v.toString(), type: fixed('TIMESTAMP') }
    }
  }
  return compile(e, ctx)
}

function compileCol(e: Expr & { kind: 'col' }, ctx: CompileCtx): Compiled {
  const role = pseudoRole(e)
  if (role !== undefined) {
    if (ctx.window === undefined || ctx.inAgg) {
      throw new TdError(TD.PAR_INVALID_WINDOW_PC, '_WSTART, _WEND and _WDURATION can only be used in window query')
    }
    const { w, spec, end } = ctx.window
    if (role === 'wstart') {
      return { sql: w, type: fixed('TIMESTAMP') }
    }
    if (end !== undefined) {
      return role === 'wend' ? { sql: end, type: fixed('TIMESTAMP') } : { sql: `CAST(${end} - ${w} AS ${ctx.sql.physType('BIGINT')})`, type: fixed('BIGINT') }
    }
    if (role === 'wend') {
      return { sql: `(${w} + ${spec.interval})`, type: fixed('TIMESTAMP') }
    }
    return { sql: `CAST(${spec.interval} AS ${ctx.sql.physType('BIGINT')})`, type: fixed('BIGINT') }
  }
  const ref = lookup(e, ctx)
  if (ctx.agg !== undefined && !ctx.inAgg) {
    // a plain column in a grouped query: only through a single selection function's row
    const comp = ctx.agg.companion
    if (comp === undefined || ctx.tsName === undefined) {
      // TDengine: without GROUP BY or a window the whole result is one group (0x260C)
      if (ctx.agg.oneGroup === true) {
        throw new TdError(TD.PAR_NOT_SINGLE_GROUP, 'Not a single-group group function')
      }
      throw new TdError(TD.PAR_GROUPBY_LACK_EXPRESSION, 'Not a GROUP BY expression')
    }
    return { sql: companionSql(ref.sql, comp, ctx), type: ref.type }
  }
  return { sql: ref.sql, type: ref.type }
}

function companionSql(value: string, comp: Companion, ctx: CompileCtx): string {
  const d = ctx.sql.dialect
  const ts = ctx.scope.get(ctx.tsName as string)?.sql as string
  const arg = compile(comp.arg, { ...ctx, inAgg: true }).sql
  switch (comp.fn) {
    // the companion value may itself be NULL on the picked row, hence the NULL-keeping forms
    case 'first':
      return argMinNull(d, value, `(CASE WHEN ${arg} IS NOT NULL THEN ${ts} END)`)
    case 'last':
      return argMaxNull(d, value, `(CASE WHEN ${arg} IS NOT NULL THEN ${ts} END)`)
    case 'last_row':
      return argMaxNull(d, value, ts)
    case 'min':
      return argMinNull(d, value, arg)
    case 'max':
      return argMaxNull(d, value, arg)
  }
}

/**
 * The value at the max key even when it is NULL (argMax skips NULL values). Without a dialect
 * spelling: when the last non-NULL value is not at the overall max key, the value there is NULL.
 */
function argMaxNull(d: Dialect, value: string, key: string): string {
  if (d.argMaxNull !== undefined) {
    return d.argMaxNull(value, key)
  }
  return `(CASE WHEN max(${key}) = max(CASE WHEN ${value} IS NOT NULL THEN ${key} END) THEN ${d.argMax(value, key)} END)`
}

/** argMinNull, the mirror image of argMaxNull */
function argMinNull(d: Dialect, value: string, key: string): string {
  return `(CASE WHEN min(${key}) = min(CASE WHEN ${value} IS NOT NULL THEN ${key} END) THEN ${d.argMin(value, key)} END)`
}

function compileCall(e: Expr & { kind: 'call' }, ctx: CompileCtx): Compiled {
  const spec = FUNCTIONS.get(e.name)
  const p = ctx.sql
  if (spec === undefined) {
    throw new TdError(TD.PAR_INVALID_FUNCTION_NAME, `Invalid function name: ${e.name}`)
  }
  const starArg = e.args.length === 1 && e.args[0].kind === 'star'
  if (e.args.length < spec.minArgs || e.args.length > spec.maxArgs || (starArg && e.name !== 'count')) {
    throw new TdError(TD.FUNC_FUNTION_PARA_NUM, 'Invalid function para number')
  }
  if (spec.kind === 'system') {
    return systemCall(e.name, ctx)
  }
  if (spec.kind === 'timeseries') {
    return seriesCall(e, ctx)
  }
  if (spec.kind === 'rows') {
    return rowsCall(e, compile(e.args[0], { ...ctx, series: undefined }), ctx)
  }
  if (spec.kind === 'scalar') {
    const args = e.args.map((a) => compile(a, ctx))
    const own = scalarCall({ name: e.name, args, raw: e.args, ctx })
    if (own !== undefined) {
      return own
    }
    const type = spec.result(args.map((a) => a.type))
    const fn = e.name === 'ifnull' ? 'coalesce' : e.name === 'char_length' ? 'length' : e.name === 'length' ? 'octet_length' : e.name
    if (e.name === 'log' && args.length === 2) {
      // TDengine log(x, base); SQL spells it as ln ratio so both backends agree
      return { sql: `(ln(${args[0].sql}) / ln(${args[1].sql}))`, type }
    }
    if (e.name === 'log') {
      return { sql: `ln(${args[0].sql})`, type }
    }
    if (e.name === 'length') {
      return { sql: `CAST(octet_length(CAST(${args[0].sql} AS ${p.physType('VARCHAR')})) AS ${p.physType('BIGINT')})`, type }
    }
    if (e.name === 'char_length') {
      return { sql: `CAST(length(${args[0].sql}) AS ${p.physType('BIGINT')})`, type }
    }
    if (e.name === 'sqrt' || e.name === 'pow') {
      return { sql: `${fn}(${args.map((a) => `CAST(${a.sql} AS ${p.physType('DOUBLE')})`).join(', ')})`, type }
    }
    return { sql: `${fn}(${args.map((a) => a.sql).join(', ')})`, type }
  }
  // aggregate / selection
  if (ctx.level === 'where' || ctx.agg === undefined) {
    throw new TdError(TD.PAR_ILLEGAL_USE_AGG_FUNCTION, "There mustn't be aggregation")
  }
  if (ctx.inAgg) {
    throw new TdError(TD.PAR_AGG_FUNC_NESTING, 'Aggregate functions do not support nesting')
  }
  const c = aggregateCall(e, spec, starArg, ctx)
  if (ctx.hoist === undefined) {
    return c
  }
  let lastRow: string | undefined
  if (e.name === 'last_row' && e.args.length === 1) {
    const inner: CompileCtx = { ...ctx, inAgg: true }
    delete inner.hoist
    lastRow = compile(e.args[0], inner).sql
  }
  return { sql: ctx.hoist(c.sql, lastRow), type: c.type }
}

function aggregateCall(e: Expr & { kind: 'call' }, spec: FuncSpec, starArg: boolean, ctx: CompileCtx): Compiled {
  const p = ctx.sql
  const d = p.dialect
  const inner: CompileCtx = { ...ctx, inAgg: true }
  delete inner.hoist
  if (e.name === 'count') {
    if (starArg) {
      return { sql: 'count(*)', type: fixed('BIGINT') }
    }
    return { sql: `count(${compile(e.args[0], inner).sql})`, type: fixed('BIGINT') }
  }
  const arg = compile(e.args[0], inner)
  if (isExtraAggregate(e.name)) {
    return extraAggregate(e, arg, inner)
  }
  if (e.name === 'histogram') {
    return histogramCall(e, arg, inner)
  }
  const type = spec.result([arg.type])
  const t = arg.type.type
  const needNumeric = ['avg', 'sum', 'spread', 'stddev', 'stddev_pop'].includes(e.name)
  // SPREAD also takes timestamps (the span in ticks)
  if (needNumeric && !isNumeric(t) && t !== 'NULL' && !(e.name === 'spread' && t === 'TIMESTAMP')) {
    throw new TdError(TD.FUNC_FUNTION_PARA_TYPE, 'Invalid function para type')
  }
  const ts = ctx.tsName === undefined ? undefined : ctx.scope.get(ctx.tsName)?.sql
  const dbl = p.physType('DOUBLE')
  switch (e.name) {
    case 'avg':
      return { sql: t === 'FLOAT' || t === 'DOUBLE' ? `avg(${arg.sql})` : `CAST(avg(${arg.sql}) AS ${dbl})`, type }
    case 'sum':
      return { sql: `CAST(sum(${arg.sql}) AS ${p.physType(type.type)})`, type }
    case 'spread':
      return { sql: `(CAST(max(${arg.sql}) AS ${dbl}) - CAST(min(${arg.sql}) AS ${dbl}))`, type }
    case 'stddev':
    case 'stddev_pop':
      return { sql: d.stddevPop(`CAST(${arg.sql} AS ${dbl})`), type }
    case 'min':
    case 'max':
      return { sql: `${e.name}(${arg.sql})`, type }
    case 'first':
    case 'last':
    case 'last_row': {
      if (ts === undefined) {
        throw new TdError(TD.PAR_INVALID_FIRST_COLUMN, 'First column must be timestamp')
      }
      if (e.name === 'first') {
        return { sql: d.argMin(arg.sql, ts), type }
      }
      if (e.name === 'last') {
        return { sql: d.argMax(arg.sql, ts), type }
      }
      return { sql: argMaxNull(d, arg.sql, ts), type }
    }
  }
  throw new TdError(TD.PAR_INVALID_FUNCTION_NAME, `Invalid function name: ${e.name}`)
}

/**
 * DIFF(x[, 0|1]) and DERIVATIVE(x, unit, 0|1) as window functions over the previous row of the
 * slice (ordered by ts). The first row of a slice has no previous row and is not output, as in
 * TDengine 3.0-3.2; `ignore_negative` drops (DERIVATIVE) or NULLs (DIFF 1) negative results.
 */
function seriesCall(e: Expr & { kind: 'call' }, ctx: CompileCtx): Compiled {
  const p = ctx.sql
  const series = ctx.series
  if (series === undefined || ctx.inAgg || ctx.level !== 'main') {
    throw new TdError(TD.PAR_WINDOW_NOT_ALLOWED_FUNC, `${e.name} function is not supported here`)
  }
  const x = compile(e.args[0], { ...ctx, series: undefined })
  if (!isNumeric(x.type.type) && x.type.type !== 'BOOL') {
    throw new TdError(TD.FUNC_FUNTION_PARA_TYPE, 'Invalid function para type')
  }
  const spec = FUNCTIONS.get(e.name)
  const type = spec === undefined ? DOUBLE : spec.result([x.type])
  const lagX = `lag(${x.sql}) OVER ${series.over}`
  const flag = (arg: Expr | undefined): number => {
    if (arg === undefined) {
      return 0
    }
    if (arg.kind !== 'num' || arg.isFloat || !['0', '1'].includes(arg.text)) {
      throw new TdError(TD.FUNC_FUNTION_PARA_TYPE, 'Invalid function para type')
    }
    return Number(arg.text)
  }
  series.valid.push(`${lagX} IS NOT NULL`, `${x.sql} IS NOT NULL`)
  if (e.name === 'diff') {
    const t = type.type === 'BIGINT' ? p.physType('BIGINT') : p.physType('DOUBLE')
    const d = `(CAST(${x.sql} AS ${t}) - CAST(${lagX} AS ${t}))`
    return { sql: flag(e.args[1]) === 1 ? `(CASE WHEN ${d} < 0 THEN NULL ELSE ${d} END)` : d, type }
  }
  const unitArg = e.args[1]
  if (unitArg.kind !== 'duration') {
    throw new TdError(TD.FUNC_FUNTION_PARA_TYPE, 'Invalid function para type')
  }
  const unit = durationToTicks(unitArg.duration, ctx.precision)
  const ts = ctx.scope.get(ctx.tsName as string)?.sql as string
  const dbl = p.physType('DOUBLE')
  const d = `((CAST(${x.sql} AS ${dbl}) - CAST(${lagX} AS ${dbl})) / (CAST(${ts} - lag(${ts}) OVER ${series.over} AS ${dbl}) / ${unit}))`
  if (flag(e.args[2]) === 1) {
    series.valid.push(`${d} >= 0`)
  }
  return { sql: d, type }
}

function systemCall(name: string, ctx: CompileCtx): Compiled {
  const p = ctx.sql
  switch (name) {
    case 'server_version':
    case 'client_version':
      return { sql: p.literal(SERVER_VERSION, fixed('VARCHAR')), type: { type: 'VARCHAR', length: 30 } }
    case 'server_status':
      return { sql: `CAST(1 AS ${p.physType('INT')})`, type: fixed('INT') }
    case 'database':
      return { sql: p.literal(ctx.session.defaultDb ?? null, { type: 'VARCHAR', length: 63 }), type: { type: 'VARCHAR', length: 63 } }
    case 'current_user':
    case 'user':
      return { sql: p.literal(ctx.session.user, fixed('VARCHAR')), type: { type: 'VARCHAR', length: 22 } }
    case 'timezone':
      return { sql: p.literal('UTC (UTC, +0000)', fixed('VARCHAR')), type: { type: 'VARCHAR', length: 64 } }
    case 'now':
      return { sql: `CAST(${ctx.now} AS ${p.physType('BIGINT')})`, type: fixed('TIMESTAMP') }
    case 'today': {
      const t = todayTicks(ctx.precision, Number(ctx.now / ticksPerMs(ctx.precision)))
      return { sql: `CAST(${t} AS ${p.physType('BIGINT')})`, type: fixed('TIMESTAMP') }
    }
  }
  throw new TdError(TD.PAR_INVALID_FUNCTION_NAME, `Invalid function name: ${name}`)
}

const COMPARISON = new Set(['=', '!=', '<', '<=', '>', '>='])

function compileBinary(e: Expr & { kind: 'binary' }, ctx: CompileCtx): Compiled {
  const p = ctx.sql
  if (e.op === 'AND' || e.op === 'OR') {
    const l = compile(e.left, ctx)
    const r = compile(e.right, ctx)
    return { sql: `(${l.sql} ${e.op} ${r.sql})`, type: BOOL }
  }
  if (COMPARISON.has(e.op)) {
    const json = jsonComparison(e, ctx)
    if (json !== undefined) {
      return json
    }
  }
  if (e.op === '=' || e.op === '!=') {
    const [name, lit] = e.left.kind === 'col' ? [e.left, e.right] : [e.right, e.left]
    const byTid = tbnameToTid(name, [lit], ctx)
    if (byTid !== undefined) {
      if (byTid.length === 0) {
        return { sql: e.op === '=' ? 'FALSE' : 'TRUE', type: BOOL }
      }
      return { sql: `(${ctx.tid?.raw} ${e.op === '=' ? '=' : '<>'} ${byTid[0]})`, type: BOOL }
    }
  }
  if (COMPARISON.has(e.op)) {
    // a datetime string or NOW expression compared with a timestamp is folded to ticks
    let l: Compiled
    let r: Compiled
    if (e.left.kind === 'str' || e.left.kind === 'duration' || isTimeCall(e.left)) {
      r = compile(e.right, ctx)
      l = compileAgainst(e.left, r.type, ctx)
    } else {
      l = compile(e.left, ctx)
      r = compileAgainst(e.right, l.type, ctx)
    }
    const op = e.op === '!=' ? '<>' : e.op
    return { sql: `(${l.sql} ${op} ${r.sql})`, type: BOOL }
  }
  // timestamp arithmetic stays in integer ticks; constant parts are folded
  if (e.op === '+' || e.op === '-') {
    const folded = timeConstIfTimestamp(e, ctx)
    if (folded !== undefined) {
      return { sql: `CAST(${folded} AS ${p.physType('BIGINT')})`, type: fixed('TIMESTAMP') }
    }
  }
  const l = compile(e.left, ctx)
  const r = compile(e.right, ctx)
  if (e.op === '-' && l.type.type === 'TIMESTAMP' && r.type.type === 'TIMESTAMP') {
    // the distance between two timestamps is a number of ticks, not a time
    return { sql: `(${l.sql} - ${r.sql})`, type: fixed('BIGINT') }
  }
  if ((e.op === '+' || e.op === '-') && l.type.type === 'TIMESTAMP' && (isIntegral(r.type.type) || e.right.kind === 'duration')) {
    return { sql: `(${l.sql} ${e.op} ${r.sql})`, type: fixed('TIMESTAMP') }
  }
  if (e.op === '||') {
    const vc = p.physType('VARCHAR')
    return { sql: `(CAST(${l.sql} AS ${vc}) || CAST(${r.sql} AS ${vc}))`, type: { type: 'VARCHAR', length: l.type.length + r.type.length } }
  }
  if (e.op === '&' || e.op === '|' || e.op === '<<' || e.op === '>>') {
    const bi = p.physType('BIGINT')
    return { sql: `(CAST(${l.sql} AS ${bi}) ${e.op} CAST(${r.sql} AS ${bi}))`, type: fixed('BIGINT') }
  }
  // TDengine arithmetic yields DOUBLE
  const dbl = p.physType('DOUBLE')
  const a = `CAST(${l.sql} AS ${dbl})`
  const b = `CAST(${r.sql} AS ${dbl})`
  if (e.op === '/' || e.op === '%') {
    // a zero divisor gives NULL on every backend (PostgreSQL would fail the query); `%` is C's
    // fmod (the sign of the dividend), spelt with trunc because PostgreSQL has no double `%`
    const divisor = `NULLIF(${b}, 0)`
    // and a quotient past DBL_MAX is inf, as C gives it, where PostgreSQL would fail
    const q = p.dialect.floatArith !== undefined ? p.dialect.floatArith('/', a, b) : `(${a} / ${divisor})`
    const sql = e.op === '/' ? q : `(${a} - ${b} * trunc(${q}))`
    return { sql, type: DOUBLE }
  }
  const op = e.op
  if ((op === '+' || op === '-' || op === '*') && p.dialect.floatArith !== undefined) {
    // inf / 0 as C gives them where the backend's operator would fail the query
    return { sql: p.dialect.floatArith(op, a, b), type: DOUBLE }
  }
  return { sql: `(${a} ${op} ${b})`, type: DOUBLE }
}

const FLIPPED: Record<string, string> = { '=': '=', '!=': '!=', '<': '>', '<=': '>=', '>': '<', '>=': '<=' }
const CONSTANT_KINDS = new Set(['str', 'num', 'bool', 'null'])

/** `jtag->'k' <op> constant` (either way round), see jsonCompare; undefined otherwise */
function jsonComparison(e: Expr & { kind: 'binary' }, ctx: CompileCtx): Compiled | undefined {
  const isMember = (x: Expr): x is Expr & { kind: 'json' } => x.kind === 'json' && x.op === '->'
  if (isMember(e.left) && CONSTANT_KINDS.has(e.right.kind)) {
    return jsonCompare(e.op, compile(e.left.expr, ctx), e.left.key, e.right, ctx.sql)
  }
  if (isMember(e.right) && CONSTANT_KINDS.has(e.left.kind)) {
    return jsonCompare(FLIPPED[e.op], compile(e.right.expr, ctx), e.right.key, e.left, ctx.sql)
  }
  return undefined
}

/**
 * `tbname = 'd1'` / `tbname IN (...)` in a super-table WHERE become `_tid` tests, resolved in the
 * catalog at plan time, so the backend filters on the key column. Undefined when not applicable;
 * names that are no child of this super table drop out of the list.
 */
function tbnameToTid(x: Expr, list: Expr[], ctx: CompileCtx): number[] | undefined {
  if (ctx.tid === undefined || x.kind !== 'col' || x.name !== 'tbname' || ctx.scope.get('tbname')?.type !== TBNAME_TYPE) {
    return undefined
  }
  if (x.table !== undefined && !ctx.qualifiers.has(x.table)) {
    return undefined
  }
  if (!list.every((v) => v.kind === 'str')) {
    return undefined
  }
  const tids: number[] = []
  for (const v of list) {
    const tid = ctx.tid.of((v as { value: string }).value)
    if (tid !== undefined) {
      tids.push(tid)
    }
  }
  return tids
}

function isIntegral(t: TypeInfo['type']): boolean {
  return isSignedInt(t) || isUnsignedInt(t) || t === 'TIMESTAMP'
}
