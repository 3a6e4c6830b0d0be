/**
 * COPY ... FROM STDIN text format encoding (https://www.postgresql.org/docs/current/sql-copy.html):
 * columns separated by TAB, rows by LF, NULL as `\N`, and backslash, TAB, LF, CR escaped.
 */
import { TD, TdError } from '../../td-error.js'

const NEEDS_ESCAPE = /[\\\t\n\r\0]/
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' }

function escapeText(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) {
    return s
  }
  if (s.includes('\0')) {
    // PostgreSQL text cannot hold NUL at all: a value error of the request (400), not an outage
    throw new TdError(TD.PAR_WRONG_VALUE_TYPE, 'Invalid string value: PostgreSQL storage cannot hold the NUL character (\\u0000)')
  }
  return s.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c])
}

/** One value as COPY text. Numbers never use exponent notation for integers. */
export function copyValue(v: unknown): string {
  if (v === null || v === undefined) {
    return '\\N'
  }
  switch (typeof v) {
    case 'string':
      return escapeText(v)
    case 'bigint':
      return v.toString()
    case 'number':
      // 1e21 and above print in exponent form, which integer columns reject
      if (Number.isInteger(v) && Math.abs(v) >= 1e21) {
        return BigInt(v).toString()
      }
      // String(-0) is "0"; floats keep the sign. NaN/Infinity/-Infinity are PostgreSQL's
      // float spellings too
      return Object.is(v, -0) ? '-0' : String(v)
    case 'boolean':
      return v ? 't' : 'f'
    case 'object':
      if (v instanceof Uint8Array) {
        return `\\\\x${Buffer.from(v).toString('hex')}`
      }
      // JSON values (JSON tags) are stored as their text
      return escapeText(JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x)))
    default:
      return escapeText(String(v))
  }
}

/** One row as a COPY text line (with the trailing LF). `prefix` is already-encoded leading columns. */
export function copyLine(row: readonly unknown[], prefix?: string): string {
  let line = prefix ?? ''
  for (let i = 0; i < row.length; i++) {
    if (i > 0 || prefix !== undefined) {
      line += '\t'
    }
    line += copyValue(row[i])
  }
  return line + '\n'
}
