import { deflatePart, GzipAssembler, type DeflatedPart } from '../http/gzip-parts.js'
import type { ColumnMeta, SqlResult } from '../sql/result.js'
import { formatTimestamp } from '../sql/time.js'
import type { NumericVector } from '../storage/types.js'
import type { Precision } from '../storage/td-types.js'

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
  // JS prints plain decimals exactly in [1e-6, 1e21): no exponent to fix up there
  const a = v < 0 ? -v : v
  if (a >= 1e-6 && a < 1e21) {
    return String(v)
  }
  return goExponent(String(v))
}

/** Nearest doubles of 10^k (exact for |k| <= 22), k in -70..70. */
const POW10: number[] = Array.from({ length: 141 }, (_, i) => Number(`1e${i - 70}`))

/** Text of m * 10^k (m a positive integer) with Go's plain/exponent choice. */
function decimalText(m: number, k: number): string {
  while (m % 10 === 0) {
    m /= 10
    k++
  }
  const d = String(m)
  const n = d.length
  const e = k + n - 1 // decimal exponent of the first digit
  if (e < -6 || e >= 21) {
    const abs = e < 0 ? -e : e
    return `${d[0]}${n > 1 ? `.${d.slice(1)}` : ''}e${e < 0 ? '-' : '+'}${abs < 10 ? '0' : ''}${abs}`
  }
  if (k >= 0) {
    return d + '0'.repeat(k)
  }
  if (e >= 0) {
    return `${d.slice(0, n + k)}.${d.slice(n + k)}`
  }
  return `0.${'0'.repeat(-e - 1)}${d}`
}

/** Slow, obviously right search: smallest p whose toPrecision(p) reads back as the float32. */
function formatFloat32Slow(f: number): string {
  let lo = 1
  let hi = 9
  let best = ''
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    const text = f.toPrecision(mid)
    if (Math.fround(Number(text)) === f) {
      best = text
      hi = mid - 1
    } else {
      lo = mid + 1
    }
  }
  return goExponent(String(Number(best === '' ? f.toPrecision(9) : best)))
}

/**
 * FLOAT: the shortest decimal that reads back as the same float32 (stored 10.3 prints `10.3`,
 * not the float64 expansion `10.300000190734863`). NaN/Inf -> null.
 *
 * Hot path of large results: candidates m * 10^k are tried with plain arithmetic for 1..9
 * significant digits; the winner is checked once by parsing its text, and anything doubtful
 * falls back to the toPrecision search.
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
  const neg = f < 0
  const a = neg ? -f : f
  const e = Math.floor(Math.log10(a))
  for (let p = 1; p <= 9; p++) {
    const k = e - p + 1
    if (k < -70 || k > 70) {
      break
    }
    const m = k >= 0 ? Math.round(a / POW10[k + 70]) : Math.round(a * POW10[70 - k])
    const c = k >= 0 ? m * POW10[k + 70] : m / POW10[70 - k]
    if (m > 0 && Math.fround(c) === a) {
      const text = decimalText(m, k)
      if (Math.fround(Number(text)) === a) {
        return neg ? `-${text}` : text
      }
      break
    }
  }
  return formatFloat32Slow(f)
}

export { formatFloat32Slow as formatFloat32Reference }

const TWO_DIGITS: string[] = Array.from({ length: 60 }, (_, i) => (i < 10 ? `0${i}` : String(i)))
const TICKS_PER_SECOND_NUM: Record<Precision, number> = { ms: 1000, us: 1_000_000, ns: 1_000_000_000 }
/** "000".."999": the fraction of a millisecond timestamp without a String + slice per value */
const MS_FRACTION: string[] = Array.from({ length: 1000 }, (_, i) => String(1000 + i).slice(1))

/**
 * Splits timestamp ticks of one precision into whole seconds and the tick fraction (both
 * numbers; floor division, so the fraction is never negative), leaving them in `secs`/`frac`
 * rather than allocating a pair per value.
 */
class TickSplitter {
  protected readonly precision: Precision
  protected readonly per: number
  protected readonly perBig: bigint
  protected secs = 0
  protected frac = 0

  constructor(precision: Precision) {
    this.precision = precision
    this.per = TICKS_PER_SECOND_NUM[precision]
    this.perBig = BigInt(this.per)
  }

  protected split(v: bigint | number): void {
    // a bigint converts exactly when the result is a safe integer (cheaper than bigint compares)
    const t = Number(v)
    if (typeof v === 'number' || (this.precision !== 'ns' && Number.isSafeInteger(t))) {
      // below 2^53 Number arithmetic is exact (ms/us ticks up to year ~2255)
      this.secs = Math.floor(t / this.per)
      this.frac = t - this.secs * this.per
      return
    }
    let s = v / this.perBig
    let f = v - s * this.perBig
    if (f < 0n) {
      s -= 1n
      f += this.perBig
    }
    this.secs = Number(s)
    this.frac = Number(f)
  }
}

/**
 * TIMESTAMP rendering for one response. `formatTimestamp` (src/sql/time.ts) is the reference
 * rendering; this caches its output per day (UTC: the time of day is plain arithmetic) or per
 * second (other zones, whose offset can change within a day), so long results do not pay a
 * BigInt + Date round trip per value.
 */
export class TimestampFormatter extends TickSplitter {
  readonly #tz: string | undefined
  #day = NaN
  #dayPrefix = ''
  #sec = NaN
  #secPrefix = ''
  #secSuffix = ''
  /** UTC: the last second rendered and its "YYYY-MM-DDTHH:MM:SS." (rows often share a second) */
  #utcSec = NaN
  #utcPrefix = ''

  constructor(precision: Precision, tz: string | undefined) {
    super(precision)
    this.#tz = tz
  }

  format(v: bigint | number): string {
    this.split(v)
    const secs = this.secs
    const frac = this.frac
    const fraction = this.per === 1000 ? MS_FRACTION[frac] : String(this.per + frac).slice(1)
    if (this.#tz === undefined) {
      if (secs === this.#utcSec) {
        return this.#utcPrefix + fraction + 'Z'
      }
      const day = Math.floor(secs / 86400)
      if (day !== this.#day) {
        this.#day = day
        // "YYYY-MM-DDT" of the day's midnight
        const text = formatTimestamp(BigInt(day * 86400) * this.perBig, this.precision)
        this.#dayPrefix = text.slice(0, text.indexOf('T') + 1)
      }
      let sod = secs - day * 86400
      const hh = Math.floor(sod / 3600)
      sod -= hh * 3600
      const mm = Math.floor(sod / 60)
      this.#utcSec = secs
      this.#utcPrefix = `${this.#dayPrefix}${TWO_DIGITS[hh]}:${TWO_DIGITS[mm]}:${TWO_DIGITS[sod - mm * 60]}.`
      return this.#utcPrefix + fraction + 'Z'
    }
    if (secs !== this.#sec) {
      this.#sec = secs
      const text = formatTimestamp(BigInt(secs) * this.perBig, this.precision, this.#tz)
      const dot = text.indexOf('.', text.indexOf('T'))
      this.#secPrefix = text.slice(0, dot + 1)
      this.#secSuffix = text.slice(dot + 1 + fraction.length)
    }
    return this.#secPrefix + fraction + this.#secSuffix
  }
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

const QUOTE = 0x22
const COMMA = 0x2c
const OPEN = 0x5b
const CLOSE = 0x5d
const ZERO = 0x30

/**
 * The body under construction, as UTF-8 bytes. Values are written straight into a byte buffer:
 * building one JS string per chunk from many small pieces and then UTF-8-encoding it cost more
 * than formatting the values themselves (a 160,000-row aggregate: ~100 ms vs ~55 ms).
 */
export class JsonBytes {
  #buf: Uint8Array
  #pos = 0
  readonly #encoder = new TextEncoder()

  constructor(readonly capacity = 64 * 1024) {
    this.#buf = new Uint8Array(capacity)
  }

  get length(): number {
    return this.#pos
  }

  /** The bytes written so far deflated (gzip-parts.ts); the writer continues in the same buffer. */
  deflate(): DeflatedPart {
    const part = deflatePart(this.#buf.subarray(0, this.#pos))
    this.#pos = 0
    return part
  }

  /** The bytes written so far; the writer continues in a fresh buffer (the old one is handed off). */
  take(): Uint8Array {
    const out = this.#buf.subarray(0, this.#pos)
    this.#buf = new Uint8Array(Math.max(this.capacity, this.#pos))
    this.#pos = 0
    return out
  }

  #reserve(n: number): Uint8Array {
    if (this.#pos + n > this.#buf.length) {
      const next = new Uint8Array(Math.max(this.#buf.length * 2, this.#pos + n))
      next.set(this.#buf.subarray(0, this.#pos))
      this.#buf = next
    }
    return this.#buf
  }

  byte(b: number): void {
    this.#reserve(1)[this.#pos++] = b
  }

  /** Room for `n` more bytes: write them into the returned buffer from `length` on, then `advance`. */
  room(n: number): Uint8Array {
    return this.#reserve(n)
  }

  /** Commits the bytes written into `room`'s buffer up to `pos`. */
  advance(pos: number): void {
    this.#pos = pos
  }

  /** Any string, UTF-8 encoded (a plain loop while it is ASCII, which is nearly always). */
  text(s: string): void {
    const n = s.length
    const buf = this.#reserve(n)
    let pos = this.#pos
    for (let i = 0; i < n; i++) {
      const ch = s.charCodeAt(i)
      if (ch >= 0x80) {
        this.#pos = pos
        this.#utf8(s.slice(i))
        return
      }
      buf[pos++] = ch
    }
    this.#pos = pos
  }

  #utf8(s: string): void {
    const buf = this.#reserve(s.length * 3)
    this.#pos += this.#encoder.encodeInto(s, buf.subarray(this.#pos)).written
  }

  /** A UTC TIMESTAMP's text (see putUtcTimestamp) with one capacity check. */
  utcClock(prefix: Uint8Array, secondOfDay: number, fraction: number, width: number): void {
    const buf = this.#reserve(prefix.length + 11 + width)
    this.#pos = putUtcTimestamp(buf, this.#pos, prefix, secondOfDay, fraction, width)
  }
}

/** "00".."99" as byte pairs */
const DIGIT_PAIRS = Uint8Array.from({ length: 200 }, (_, i) => ZERO + (i % 2 === 0 ? Math.floor(i / 20) : (i >> 1) % 10))

/**
 * Writes `<prefix>HH:MM:SS.<fraction>Z"` at `pos` for a second of the day and a fraction of
 * `width` digits (prefix: `"YYYY-MM-DDT`, the day's part of a UTC TIMESTAMP); returns the
 * position after it. The caller has made room for `prefix.length + 11 + width` bytes.
 */
function putUtcTimestamp(buf: Uint8Array, pos: number, prefix: Uint8Array, secondOfDay: number, fraction: number, width: number): number {
  for (let k = 0; k < prefix.length; k++) {
    buf[pos++] = prefix[k]
  }
  const hh = (secondOfDay / 3600) | 0
  const rest = secondOfDay - hh * 3600
  const mm = (rest / 60) | 0
  const ss = rest - mm * 60
  buf[pos] = DIGIT_PAIRS[2 * hh]
  buf[pos + 1] = DIGIT_PAIRS[2 * hh + 1]
  buf[pos + 2] = 0x3a
  buf[pos + 3] = DIGIT_PAIRS[2 * mm]
  buf[pos + 4] = DIGIT_PAIRS[2 * mm + 1]
  buf[pos + 5] = 0x3a
  buf[pos + 6] = DIGIT_PAIRS[2 * ss]
  buf[pos + 7] = DIGIT_PAIRS[2 * ss + 1]
  buf[pos + 8] = 0x2e
  pos += 9
  if (width === 3) {
    const h = (fraction / 100) | 0
    const lo = fraction - h * 100
    buf[pos] = ZERO + h
    buf[pos + 1] = DIGIT_PAIRS[2 * lo]
    buf[pos + 2] = DIGIT_PAIRS[2 * lo + 1]
  } else {
    for (let k = pos + width - 1; k >= pos; k--) {
      const q = Math.floor(fraction / 10)
      buf[k] = ZERO + (fraction - q * 10)
      fraction = q
    }
  }
  pos += width
  buf[pos] = 0x5a
  buf[pos + 1] = QUOTE
  return pos + 2
}

const FRACTION_WIDTH: Record<Precision, number> = { ms: 3, us: 6, ns: 9 }

/** `"YYYY-MM-DDT` of a UTC day (days since 1970), from formatTimestamp, the reference rendering: once per day a result reaches */
function utcDatePrefix(day: number, precision: Precision): Uint8Array {
  const text = formatTimestamp(BigInt(day * 86400) * BigInt(TICKS_PER_SECOND_NUM[precision]), precision)
  return Buffer.from('"' + text.slice(0, text.indexOf('T') + 1), 'latin1')
}

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
function columnWriter(kind: number, precision: Precision, tz: string | undefined): WriteValue {
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
function writeRows(
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
 * closure call per value and a capacity check per byte (a 160,700-row aggregate: ~230 -> ~150 ns
 * per row of a timestamp and a double). Row r's value of column i is `values[r]` unless
 * `nulls[r]` is 1; a BOOL column holds 1/0.
 */
function writeNumericRows(
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

/** A numeric column of a chunk (the engine's values and NULL mask) with its value kind: what crosses to an encode worker. */
export interface NumericColumn extends Pick<NumericVector, 'values' | 'nulls'> {
  kind: number
}

/** Rows of one chunk to encode elsewhere (encode-worker.ts), as `[..],[..]` without a leading comma. */
export interface RowsJob {
  id: number
  precision: Precision
  tz: string | undefined
  rows: number
  columns: NumericColumn[]
  /** deflate the bytes too (a gzip body: see src/http/gzip-parts.ts) */
  deflate: boolean
}

/** A job's bytes: deflated (with the plain bytes' CRC and length) when the job asked for it. */
export type EncodedRows = { bytes: Uint8Array; deflated: false } | (DeflatedPart & { deflated: true })

/**
 * Encodes chunks of rows on another thread while this one goes on with the next chunk
 * (encode-offload.ts). `accepting` is false while the worker is full or cannot run.
 */
export interface RowsOffload {
  readonly accepting: boolean
  encode(job: Omit<RowsJob, 'id'>): Promise<EncodedRows>
}

/** Chunks of at least this many rows are worth a trip to the worker (DuckDB's chunks have 2048). */
const OFFLOAD_MIN_ROWS = 1024

/**
 * The first `n` rows of `chunk` as numeric columns, or undefined when a column holds something a
 * Float64Array cannot carry exactly: text, JSON, integers beyond 2^53 (ns timestamps among them).
 */
export function numericColumns(chunk: unknown[][], n: number, kinds: readonly number[]): NumericColumn[] | undefined {
  const out: NumericColumn[] = []
  for (let c = 0; c < kinds.length; c++) {
    const kind = kinds[c]
    if (kind === K_STRING || kind === K_JSON) {
      return undefined
    }
    const values = new Float64Array(n)
    let nulls: Uint8Array | undefined
    for (let r = 0; r < n; r++) {
      const v = chunk[r][c]
      if (v === null || v === undefined) {
        nulls ??= new Uint8Array(n)
        nulls[r] = 1
        continue
      }
      if (typeof v === 'number') {
        values[r] = v
      } else if (typeof v === 'bigint') {
        const x = Number(v)
        if (!Number.isSafeInteger(x)) {
          return undefined
        }
        values[r] = x
      } else if (typeof v === 'boolean') {
        values[r] = v ? 1 : 0
      } else {
        return undefined
      }
    }
    out.push({ kind, values, nulls })
  }
  return out
}

/** Row r's value of column i of numeric columns (a BOOL column holds 1/0), as a row chunk would have it. */
function numericCell(columns: ReadonlyArray<Pick<NumericVector, 'values' | 'nulls'>>, kinds: readonly number[]): (r: number, i: number) => unknown {
  return (r, i) => {
    const c = columns[i]
    if (c.nulls !== undefined && c.nulls[r] === 1) {
      return null
    }
    return kinds[i] === K_BOOL ? c.values[r] !== 0 : c.values[r]
  }
}

/** Writes a job's rows as the main thread would: `[..],[..]`, no leading comma; deflated when the job says so. */
export function encodeRowsJob(job: Omit<RowsJob, 'id'>, out: JsonBytes): EncodedRows {
  const cols = job.columns
  const kinds = cols.map((c) => c.kind)
  if (job.tz === undefined) {
    writeNumericRows(out, job.rows, cols, kinds, job.precision, false)
  } else {
    const write = cols.map((c) => columnWriter(c.kind, job.precision, job.tz))
    writeRows(out, job.rows, write, numericCell(cols, kinds), false)
  }
  return job.deflate ? { ...out.deflate(), deflated: true } : { bytes: out.take(), deflated: false }
}

export interface EncodeOptions {
  /** IANA zone for TIMESTAMP values; undefined = UTC (`Z`) */
  tz?: string
  /** `restfulRowLimit`: negative = unlimited, otherwise at most this many rows are written */
  rowLimit: number
  /** bytes per yielded part (64 KB by default) */
  partBytes?: number
  /** a worker that encodes large numeric chunks meanwhile (see RowsOffload) */
  offload?: RowsOffload
  /**
   * yield a gzip stream instead of plain JSON: each part is deflated where it was encoded (on
   * the worker for offloaded chunks) and the parts form one gzip member (src/http/gzip-parts.ts)
   */
  gzip?: boolean
}

/** A chunk handed to the offload: its bytes once they are back (or the chunk again, on failure). */
interface OffloadedPart {
  done: boolean
  /** settles (never rejects) when the worker answered */
  settled: Promise<void>
  encoded: EncodedRows | undefined
  /** the chunk's values, for encoding it here */
  cell: (r: number, i: number) => unknown
  rows: number
}

/**
 * Streams the query body as UTF-8 bytes: the head with `column_meta` and the first rows, then
 * about `partBytes` per part, then the tail with `rows`. Stops pulling from the engine once the
 * row limit is reached (the iterator's `return` releases the rest of the result).
 *
 * With an offload, a large all-numeric chunk goes to the worker whenever it accepts one while
 * this thread goes on with the next chunk; parts are still yielded in row order. Once DuckDB has
 * sorted a large result it has nothing left to do, so the second core encodes instead of idling.
 */
export async function* encodeQueryBody(
  result: Extract<SqlResult, { kind: 'rows' }>,
  opts: EncodeOptions,
): AsyncGenerator<Uint8Array, void, undefined> {
  const { columns, precision } = result
  const limit = opts.rowLimit < 0 ? Infinity : opts.rowLimit
  const partBytes = opts.partBytes ?? 64 * 1024
  const kinds = columns.map((c) => kindOf(c.type))
  const write = kinds.map((k) => columnWriter(k, precision, opts.tz))
  const offload = opts.offload
  const out = new JsonBytes(partBytes + 16 * 1024)
  const gz = opts.gzip === true ? new GzipAssembler() : undefined
  /**
   * parts in row order: plain bytes, or deflated right away for a gzip body (the buffer is
   * reused); an offloaded part blocks the ones after it until its bytes are back
   */
  const queue: Array<Uint8Array | DeflatedPart | OffloadedPart> = []
  const seal = (o: JsonBytes): Uint8Array | DeflatedPart => (gz === undefined ? o.take() : o.deflate())
  const flushFull = (): void => {
    if (out.length >= partBytes) {
      queue.push(seal(out))
    }
  }
  /** the gzip header goes out with the first part, so nothing is sent before the first engine chunk */
  let header = gz?.header()
  /** the wire bytes of a part encoded here (deflated for a gzip body) */
  const wire = (part: Uint8Array | DeflatedPart): Uint8Array => {
    if (part instanceof Uint8Array) {
      return part
    }
    const bytes = gz!.add(part)
    if (header === undefined) {
      return bytes
    }
    const joined = Buffer.concat([header, bytes])
    header = undefined
    return joined
  }
  /** the wire bytes of an offloaded part; encoded here if the worker failed */
  const bytesOf = (p: OffloadedPart): Uint8Array => {
    const e = p.encoded
    if (e === undefined) {
      const o = new JsonBytes(partBytes + 16 * 1024)
      writeRows(o, p.rows, write, p.cell, false)
      return wire(seal(o))
    }
    return e.deflated ? wire(e) : e.bytes
  }
  let sent = 0
  out.text(`{"code":0,"column_meta":${columnMetaJson(columns)},"data":[`)
  if (sent < limit) {
    for await (const chunk of result.numeric ?? result.rows) {
      const isRows = Array.isArray(chunk)
      const n = Math.min(isRows ? chunk.length : chunk.rowCount, limit - sent)
      const cell = isRows ? (r: number, i: number): unknown => chunk[r][i] : numericCell(chunk.columns, kinds)
      let numeric: NumericColumn[] | undefined
      if (offload !== undefined && offload.accepting && n >= OFFLOAD_MIN_ROWS) {
        numeric = isRows
          ? numericColumns(chunk, n, kinds)
          : // copies: the transferred buffers leave this thread, and a failed job is encoded here
            chunk.columns.map((c, i) => ({ kind: kinds[i], values: c.values.slice(0, n), nulls: c.nulls?.slice(0, n) }))
      }
      if (numeric !== undefined && offload !== undefined) {
        if (sent > 0) {
          out.byte(COMMA)
        }
        if (out.length > 0) {
          queue.push(seal(out))
        }
        const part: OffloadedPart = { done: false, settled: Promise.resolve(), encoded: undefined, cell, rows: n }
        part.settled = offload.encode({ precision, tz: opts.tz, rows: n, columns: numeric, deflate: gz !== undefined }).then(
          (e) => {
            part.encoded = e
            part.done = true
          },
          () => {
            // the worker failed: bytesOf encodes the chunk here
            part.done = true
          },
        )
        queue.push(part)
      } else if (!isRows && opts.tz === undefined) {
        writeNumericRows(out, n, chunk.columns, kinds, precision, sent > 0, flushFull)
      } else {
        writeRows(out, n, write, cell, sent > 0, flushFull)
      }
      sent += n
      while (queue.length > 0) {
        const head = queue[0]
        if (!('done' in head)) {
          queue.shift()
          yield wire(head)
        } else if (head.done) {
          queue.shift()
          yield bytesOf(head)
        } else {
          break
        }
      }
      if (sent >= limit) {
        break
      }
    }
  }
  for (const p of queue) {
    if (!('done' in p)) {
      yield wire(p)
      continue
    }
    await p.settled
    yield bytesOf(p)
  }
  queue.length = 0
  out.text(`],"rows":${sent}}`)
  const last = wire(seal(out))
  yield gz === undefined ? last : Buffer.concat([last, gz.trailer()])
}
