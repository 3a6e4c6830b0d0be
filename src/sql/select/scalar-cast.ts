/**
 * CAST with TDengine's semantics on every backend (function reference, CAST usage notes): to an
 * integer type the value is truncated toward zero and wraps around like a C conversion (300 as
 * TINYINT is 44, -1 as INT UNSIGNED 4294967295); strings that are no number convert to 0 (from
 * their leading digits otherwise); to BINARY/NCHAR(n) the text is cut to n characters; a
 * datetime string converts to a timestamp. Nothing here fails on a value.
 */
import { TD, TdError } from '../../td-error.js'
import type { TdType } from '../../storage/td-types.js'
import { parseTimestampString } from '../time.js'
import type { Expr } from './ast.js'
import type { Compiled, CompileCtx } from './compile-context.js'
import { sqlOf } from './scalar-args.js'
import { isoTicks, pad, parts } from './scalar-time.js'
import { isString, type TypeInfo } from './type-info.js'

/** bit width and signedness of each integer type */
const INTS: Partial<Record<TdType, { bits: number; signed: boolean }>> = {
  TINYINT: { bits: 8, signed: true },
  SMALLINT: { bits: 16, signed: true },
  INT: { bits: 32, signed: true },
  BIGINT: { bits: 64, signed: true },
  'TINYINT UNSIGNED': { bits: 8, signed: false },
  'SMALLINT UNSIGNED': { bits: 16, signed: false },
  'INT UNSIGNED': { bits: 32, signed: false },
  'BIGINT UNSIGNED': { bits: 64, signed: false },
  TIMESTAMP: { bits: 64, signed: true },
  BOOL: { bits: 1, signed: false },
}

function range(t: { bits: number; signed: boolean }): [bigint, bigint] {
  return t.signed ? [-(2n ** BigInt(t.bits - 1)), 2n ** BigInt(t.bits - 1) - 1n] : [0n, 2n ** BigInt(t.bits) - 1n]
}

const LEADING_INT = '^\\s*([+-]?[0-9]+)'
const LEADING_FLOAT = '^\\s*([+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?)'

export function castSql(x: Compiled, raw: Expr, target: TypeInfo, ctx: CompileCtx): Compiled {
  const p = ctx.sql
  const d = p.dialect
  const { dbl, text, str } = sqlOf(ctx)
  const src = x.type.type
  const phys = p.physType(target.type, target.length)
  const out = (sql: string): Compiled => ({ sql: `CAST(${sql} AS ${phys})`, type: target })
  if (src === 'NULL') {
    return out('NULL')
  }
  const t = target.type
  const intTarget = t === 'TIMESTAMP' || t === 'BOOL' ? undefined : INTS[t as TdType]
  if (intTarget !== undefined) {
    const from = INTS[src as TdType]
    if (from !== undefined) {
      const [lo, hi] = range(from)
      const [tlo, thi] = range(intTarget)
      if (lo >= tlo && hi <= thi) {
        return out(src === 'BOOL' ? `CAST(${x.sql} AS INTEGER)` : x.sql)
      }
    }
    const wide = d.scalar.wideInt
    let w: string
    if (from !== undefined) {
      w = `CAST(${src === 'BOOL' ? `CAST(${x.sql} AS INTEGER)` : x.sql} AS ${wide})`
    } else if (isString(src)) {
      w = `(CASE WHEN ${x.sql} IS NOT NULL THEN COALESCE(CAST(${d.scalar.regexGroup(x.sql, str(LEADING_INT), 1)} AS ${wide}), 0) END)`
    } else {
      // C converts a double out of the 64-bit range to INT64_MIN (x86); NaN too
      const tr = `trunc(${dbl(x.sql)})`
      w = `(CASE WHEN ${tr} IS NULL THEN NULL WHEN ${tr} >= -9223372036854775808.0 AND ${tr} < 9223372036854775808.0 THEN CAST(${tr} AS ${wide}) ELSE CAST(-9223372036854775808 AS ${wide}) END)`
    }
    const m = `CAST(${(2n ** BigInt(intTarget.bits)).toString()} AS ${wide})`
    const r = `(((${w}) % ${m} + ${m}) % ${m})`
    const half = `CAST(${(2n ** BigInt(intTarget.bits - 1)).toString()} AS ${wide})`
    return out(intTarget.signed ? `(CASE WHEN ${r} >= ${half} THEN ${r} - ${m} ELSE ${r} END)` : r)
  }
  if (t === 'FLOAT' || t === 'DOUBLE') {
    if (isString(src)) {
      return out(`(CASE WHEN ${x.sql} IS NOT NULL THEN COALESCE(${dbl(d.scalar.regexGroup(x.sql, str(LEADING_FLOAT), 1))}, 0) END)`)
    }
    return out(src === 'BOOL' ? `CAST(${x.sql} AS INTEGER)` : x.sql)
  }
  if (t === 'BOOL') {
    if (isString(src)) {
      const v = `lower(trim(${x.sql}))`
      const n = d.scalar.regexGroup(x.sql, str(LEADING_FLOAT), 1)
      return { sql: `(CASE WHEN ${v} = 'true' THEN TRUE WHEN ${v} = 'false' THEN FALSE WHEN ${x.sql} IS NOT NULL THEN COALESCE(${dbl(n)} <> 0, FALSE) END)`, type: target }
    }
    return { sql: src === 'BOOL' ? x.sql : `(${x.sql} <> 0)`, type: target }
  }
  if (t === 'VARCHAR' || t === 'NCHAR') {
    let s = isString(src) ? x.sql : text(x.sql)
    if (src === 'TIMESTAMP') {
      s = timestampText(x.sql, ctx)
    }
    return { sql: `substr(${s}, 1, ${target.length})`, type: target }
  }
  if (t === 'TIMESTAMP') {
    if (raw.kind === 'str') {
      try {
        return out(parseTimestampString(raw.value, ctx.precision).toString())
      } catch {
        throw new TdError(TD.PAR_INCORRECT_TIMESTAMP_VAL, `Incorrect TIMESTAMP value: ${raw.value}`)
      }
    }
    if (isString(src)) {
      return out(isoTicks(x.sql, ctx))
    }
    if (src === 'FLOAT' || src === 'DOUBLE') {
      return out(`trunc(${dbl(x.sql)})`)
    }
    return out(src === 'BOOL' ? `CAST(${x.sql} AS INTEGER)` : x.sql)
  }
  throw new TdError(TD.FUNC_FUNTION_PARA_TYPE, 'Invalid function para type')
}

/** a timestamp as TDengine prints it in text: `YYYY-MM-DD HH:MM:SS.fff` (UTC, precision digits) */
function timestampText(t: string, ctx: CompileCtx): string {
  const p = parts(t, ctx)
  const { str } = sqlOf(ctx)
  const digits = ctx.precision === 'ms' ? 3 : ctx.precision === 'us' ? 6 : 9
  return `(${[
    pad(p.ext('year'), 4, ctx), str('-'), pad(p.ext('month'), 2, ctx), str('-'), pad(p.ext('day'), 2, ctx), str(' '),
    pad(p.hour, 2, ctx), str(':'), pad(p.minute, 2, ctx), str(':'), pad(p.second, 2, ctx), str('.'), pad(p.frac, digits, ctx),
  ].join(' || ')})`
}

