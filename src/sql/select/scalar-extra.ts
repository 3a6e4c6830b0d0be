/**
 * Scalar functions added after issue 35's catalogue:
 * - GREATEST / LEAST (TDengine 3.3.6+): NULL when any argument is NULL (the backends' own
 *   greatest/least skip NULLs); numbers give the widest argument type, a string among the
 *   arguments compares them all as strings.
 * - CRC32(str): the CRC-32 of the string's bytes, INT UNSIGNED.
 * - TO_JSON(str_literal): the literal as a JSON value, checked like a JSON tag at plan time.
 */
import { TD, TdError } from '../../td-error.js'
import type { Compiled } from './compile-context.js'
import { paraType, sqlOf, stringArg, type ScalarCall } from './scalar-args.js'
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

/** a JSON tag's length in column_meta, as for JSON tags */
const JSON_LENGTH = 4095
const JSON_KEY_MAX = 256

/**
 * The normalized text of a JSON tag value, or null for TDengine's empty tag ('' or 'null'):
 * an object whose keys are 1..256 characters and whose values are strings, numbers, booleans
 * or null (TDengine's parseJsontoTagData).
 */
function jsonTagText(text: string): string | null {
  const t = text.trim()
  if (t === '' || t.toLowerCase() === 'null') {
    return null
  }
  let doc: unknown
  try {
    doc = JSON.parse(t)
  } catch {
    throw new TdError(TD.TSC_INVALID_JSON, 'Invalid JSON format')
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    throw new TdError(TD.TSC_INVALID_JSON, 'Invalid JSON format')
  }
  for (const [k, v] of Object.entries(doc)) {
    if (k.length === 0 || k.length > JSON_KEY_MAX) {
      throw new TdError(TD.TSC_INVALID_JSON, 'Invalid JSON format')
    }
    if (v !== null && typeof v === 'object') {
      throw new TdError(TD.TSC_INVALID_JSON_TYPE, 'Invalid JSON data type')
    }
  }
  return JSON.stringify(doc)
}

export const EXTRA_SCALARS: Record<string, (c: ScalarCall) => Compiled> = {
  greatest: extreme('greatest'),
  least: extreme('least'),
  crc32: (c) => {
    const s = stringArg(c, 0)
    if (s.type.type === 'NULL') {
      return { sql: 'NULL', type: fixed('INT UNSIGNED') }
    }
    return { sql: c.ctx.sql.dialect.scalar.crc32(s.sql), type: fixed('INT UNSIGNED') }
  },
  to_json: (c) => {
    // TDengine takes a string constant only (translateToJson)
    const raw = c.raw[0]
    if (raw?.kind !== 'str') {
      throw paraType()
    }
    const text = jsonTagText(raw.value)
    const type: TypeInfo = { type: 'JSON', length: JSON_LENGTH }
    return { sql: text === null ? 'NULL' : c.ctx.sql.dialect.quoteString(text), type }
  },
}
