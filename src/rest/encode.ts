import type { ColumnMeta, SqlResult } from '../sql/result.js'
import { formatTimestamp } from '../sql/time.js'
import type { Precision } from '../storage/types.js'

/**
 * JSON bodies of `/rest/sql`, byte for byte as taosAdapter writes them: keys in the order
 * code, column_meta, data, rows, no whitespace. Query bodies are produced chunk by chunk (one
 * string per engine chunk) so a large result never sits in memory whole; `rows` is written last.
 */

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8'

export const EXEC_META = '[["affected_rows","INT",4]]'

export function execBody(affectedRows: number): string {
  return `{"code":0,"column_meta":${EXEC_META},"data":[[${affectedRows}]],"rows":1}`
}

/**
 * Error body `{"code":N,"desc":"..."}`. gin's JSON writer escapes <, > and & as \u003c etc.;
 * kept so error texts compare equal byte for byte with the original.
 */
export function errorBody(code: number, desc: string): string {
  const d = JSON.stringify(desc).replace(/[<>&]/g, (ch) =>
    ch === '<' ? '\\u003c' : ch === '>' ? '\\u003e' : '\\u0026',
  )
  return `{"code":${code},"desc":${d}}`
}

/** Go prints exponents with at least two digits (`1e-07`); JS prints `1e-7`. */
function goExponent(s: string): string {
  const e = s.indexOf('e')
  if (e === -1) {
    return s
  }
  const sign = s[e + 1]
  const digits = s.slice(e + 2)
  return digits.length >= 2 ? s : `${s.slice(0, e + 1)}${sign}0${digits}`
}

/** DOUBLE: shortest round-trip decimal; exponent form only below 1e-6 or from 1e21; NaN/Inf -> null. */
export function formatFloat64(v: number): string {
  if (!Number.isFinite(v)) {
    return 'null'
  }
  if (v === 0) {
    return Object.is(v, -0) ? '-0' : '0'
  }
  return goExponent(String(v))
}

/**
 * FLOAT: the shortest decimal that reads back as the same float32 (stored 10.3 prints `10.3`,
 * not the float64 expansion `10.300000190734863`). NaN/Inf -> null.
 */
export function formatFloat32(v: number): string {
  const f = Math.fround(v)
  if (!Number.isFinite(f)) {
    return 'null'
  }
  if (f === 0) {
    return Object.is(f, -0) ? '-0' : '0'
  }
  // Integers below 2^24 are exact in float32 and print as themselves.
  if (Number.isInteger(f) && f > -16777216 && f < 16777216) {
    return String(f)
  }
  for (let p = 1; p < 9; p++) {
    const d = Number(f.toPrecision(p))
    if (Math.fround(d) === f) {
      return goExponent(String(d))
    }
  }
  // 9 significant digits always identify a float32.
  return goExponent(String(Number(f.toPrecision(9))))
}

// Value kinds, resolved once per column so the row loop is a switch, not a closure per value.
const K_NULL = 0
const K_BOOL = 1
const K_INT = 2
const K_FLOAT = 3
const K_DOUBLE = 4
const K_STRING = 5
const K_TIMESTAMP = 6
const K_JSON = 7

function kindOf(type: ColumnMeta['type']): number {
  switch (type) {
    case 'NULL':
      return K_NULL
    case 'BOOL':
      return K_BOOL
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT':
    case 'TINYINT UNSIGNED':
    case 'SMALLINT UNSIGNED':
    case 'INT UNSIGNED':
    case 'BIGINT UNSIGNED':
      return K_INT
    case 'FLOAT':
      return K_FLOAT
    case 'DOUBLE':
      return K_DOUBLE
    case 'VARCHAR':
    case 'NCHAR':
      return K_STRING
    case 'TIMESTAMP':
      return K_TIMESTAMP
    case 'JSON':
      return K_JSON
    default:
      return K_STRING
  }
}

export function columnMetaJson(columns: readonly ColumnMeta[]): string {
  let s = '['
  for (let i = 0; i < columns.length; i++) {
    const c = columns[i]
    if (i > 0) {
      s += ','
    }
    s += `[${JSON.stringify(c.name)},"${c.type}",${c.length}]`
  }
  return s + ']'
}

function encodeValue(v: unknown, kind: number, precision: Precision, tz: string | undefined): string {
  if (v === null || v === undefined) {
    return 'null'
  }
  switch (kind) {
    case K_INT:
      // number or bigint; both print their exact integer digits
      return typeof v === 'number' ? (Number.isFinite(v) ? String(v) : 'null') : String(v)
    case K_DOUBLE:
      return formatFloat64(Number(v))
    case K_FLOAT:
      return formatFloat32(Number(v))
    case K_TIMESTAMP:
      return `"${formatTimestamp(typeof v === 'bigint' ? v : BigInt(v as number), precision, tz)}"`
    case K_STRING:
      return JSON.stringify(typeof v === 'string' ? v : String(v))
    case K_BOOL:
      return v === true || v === 1 || v === 1n ? 'true' : 'false'
    case K_JSON:
      // JSON tags are inlined as values, not as strings holding JSON text
      return JSON.stringify(v) ?? 'null'
    default:
      return 'null'
  }
}

export interface EncodeOptions {
  /** IANA zone for TIMESTAMP values; undefined = UTC (`Z`) */
  tz?: string
  /** `restfulRowLimit`: negative = unlimited, otherwise at most this many rows are written */
  rowLimit: number
}

/**
 * Streams the query body as strings: the head with `column_meta` and the first rows, one string
 * per engine chunk, then the tail with `rows`. Stops pulling from the engine once the row limit
 * is reached (the iterator's `return` releases the rest of the result).
 */
export async function* encodeQueryBody(
  result: Extract<SqlResult, { kind: 'rows' }>,
  opts: EncodeOptions,
): AsyncGenerator<string, void, undefined> {
  const { columns, precision } = result
  const { tz } = opts
  const limit = opts.rowLimit < 0 ? Infinity : opts.rowLimit
  const ncol = columns.length
  const kinds = columns.map((c) => kindOf(c.type))
  let sent = 0
  let pending = `{"code":0,"column_meta":${columnMetaJson(columns)},"data":[`
  if (sent < limit) {
    for await (const chunk of result.rows) {
      let s = pending
      pending = ''
      const n = Math.min(chunk.length, limit - sent)
      for (let r = 0; r < n; r++) {
        const row = chunk[r]
        s += sent === 0 && r === 0 ? '[' : ',['
        for (let i = 0; i < ncol; i++) {
          if (i > 0) {
            s += ','
          }
          s += encodeValue(row[i], kinds[i], precision, tz)
        }
        s += ']'
      }
      sent += n
      if (s !== '') {
        yield s
      }
      if (sent >= limit) {
        break
      }
    }
  }
  yield `${pending}],"rows":${sent}}`
}
