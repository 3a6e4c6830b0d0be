/**
 * HISTOGRAM(x, bin_type, bin_description, normalized): one row per bin and group, each a VARCHAR
 * `{"lower_bin":%g, "upper_bin":%g, "count":n}` (the count as `%lf` of the share when normalized),
 * as TDengine prints it. A value counts in the bin with lower < x <= upper. The bins are known at
 * plan time, so each is one filtered count; `unnest` turns the group's list into rows and a
 * second, zipped `unnest` of the bin numbers keeps them in order.
 */
import { TD, TdError } from '../../td-error.js'
import type { Expr } from './ast.js'
import type { Compiled, CompileCtx } from './compile-context.js'
import { numberArg, paraValue } from './agg-extra.js'
import { isNumeric } from './type-info.js'

/** C's `%g`: six significant digits, trailing zeros dropped, exponent form outside 1e-4..1e6 */
export function formatG(x: number): string {
  if (Number.isNaN(x)) {
    return 'nan'
  }
  if (!Number.isFinite(x)) {
    return x > 0 ? 'inf' : '-inf'
  }
  if (x === 0) {
    return Object.is(x, -0) ? '-0' : '0'
  }
  const [mant, expText] = x.toExponential(5).split('e')
  const exp = Number(expText)
  const strip = (s: string): string => (s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s)
  if (exp < -4 || exp >= 6) {
    return `${strip(mant)}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`
  }
  return strip(x.toFixed(5 - exp))
}

function badBins(why: string): TdError {
  return paraValue(`histogram ${why}`)
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    throw badBins('bin_description is not valid JSON')
  }
}

/** the bin boundaries a bin_type and bin_description describe (TDengine's rules and limits) */
export function binBoundaries(binType: string, description: string): number[] {
  const desc = parseJson(description)
  const type = binType.toLowerCase()
  if (type === 'user_input') {
    if (!Array.isArray(desc) || desc.length < 2 || !desc.every((v) => typeof v === 'number')) {
      throw badBins('user_input needs a JSON array of at least two numbers')
    }
    const bins = desc as number[]
    if (bins.some((v, i) => i > 0 && v <= bins[i - 1])) {
      throw badBins('user_input bins must be in increasing order')
    }
    return bins
  }
  if (type !== 'linear_bin' && type !== 'log_bin') {
    throw badBins('bin_type must be user_input, linear_bin or log_bin')
  }
  const o = (typeof desc === 'object' && desc !== null ? desc : {}) as Record<string, unknown>
  const { start, width, factor, count, infinity } = o
  if (typeof start !== 'number' || typeof count !== 'number' || typeof infinity !== 'boolean' || !Number.isInteger(count) || count <= 0 || count > 1000) {
    throw badBins('bin_description needs start, count (1 to 1000) and infinity')
  }
  const bins: number[] = []
  for (let i = 0; i <= count; i++) {
    if (type === 'linear_bin') {
      if (typeof width !== 'number' || width === 0 || factor !== undefined) {
        throw badBins('linear_bin needs a non-zero width')
      }
      bins.push(start + i * width)
    } else {
      if (typeof factor !== 'number' || factor <= 0 || factor === 1 || start === 0 || width !== undefined) {
        throw badBins('log_bin needs a positive factor other than 1 and a non-zero start')
      }
      bins.push(start * factor ** i)
    }
  }
  if (!bins.every(Number.isFinite)) {
    throw badBins('bins overflow')
  }
  if (infinity) {
    // ascending or descending (a log factor below 1), the open ends go on the outside
    const ascending = bins[bins.length - 1] > bins[0]
    bins.unshift(ascending ? -Infinity : Infinity)
    bins.push(ascending ? Infinity : -Infinity)
  }
  // a log factor below 1 counts down: the bins are the same intervals, listed upwards
  return bins.sort((a, b) => a - b)
}

/** compiles HISTOGRAM in a grouped query; `x` is its first argument inside the aggregate */
export function histogramCall(e: Expr & { kind: 'call' }, x: Compiled, ctx: CompileCtx): Compiled {
  if (!isNumeric(x.type.type)) {
    throw new TdError(TD.FUNC_FUNTION_PARA_TYPE, 'Invalid function para type')
  }
  const [, typeArg, descArg, normArg] = e.args
  if (typeArg?.kind !== 'str' || descArg?.kind !== 'str') {
    throw new TdError(TD.FUNC_FUNTION_PARA_TYPE, 'Invalid function para type')
  }
  const normalized = numberArg(normArg)
  if (normalized !== 0 && normalized !== 1) {
    throw paraValue('normalized must be 0 or 1')
  }
  const bounds = binBoundaries(typeArg.value, descArg.value)
  const p = ctx.sql
  const d = p.dialect
  const dbl = p.physType('DOUBLE')
  const v = `CAST(${x.sql} AS ${dbl})`
  const lit = (n: number): string => `CAST(${n} AS ${dbl})`
  const counts: string[] = []
  for (let i = 0; i + 1 < bounds.length; i++) {
    const tests = [`${v} IS NOT NULL`]
    if (bounds[i] !== -Infinity) {
      tests.push(`${v} > ${lit(bounds[i])}`)
    }
    if (bounds[i + 1] !== Infinity) {
      tests.push(`${v} <= ${lit(bounds[i + 1])}`)
    }
    counts.push(`count(CASE WHEN ${tests.join(' AND ')} THEN 1 END)`)
  }
  // the share is of the values that fell in some bin
  const total = counts.map((c) => `CAST(${c} AS ${dbl})`).join(' + ')
  const rows = counts.map((c, i) => {
    const head = p.literal(`{"lower_bin":${formatG(bounds[i])}, "upper_bin":${formatG(bounds[i + 1])}, "count":`, { type: 'VARCHAR', length: 0 })
    const n = normalized === 1 ? d.fixed6(`(CASE WHEN (${total}) = 0 THEN ${lit(0)} ELSE CAST(${c} AS ${dbl}) / (${total}) END)`) : d.castText(c)
    return `(${head} || ${n} || '}')`
  })
  if (ctx.agg !== undefined) {
    ctx.agg.rowOrder = `unnest(ARRAY[${counts.map((_c, i) => i).join(', ')}])`
  }
  return { sql: `unnest(ARRAY[${rows.join(', ')}])`, type: { type: 'VARCHAR', length: 510 } }
}
