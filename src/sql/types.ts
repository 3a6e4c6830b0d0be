import type { ColumnDef, DatabaseInfo, Precision, TagValue } from '../storage/td-types.js'
import type { ColumnSpec } from './ast.js'
import { checkIdentifier } from './check-identifier.js'
import { MAX_COLUMN_NAME_BYTES } from '../identifier.js'
import { TD, TdError } from '../td-error.js'
import { durationTicks, parseTimestampString, TICKS_PER_MS } from './time.js'
import type { ValueExpr } from './value-expr.js'

/**
 * Column definitions and value conversion (sql-dialect.md 1.1, 1.3, 3.1): turns parsed literals
 * into storage values for a column's TDengine type, with TDengine's range checks and texts.
 */

const CODE_ONLY_ONE_JSON_TAG = 9779
const CODE_TOO_MANY_COLUMNS = 9792

/** REST length of fixed-size types */
export const FIXED_LENGTH: Readonly<Record<string, number>> = {
  BOOL: 1,
  TINYINT: 1,
  SMALLINT: 2,
  INT: 4,
  BIGINT: 8,
  'TINYINT UNSIGNED': 1,
  'SMALLINT UNSIGNED': 2,
  'INT UNSIGNED': 4,
  'BIGINT UNSIGNED': 8,
  FLOAT: 4,
  DOUBLE: 8,
  TIMESTAMP: 8,
  JSON: 4095,
}

// VARCHAR data columns up to 65517 bytes, tags up to 16382 (3.0.5+); NCHAR counts 4 bytes a char
const MAX_VARCHAR_COL = 65517
const MAX_VARCHAR_TAG = 16382

/** One parsed column/tag definition to a catalog ColumnDef, checking the declared length. */
export function toColumnDef(spec: ColumnSpec, isTag: boolean): ColumnDef {
  checkIdentifier(spec.name, MAX_COLUMN_NAME_BYTES)
  if (spec.type === 'JSON' && !isTag) {
    throw new TdError(TD.PAR_INVALID_COL_JSON, 'Only tag can be json type')
  }
  if (spec.type === 'VARCHAR' || spec.type === 'NCHAR') {
    const n = spec.length ?? 0
    const maxBytes = isTag ? MAX_VARCHAR_TAG : MAX_VARCHAR_COL
    const max = spec.type === 'NCHAR' ? Math.floor(maxBytes / 4) : maxBytes
    if (n < 1 || n > max) {
      throw new TdError(TD.PAR_INVALID_VAR_COLUMN_LEN, `Invalid binary/nchar column/tag length: ${spec.name}`)
    }
    return { name: spec.name, type: spec.type, length: n }
  }
  return { name: spec.name, type: spec.type, length: FIXED_LENGTH[spec.type] }
}

/** Validates a whole table schema: first column TIMESTAMP, no duplicates, JSON tag alone. */
export function toSchema(columns: ColumnSpec[], tags: ColumnSpec[] | undefined): { columns: ColumnDef[]; tags: ColumnDef[] } {
  const cols = columns.map((c) => toColumnDef(c, false))
  const tagDefs = (tags ?? []).map((c) => toColumnDef(c, true))
  if (cols.length === 0 || cols[0].type !== 'TIMESTAMP') {
    throw new TdError(TD.PAR_INVALID_FIRST_COLUMN, 'First column must be timestamp')
  }
  const seen = new Set<string>()
  for (const c of [...cols, ...tagDefs]) {
    if (seen.has(c.name)) {
      throw new TdError(TD.PAR_DUPLICATED_COLUMN, 'Duplicated column names')
    }
    seen.add(c.name)
  }
  if (tagDefs.some((t) => t.type === 'JSON') && tagDefs.length > 1) {
    throw new TdError(CODE_ONLY_ONE_JSON_TAG, 'Only one tag if there is a json tag')
  }
  if (cols.length + tagDefs.length > 4096) {
    throw new TdError(CODE_TOO_MANY_COLUMNS, 'Too many columns')
  }
  if (tags !== undefined && tagDefs.length > 128) {
    throw new TdError(TD.MND_TOO_MANY_TAGS, 'Too many tags')
  }
  return { columns: cols, tags: tagDefs }
}

/** Statement-level context for converting values: one NOW for every row (sql-dialect.md 1.2). */
export interface ValueContext {
  sql: string
  precision: Precision
  /** NOW in epoch ms, fixed for the statement */
  nowMs: number
}

/** A conversion problem: reason text for TDengine's `syntax error near '...' (<reason>)`. */
export class ValueError extends Error {
  readonly reason: string
  readonly start: number
  readonly code: number

  constructor(reason: string, start: number, code = TD.TSC_SQL_SYNTAX_ERROR) {
    super(reason)
    this.reason = reason
    this.start = start
    this.code = code
  }

  toTdError(sql: string): TdError {
    if (this.code !== TD.TSC_SQL_SYNTAX_ERROR) {
      return new TdError(this.code, this.reason)
    }
    return new TdError(TD.TSC_SQL_SYNTAX_ERROR, `syntax error near '${sql.slice(this.start, this.start + 63)}' (${this.reason})`)
  }
}

const INT_RANGES: Readonly<Record<string, readonly [bigint, bigint, string]>> = {
  TINYINT: [-128n, 127n, 'tinyint'],
  SMALLINT: [-32768n, 32767n, 'smallint'],
  INT: [-2147483648n, 2147483647n, 'int'],
  BIGINT: [-9223372036854775808n, 9223372036854775807n, 'bigint'],
  'TINYINT UNSIGNED': [0n, 255n, 'unsigned tinyint'],
  'SMALLINT UNSIGNED': [0n, 65535n, 'unsigned smallint'],
  'INT UNSIGNED': [0n, 4294967295n, 'unsigned int'],
  'BIGINT UNSIGNED': [0n, 18446744073709551615n, 'unsigned bigint'],
}

const FLOAT_MAX = 3.4028234663852886e38

/** integer value of a numeric text (decimal, exponent, hex, sign), truncating fractions */
function integerOf(text: string): bigint | undefined {
  const t = text.trim()
  if (/^[+-]?\d+$/.test(t)) {
    return BigInt(t)
  }
  const hex = /^([+-]?)0x([0-9a-f]+)$/i.exec(t)
  if (hex) {
    const v = BigInt('0x' + hex[2])
    return hex[1] === '-' ? -v : v
  }
  if (/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t)) {
    const n = Number(t)
    return Number.isFinite(n) ? BigInt(Math.trunc(n)) : undefined
  }
  return undefined
}

function floatOf(text: string): number | undefined {
  const t = text.trim()
  if (/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t)) {
    return Number(t)
  }
  const i = integerOf(t)
  return i === undefined ? undefined : Number(i)
}

function applyDeltas(base: bigint, v: ValueExpr, cx: ValueContext): bigint {
  const deltas = 'deltas' in v ? v.deltas : undefined
  if (deltas === undefined) {
    return base
  }
  let t = base
  for (const d of deltas) {
    if (d.unit === 'n' || d.unit === 'y') {
      throw new ValueError('invalid timestamp', v.span.start)
    }
    t += BigInt(d.sign) * durationTicks(d.value, d.unit, cx.precision)
  }
  return t
}

/** timestamp ticks of a value in the database precision */
function timestampOf(v: ValueExpr, cx: ValueContext): bigint {
  switch (v.kind) {
    case 'now':
      return applyDeltas(BigInt(Math.trunc(cx.nowMs)) * TICKS_PER_MS[cx.precision], v, cx)
    case 'today': {
      const day = Math.floor(cx.nowMs / 86_400_000) * 86_400_000
      return applyDeltas(BigInt(day) * TICKS_PER_MS[cx.precision], v, cx)
    }
    case 'number': {
      // fast path for the common epoch literal: a safe integer written in decimal
      if (v.text.length <= 15) {
        const n = Number(v.text)
        if (Number.isSafeInteger(n) && !/[.ex]/.test(v.text)) {
          return v.deltas === undefined ? BigInt(n) : applyDeltas(BigInt(n), v, cx)
        }
      }
      if (!/^[+-]?\d+$/.test(v.text)) {
        throw new ValueError('invalid timestamp', v.span.start)
      }
      return applyDeltas(BigInt(v.text), v, cx)
    }
    case 'string': {
      const s = v.value.trim()
      if (/^[+-]?\d+$/.test(s)) {
        return applyDeltas(BigInt(s), v, cx)
      }
      try {
        return applyDeltas(parseTimestampString(s, cx.precision), v, cx)
      } catch (e) {
        if (e instanceof ValueError) {
          throw e
        }
        throw new ValueError('invalid timestamp', v.span.start)
      }
    }
    default:
      throw new ValueError('invalid timestamp', v.span.start)
  }
}

function stringOf(v: ValueExpr): string | undefined {
  switch (v.kind) {
    case 'string':
      return v.value
    case 'number':
      return v.text
    case 'bool':
      return v.value ? 'true' : 'false'
    default:
      return undefined
  }
}

function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8')
}

function charLength(s: string): number {
  let n = 0
  for (const _ of s) {
    n++
  }
  return n
}

/** a JSON tag value: an object of scalar values (or null) */
function jsonTagOf(v: ValueExpr): Record<string, unknown> | null {
  if (v.kind === 'null') {
    return null
  }
  if (v.kind !== 'string') {
    throw new ValueError('invalid json data', v.span.start)
  }
  const s = v.value.trim()
  if (s === '' || s.toLowerCase() === 'null') {
    return null
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(s)
  } catch {
    throw new ValueError('invalid json data', v.span.start)
  }
  if (parsed === null) {
    return null
  }
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ValueError('invalid json data', v.span.start)
  }
  for (const [k, val] of Object.entries(parsed as Record<string, unknown>)) {
    if (k.length === 0 || k.length > 256 || (val !== null && typeof val === 'object')) {
      throw new ValueError('invalid json data', v.span.start)
    }
  }
  return parsed as Record<string, unknown>
}

/**
 * Converts one literal to the storage value of `col` (sql-dialect.md 3.1): integers range-checked
 * (BIGINT types as bigint), FLOAT/DOUBLE numbers, BOOL, strings length-checked (9811), TIMESTAMP
 * ticks. Throws ValueError (534 text) or TdError 9811.
 */
export function convertValue(v: ValueExpr, col: ColumnDef, cx: ValueContext): unknown {
  if (v.kind === 'null') {
    return null
  }
  switch (col.type) {
    case 'TIMESTAMP':
      return timestampOf(v, cx)
    case 'BOOL': {
      if (v.kind === 'bool') {
        return v.value
      }
      if (v.kind === 'number') {
        const f = floatOf(v.text)
        if (f === undefined) {
          throw new ValueError('invalid bool data', v.span.start)
        }
        return f !== 0
      }
      if (v.kind === 'string') {
        const s = v.value.trim().toLowerCase()
        if (s === 'true') {
          return true
        }
        if (s === 'false') {
          return false
        }
        const f = floatOf(s)
        if (f !== undefined) {
          return f !== 0
        }
      }
      throw new ValueError('invalid bool data', v.span.start)
    }
    case 'FLOAT':
    case 'DOUBLE': {
      const what = col.type === 'FLOAT' ? 'float' : 'double'
      let f: number | undefined
      if (v.kind === 'number' && !v.text.includes('x')) {
        // a number token is always a valid decimal/exponent literal (hex goes the slow way)
        f = Number(v.text)
      } else if (v.kind === 'bool') {
        f = v.value ? 1 : 0
      } else {
        const s = stringOf(v)
        f = s === undefined ? undefined : floatOf(s)
      }
      if (f === undefined || Number.isNaN(f)) {
        throw new ValueError(`invalid ${what} data`, v.span.start)
      }
      if (!Number.isFinite(f) || (col.type === 'FLOAT' && Math.abs(f) > FLOAT_MAX)) {
        throw new ValueError(`${what} data overflow`, v.span.start)
      }
      return f
    }
    case 'VARCHAR':
    case 'NCHAR': {
      const s = stringOf(v)
      if (s === undefined) {
        throw new ValueError('invalid string data', v.span.start)
      }
      // fast paths: a UTF-16 unit is at most 3 UTF-8 bytes, and never fewer code points than units
      const len =
        col.type === 'VARCHAR'
          ? s.length * 3 <= col.length
            ? s.length
            : byteLength(s)
          : s.length <= col.length
            ? s.length
            : charLength(s)
      if (len > col.length) {
        throw new TdError(TD.PAR_VALUE_TOO_LONG, `Value too long for column/tag: ${col.name}`)
      }
      return s
    }
    case 'JSON':
      return jsonTagOf(v)
    default: {
      const range = INT_RANGES[col.type]
      // fast path: short decimal integer literals compare as numbers (exact below 2^53)
      if (v.kind === 'number' && v.text.length <= 15) {
        const n = Number(v.text)
        if (Number.isInteger(n)) {
          if (n < Number(range[0]) || n > Number(range[1])) {
            throw new ValueError(`${range[2]} data overflow`, v.span.start)
          }
          return col.type === 'BIGINT' || col.type === 'BIGINT UNSIGNED' ? BigInt(n) : n
        }
      }
      let i: bigint | undefined
      if (v.kind === 'bool') {
        i = v.value ? 1n : 0n
      } else {
        const s = stringOf(v)
        i = s === undefined ? undefined : integerOf(s)
      }
      if (i === undefined) {
        throw new ValueError(`invalid ${range[2]} data`, v.span.start)
      }
      if (i < range[0] || i > range[1]) {
        throw new ValueError(`${range[2]} data overflow`, v.span.start)
      }
      return col.type === 'BIGINT' || col.type === 'BIGINT UNSIGNED' ? i : Number(i)
    }
  }
}

/**
 * true when `text` is decimal digits with an optional leading sign and, if `dot`, at most one
 * decimal point (no exponent, no hex): Number(text) then reads it exactly as convertValue does
 */
function isPlainDecimal(text: string, dot: boolean): boolean {
  const first = text.charCodeAt(0)
  let i = first === 45 /* - */ || first === 43 /* + */ ? 1 : 0
  let digits = 0
  let dots = 0
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c >= 48 && c <= 57) {
      digits++
    } else if (c === 46 /* . */ && dot && dots === 0) {
      dots++
    } else {
      return false
    }
  }
  return digits > 0
}

/** Range of an integer column type as numbers, and whether its values are bigints; else undefined. */
function intBounds(type: string): { min: number; max: number; big: boolean } | undefined {
  const range = INT_RANGES[type]
  if (range === undefined) {
    return undefined
  }
  return { min: Number(range[0]), max: Number(range[1]), big: type === 'BIGINT' || type === 'BIGINT UNSIGNED' }
}

/** literals up to this length are below 1e15: exact as doubles, in range for every float */
const SHORT_LITERAL = 15

/**
 * convertValue for one column, chosen once per INSERT target: the row loop makes one call per
 * value with no switch on the column type, and the plain literals of bulk inserts (epoch
 * timestamps, decimal numbers) take a short path. Everything else, errors included, goes
 * through convertValue, so both give the same value or the same error for every input.
 */
export function valueConverter(col: ColumnDef, cx: ValueContext): (v: ValueExpr) => unknown {
  const general = (v: ValueExpr): unknown => convertValue(v, col, cx)
  switch (col.type) {
    case 'TIMESTAMP':
      return (v) =>
        v.kind === 'number' && v.deltas === undefined && v.text.length <= SHORT_LITERAL && isPlainDecimal(v.text, false)
          ? BigInt(Number(v.text))
          : general(v)
    case 'FLOAT':
    case 'DOUBLE':
      return (v) => (v.kind === 'number' && v.text.length <= SHORT_LITERAL && isPlainDecimal(v.text, true) ? Number(v.text) : general(v))
    default: {
      const bounds = intBounds(col.type)
      if (bounds === undefined) {
        return general
      }
      const { min, max, big } = bounds
      return (v) => {
        if (v.kind === 'number' && v.text.length <= SHORT_LITERAL && isPlainDecimal(v.text, false)) {
          const n = Number(v.text)
          if (n >= min && n <= max) {
            return big ? BigInt(n) : n
          }
        }
        return general(v)
      }
    }
  }
}

/** plainNumberReader's answer when the literal is not for its short path */
export const NOT_PLAIN: unique symbol = Symbol('not plain')

type PlainReader = (sql: string, start: number, end: number) => unknown

const POW10_EXACT: number[] = Array.from({ length: SHORT_LITERAL + 1 }, (_, k) => 10 ** k)

/**
 * The value of the number literal at [start, end) when valueConverter's short path takes it
 * (its text has at most SHORT_LITERAL characters and isPlainDecimal holds), else NaN. Read from
 * the digits: m / 10^k is Number(text) because m < 2^53 and 10^k are exact and one division
 * rounds correctly. A leading `+` is not part of the literal's text (lexer numberText).
 */
function plainDecimalAt(sql: string, start: number, end: number, dot: boolean): number {
  const first = sql.charCodeAt(start)
  const neg = first === 45 /* - */
  if ((first === 43 /* + */ ? end - start - 1 : end - start) > SHORT_LITERAL) {
    return NaN
  }
  let m = 0
  let digits = 0
  let frac = -1
  for (let i = neg || first === 43 ? start + 1 : start; i < end; i++) {
    const c = sql.charCodeAt(i)
    if (c >= 48 && c <= 57) {
      m = m * 10 + (c - 48)
      digits++
      if (frac >= 0) {
        frac++
      }
    } else if (c === 46 /* . */ && dot && frac < 0) {
      frac = 0
    } else {
      return NaN
    }
  }
  if (digits === 0) {
    return NaN
  }
  const v = frac > 0 ? m / POW10_EXACT[frac] : m
  return neg ? -v : v
}

/**
 * valueConverter's short path for a number literal of the lexer's plain tuples, read straight
 * from the SQL text without building its ValueExpr: the same value for the same literals, and
 * NOT_PLAIN for everything else (the caller then converts the ValueExpr as usual). Undefined for
 * column types without a short path.
 */
export function plainNumberReader(col: ColumnDef): PlainReader | undefined {
  switch (col.type) {
    case 'TIMESTAMP':
      return (sql, start, end) => {
        const v = plainDecimalAt(sql, start, end, false)
        return v === v ? BigInt(v) : NOT_PLAIN
      }
    case 'FLOAT':
    case 'DOUBLE':
      return (sql, start, end) => {
        const v = plainDecimalAt(sql, start, end, true)
        return v === v ? v : NOT_PLAIN
      }
    default: {
      const bounds = intBounds(col.type)
      if (bounds === undefined) {
        return undefined
      }
      const { min, max, big } = bounds
      return (sql, start, end) => {
        const v = plainDecimalAt(sql, start, end, false)
        // NaN fails both comparisons
        if (v >= min && v <= max) {
          return big ? BigInt(v) : v
        }
        return NOT_PLAIN
      }
    }
  }
}

/** tag values in catalog form (TagValue) */
export function convertTag(v: ValueExpr, col: ColumnDef, cx: ValueContext): TagValue {
  return convertValue(v, col, cx) as TagValue
}

const MAX_TICKS_NS = 9223372036854775807n
// ms/us databases accept timestamps up to year 2970 (sql-dialect.md 1.2)
const MAX_MS = BigInt(Date.UTC(2970, 0, 1))

/** KEEP option in days (the largest of the keep list; `d`/`h`/`m` suffixes, plain = days) */
export function keepDays(db: DatabaseInfo): number {
  const raw = String(db.options.keep ?? '3650d')
  let max = 0
  for (const part of raw.split(',')) {
    const m = /^\s*(\d+)\s*([mhd]?)\s*$/i.exec(part)
    if (!m) {
      continue
    }
    const n = Number(m[1])
    const unit = m[2].toLowerCase()
    const days = unit === 'm' ? n / 1440 : unit === 'h' ? n / 24 : n
    max = Math.max(max, days)
  }
  return max === 0 ? 3650 : max
}

/** [min, max] allowed primary timestamps for writes into `db` at `nowMs` */
export function timestampRange(db: DatabaseInfo, nowMs: number): [bigint, bigint] {
  const perMs = TICKS_PER_MS[db.precision]
  const min = (BigInt(Math.trunc(nowMs)) - BigInt(Math.round(keepDays(db) * 86_400_000))) * perMs
  const max = db.precision === 'ns' ? MAX_TICKS_NS : MAX_MS * perMs - 1n
  return [min, max]
}
