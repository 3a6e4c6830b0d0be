import { formatTimestamp } from '../../sql/time.js'
import type { Precision } from '../../storage/td-types.js'

/**
 * TIMESTAMP text of query bodies: cached renderings of formatTimestamp (src/sql/time.ts, the
 * reference) for any zone, and UTC timestamps written straight into bytes.
 */

const QUOTE = 0x22
const ZERO = 0x30

const TWO_DIGITS: string[] = Array.from({ length: 60 }, (_, i) => (i < 10 ? `0${i}` : String(i)))
export const TICKS_PER_SECOND_NUM: Record<Precision, number> = { ms: 1000, us: 1_000_000, ns: 1_000_000_000 }
/** "000".."999": the fraction of a millisecond timestamp without a String + slice per value */
const MS_FRACTION: string[] = Array.from({ length: 1000 }, (_, i) => String(1000 + i).slice(1))

/**
 * Splits timestamp ticks of one precision into whole seconds and the tick fraction (both
 * numbers; floor division, so the fraction is never negative), leaving them in `secs`/`frac`
 * rather than allocating a pair per value.
 */
export class TickSplitter {
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

/** "00".."99" as byte pairs */
const DIGIT_PAIRS = Uint8Array.from({ length: 200 }, (_, i) => ZERO + (i % 2 === 0 ? Math.floor(i / 20) : (i >> 1) % 10))

/**
 * Writes `<prefix>HH:MM:SS.<fraction>Z"` at `pos` for a second of the day and a fraction of
 * `width` digits (prefix: `"YYYY-MM-DDT`, the day's part of a UTC TIMESTAMP); returns the
 * position after it. The caller has made room for `prefix.length + 11 + width` bytes.
 */
export function putUtcTimestamp(buf: Uint8Array, pos: number, prefix: Uint8Array, secondOfDay: number, fraction: number, width: number): number {
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

export const FRACTION_WIDTH: Record<Precision, number> = { ms: 3, us: 6, ns: 9 }

/** `"YYYY-MM-DDT` of a UTC day (days since 1970), from formatTimestamp, the reference rendering: once per day a result reaches */
export function utcDatePrefix(day: number, precision: Precision): Uint8Array {
  const text = formatTimestamp(BigInt(day * 86400) * BigInt(TICKS_PER_SECOND_NUM[precision]), precision)
  return Buffer.from('"' + text.slice(0, text.indexOf('T') + 1), 'latin1')
}
