/**
 * GREATEST / LEAST (TDengine 3.3.6+): NULL when any argument is NULL (the backends' own
 * greatest/least skip NULLs); numbers give the widest argument type, a string among the
 * arguments compares them all as strings.
 */
import type { Compiled } from './compile-context.js'
import { paraType, sqlOf, type ScalarCall } from './scalar-args.js'
import { fixed, isNumeric, isSignedInt, isString, isUnsignedInt, type TypeInfo } from './type-info.js'

const SIGNED = ['TINYINT', 'SMALLINT', 'INT', 'BIGINT'] as const
const UNSIGNED = ['TINYINT UNSIGNED', 'SMALLINT UNSIGNED', 'INT UNSIGNED', 'BIGINT UNSIGNED'] as const

/** the result type of GREATEST / LEAST over arguments of `types` */
export function extremeType(types: TypeInfo[]): TypeInfo {
  const known = types.filter((t) => t.type !== 'NULL')
  if (known.length === 0) {
    return fixed('NULL')
  }
  if (known.some((t) => isString(t.type))) {
    const length = Math.max(...known.map((t) => (isString(t.type) ? t.length : 32)))
    return { type: known.some((t) => t.type === 'NCHAR') ? 'NCHAR' : 'VARCHAR', length }
  }
  if (known.every((t) => t.type === 'TIMESTAMP')) {
    return fixed('TIMESTAMP')
  }
  if (known.every((t) => t.type === 'FLOAT')) {
    return fixed('FLOAT')
  }
  if (known.some((t) => t.type === 'FLOAT' || t.type === 'DOUBLE')) {
    return fixed('DOUBLE')
  }
  const rank = (list: readonly string[], t: TypeInfo): number => list.indexOf(t.type)
  if (known.every((t) => isSignedInt(t.type) || t.type === 'BOOL')) {
    return fixed(SIGNED[Math.max(0, ...known.map((t) => rank(SIGNED, t)))])
  }
  if (known.every((t) => isUnsignedInt(t.type))) {
    return fixed(UNSIGNED[Math.max(...known.map((t) => rank(UNSIGNED, t)))])
  }
  return fixed('BIGINT')
}

function extreme(fn: 'greatest' | 'least'): (c: ScalarCall) => Compiled {
  return (c) => {
    for (const a of c.args) {
      if (!isNumeric(a.type.type) && !isString(a.type.type) && a.type.type !== 'TIMESTAMP' && a.type.type !== 'NULL') {
        throw paraType()
      }
    }
    const type = extremeType(c.args.map((a) => a.type))
    if (type.type === 'NULL') {
      return { sql: 'NULL', type }
    }
    const p = c.ctx.sql
    const { text } = sqlOf(c.ctx)
    const phys = p.physType(type.type, type.length)
    const args = c.args.map((a) => (isString(type.type) ? text(a.sql) : `CAST(${a.sql} AS ${phys})`))
    const anyNull = c.args.map((a) => `${a.sql} IS NULL`).join(' OR ')
    return { sql: `(CASE WHEN ${anyNull} THEN NULL ELSE ${fn}(${args.join(', ')}) END)`, type }
  }
}

export const EXTREMES: Record<string, (c: ScalarCall) => Compiled> = {
  greatest: extreme('greatest'),
  least: extreme('least'),
}
