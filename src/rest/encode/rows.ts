import type { ColumnMeta } from '../../sql/result.js'
import type { Precision } from '../../storage/td-types.js'
import type { NumericVector } from '../../storage/types.js'
import { formatFloat32, formatFloat64 } from './go-float.js'
import type { JsonBytes } from './json-bytes.js'
import { FRACTION_WIDTH, TICKS_PER_SECOND_NUM, TickSplitter, TimestampFormatter, putUtcTimestamp, utcDatePrefix } from './timestamps.js'

/**
 * The rows of a query body, `[v,v],[v,v]`: one value writer per column for row chunks
 * (writeRows) and one function for numeric columns with UTC timestamps (writeNumericRows). Both
 * run per value of large results, so they stay free of extra calls and closures per value.
 */

// Value kinds, resolved once per column so the row loop is a switch, not a closure per value.
const K_NULL = 0
const K_BOOL = 1
const K_INT = 2
const K_FLOAT = 3
const K_DOUBLE = 4
export const K_STRING = 5
const K_TIMESTAMP = 6
export const K_JSON = 7

export function kindOf(type: ColumnMeta['type']): number {
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

/** Text of a value of the kinds columnWriter has no writer of its own for. */
function plainValueText(v: unknown, kind: number): string {
  if (v === null || v === undefined) {
    return 'null'
  }
  switch (kind) {
    case K_INT:
      // number or bigint; both print their exact integer digits
      return typeof v === 'number' ? (Number.isFinite(v) ? String(v) : 'null') : String(v)
    case K_FLOAT:
      return formatFloat32(Number(v))
    case K_BOOL:
      return v === true || v === 1 || v === 1n ? 'true' : 'false'
    case K_JSON:
      // JSON tags are inlined as values, not as strings holding JSON text
      return JSON.stringify(v) ?? 'null'
    default:
      return 'null'
  }
}

export const COMMA = 0x2c
const OPEN = 0x5b
const CLOSE = 0x5d

/**
 * UTC TIMESTAMP values as `"YYYY-MM-DDTHH:MM:SS.fffZ"` bytes: the date part comes from
 * formatTimestamp (the reference rendering) once per day, the rest is arithmetic.
 */
class UtcTimestampWriter extends TickSplitter {
  readonly #width: number
  #day = NaN
  #date: Uint8Array = new Uint8Array(0)

  constructor(precision: Precision) {
    super(precision)
    this.#width = FRACTION_WIDTH[precision]
  }

  write(out: JsonBytes, v: bigint | number): void {
    this.split(v)
    const secs = this.secs
    const frac = this.frac
    const day = Math.floor(secs / 86400)
    if (day !== this.#day) {
      this.#day = day
      this.#date = utcDatePrefix(day, this.precision)
    }
    out.utcClock(this.#date, secs - day * 86400, frac, this.#width)
  }
}

type WriteValue = (out: JsonBytes, v: unknown) => void

/** One writer per column, chosen once per response, so the row loop makes one call per value. */
export function columnWriter(kind: number, precision: Precision, tz: string | undefined): WriteValue {
  switch (kind) {
    case K_DOUBLE:
      return (out, v) => out.text(v === null || v === undefined ? 'null' : formatFloat64(typeof v === 'number' ? v : Number(v)))
    case K_TIMESTAMP: {
      if (tz === undefined) {
        const ts = new UtcTimestampWriter(precision)
        return (out, v) => (v === null || v === undefined ? out.text('null') : ts.write(out, v as bigint | number))
      }
      const ts = new TimestampFormatter(precision, tz)
      return (out, v) => out.text(v === null || v === undefined ? 'null' : '"' + ts.format(v as bigint | number) + '"')
    }
    case K_STRING: {
      // names (tbname, tag values) repeat row after row: remember the last one
      let last: unknown = undefined
      let lastText = ''
      return (out, v) => {
        if (v === null || v === undefined) {
          out.text('null')
          return
        }
        if (v !== last) {
          last = v
          lastText = JSON.stringify(typeof v === 'string' ? v : String(v))
        }
        out.text(lastText)
      }
    }
    default:
      return (out, v) => out.text(plainValueText(v, kind))
  }
}

/**
 * Rows 0..n-1 as `[v,v],[v,v]` (a comma first when `leadingComma`), `cell(r, i)` being row r's
 * value of column i; `afterRow` runs after each row. The one row loop of both the main thread's
 * row chunks and the worker's numeric columns.
 */
export function writeRows(
  out: JsonBytes,
  n: number,
  write: readonly WriteValue[],
  cell: (r: number, i: number) => unknown,
  leadingComma: boolean,
  afterRow?: () => void,
): void {
  const ncol = write.length
  for (let r = 0; r < n; r++) {
    if (leadingComma || r > 0) {
      out.byte(COMMA)
    }
    out.byte(OPEN)
    for (let i = 0; i < ncol; i++) {
      if (i > 0) {
        out.byte(COMMA)
      }
      write[i](out, cell(r, i))
    }
    out.byte(CLOSE)
    afterRow?.()
  }
}

/** Bytes one value of a numeric column can take: a double's shortest text, or a quoted UTC timestamp of a 6-digit year with 9 fraction digits. */
const NUMERIC_VALUE_MAX_BYTES = 40
const EMPTY_BYTES = new Uint8Array(0)

/** Writes an ASCII string at `pos`; returns the position after it. */
function putAscii(buf: Uint8Array, pos: number, s: string): number {
  for (let i = 0; i < s.length; i++) {
    buf[pos++] = s.charCodeAt(i)
  }
  return pos
}

/**
 * writeRows for numeric columns with UTC timestamps, in one function: the same bytes, without a
 * closure call per value and a capacity check per byte. Row r's value of column i is `values[r]`
 * unless `nulls[r]` is 1; a BOOL column holds 1/0.
 */
export function writeNumericRows(
  out: JsonBytes,
  n: number,
  columns: ReadonlyArray<Pick<NumericVector, 'values' | 'nulls'>>,
  kinds: readonly number[],
  precision: Precision,
  leadingComma: boolean,
  afterRow?: () => void,
): void {
  const ncol = columns.length
  const per = TICKS_PER_SECOND_NUM[precision]
  const width = FRACTION_WIDTH[precision]
  // per TIMESTAMP column: the day of the last value and its `"YYYY-MM-DDT`
  const days = new Array<number>(ncol).fill(NaN)
  const dates = new Array<Uint8Array>(ncol).fill(EMPTY_BYTES)
  const rowMax = 2 + ncol * (NUMERIC_VALUE_MAX_BYTES + 1)
  for (let r = 0; r < n; r++) {
    const buf = out.room(rowMax)
    let pos = out.length
    if (leadingComma || r > 0) {
      buf[pos++] = COMMA
    }
    buf[pos++] = OPEN
    for (let i = 0; i < ncol; i++) {
      if (i > 0) {
        buf[pos++] = COMMA
      }
      const c = columns[i]
      if (c.nulls !== undefined && c.nulls[r] === 1) {
        pos = putAscii(buf, pos, 'null')
        continue
      }
      const v = c.values[r]
      switch (kinds[i]) {
        case K_TIMESTAMP: {
          // ticks below 2^53: Number arithmetic is exact; floor division keeps the fraction >= 0
          const secs = Math.floor(v / per)
          const frac = v - secs * per
          const day = Math.floor(secs / 86400)
          if (day !== days[i]) {
            days[i] = day
            dates[i] = utcDatePrefix(day, precision)
          }
          pos = putUtcTimestamp(buf, pos, dates[i], secs - day * 86400, frac, width)
          break
        }
        case K_DOUBLE:
          pos = putAscii(buf, pos, formatFloat64(v))
          break
        case K_FLOAT:
          pos = putAscii(buf, pos, formatFloat32(v))
          break
        case K_INT:
          pos = putAscii(buf, pos, String(v))
          break
        case K_BOOL:
          pos = putAscii(buf, pos, v !== 0 ? 'true' : 'false')
          break
        default:
          pos = putAscii(buf, pos, 'null')
      }
    }
    buf[pos++] = CLOSE
    out.advance(pos)
    afterRow?.()
  }
}

/** Row r's value of column i of numeric columns (a BOOL column holds 1/0), as a row chunk would have it. */
export function numericCell(columns: ReadonlyArray<Pick<NumericVector, 'values' | 'nulls'>>, kinds: readonly number[]): (r: number, i: number) => unknown {
  return (r, i) => {
    const c = columns[i]
    if (c.nulls !== undefined && c.nulls[r] === 1) {
      return null
    }
    return kinds[i] === K_BOOL ? c.values[r] !== 0 : c.values[r]
  }
}
