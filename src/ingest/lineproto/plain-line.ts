/**
 * The slice encoder's own reader of plain lines (SliceEncoder.encode): agents send the same series
 * with the same fields body after body, so a line whose series text the encoder already has an id
 * for, whose fields are that series' last shape (DOUBLE and BIGINT fields only), written plainly
 * (one space between sections, decimals without exponent, `i` integers of up to 15 digits), is
 * read here straight into the slice, without a point, tag list or series key. Any other line goes
 * to the parser. It reads about twice as fast as the parser (figures: bench/README.md).
 */
import type { FieldType } from '../point.js'
import { fastDecimal, parseTimestamp, sameText, seriesTextHash, smallInteger } from './scan.js'
import type { SliceBuilder } from './slice-builder.js'

/** A field shape of the encoder's dictionary. */
export interface Shape {
  id: number
  names: string[]
  types: FieldType[]
  /** per field FAST_DOUBLE or FAST_BIGINT when encode() can read this shape's lines itself, else undefined */
  fast: Uint8Array | undefined
}

const FAST_DOUBLE = 0
const FAST_BIGINT = 1

/** A series the encoder has an id for, as encode() finds it: by seriesTextHash of its raw text. */
interface FastSeries {
  raw: string
  sid: number
  /** the field shape of the series' latest point */
  shape: Shape
  /** the series of the plain line that came after this one's last time */
  next: FastSeries | undefined
}

/** encode() reads a shape's lines itself when all its fields are DOUBLE or BIGINT and its names read the same escaped or not. */
export function fastKinds(names: string[], types: FieldType[]): Uint8Array | undefined {
  const kinds = new Uint8Array(types.length)
  for (let i = 0; i < types.length; i++) {
    if (types[i] !== 'DOUBLE' && types[i] !== 'BIGINT') {
      return undefined
    }
    if (/[\\ ,=]/.test(names[i])) {
      return undefined
    }
    kinds[i] = types[i] === 'DOUBLE' ? FAST_DOUBLE : FAST_BIGINT
  }
  return kinds
}

const SPACE = 32
const COMMA = 44
const EQUALS = 61
const BACKSLASH = 92

/** The series an encoder knows, as plain lines find them. */
export class PlainLineReader {
  /** the series of the encoder's dictionary by seriesTextHash of their raw text (a colliding second one is left out), and by id */
  private readonly fastSeries = new Map<number, FastSeries>()
  bySid: Array<FastSeries | undefined> = []
  /** the series of the last line read, whose `next` predicts the next line's */
  private lastPlain: FastSeries | undefined
  /** one line's values, kept until the whole line has been read */
  private lineNums = new Float64Array(16)

  /** A new series of the encoder's dictionary (the first point of its text). */
  learn(raw: string, sid: number, shape: Shape): void {
    const h = seriesTextHash(raw, 0, raw.length)
    if (!this.fastSeries.has(h)) {
      const entry: FastSeries = { raw, sid, shape, next: undefined }
      this.fastSeries.set(h, entry)
      this.bySid[sid] = entry
    }
  }

  /** Forgets every series (the encoder restarted its dictionaries). */
  clear(): void {
    this.fastSeries.clear()
    this.bySid = []
    this.lastPlain = undefined
  }

  /** Adds body[pos, nl) to `out` when it is a plain line of a known series and shape; else false, having added nothing. */
  read(s: string, pos: number, nl: number, line: number, out: SliceBuilder): boolean {
    const sp = s.indexOf(' ', pos)
    if (sp <= pos || sp >= nl) {
      return false
    }
    // Agents send their series in the same order body after body, so the series that followed
    // the last line's the last time is tried first: a match needs no hash and no lookup. A
    // prediction is a series a plain line matched, so its text has no backslash, and neither has
    // a line that matches it.
    let entry = this.lastPlain?.next
    if (entry === undefined || !sameText(entry.raw, s, pos, sp)) {
      entry = this.hashedSeries(s, pos, sp)
      if (entry === undefined) {
        return false
      }
    }
    const kinds = entry.shape.fast
    if (kinds === undefined) {
      return false
    }
    const names = entry.shape.names
    const nf = names.length
    if (this.lineNums.length < nf) {
      this.lineNums = new Float64Array(nf * 2)
    }
    let i = sp + 1
    let c = -1
    for (let f = 0; f < nf; f++) {
      const name = names[f]
      const nameEnd = i + name.length
      if (nameEnd >= nl) {
        return false
      }
      for (let q = 0; q < name.length; q++) {
        if (name.charCodeAt(q) !== s.charCodeAt(i + q)) {
          return false
        }
      }
      if (s.charCodeAt(nameEnd) !== EQUALS) {
        return false
      }
      const v = nameEnd + 1
      i = v
      c = i < nl ? s.charCodeAt(i) : -1
      if (c === 45 || c === 43) {
        i++
      }
      let digits = 0
      let dot = false
      while (i < nl) {
        c = s.charCodeAt(i)
        if (c >= 48 && c <= 57) {
          digits++
        } else if (c === 46 && !dot) {
          dot = true
        } else {
          break
        }
        i++
      }
      if (digits === 0 || digits > 15) {
        return false
      }
      if (kinds[f] === FAST_BIGINT) {
        if (dot || i >= nl || s.charCodeAt(i) !== 105 /* i */) {
          return false
        }
        // at most 15 digits: exact as a number, written as its 64 bits without a bigint
        this.lineNums[f] = smallInteger(s, v, i)
        i++
      } else {
        if (i - v > 16) {
          return false
        }
        this.lineNums[f] = fastDecimal(s, v, i, true) as number
      }
      c = i < nl ? s.charCodeAt(i) : -1
      if (f < nf - 1 ? c !== COMMA : c !== SPACE && c !== -1) {
        return false
      }
      i++
    }
    // the timestamp, after one space, or none (null); a number when it has at most 15 digits
    let ts: bigint | number | null = null
    if (c === SPACE) {
      let k = i
      const neg = k < nl && s.charCodeAt(k) === 45
      if (neg) {
        k++
      }
      const first = k
      let acc = 0
      for (; k < nl; k++) {
        const d = s.charCodeAt(k)
        if (d < 48 || d > 57) {
          return false
        }
        acc = acc * 10 + (d - 48)
      }
      const digits = k - first
      if (digits === 0 || digits > 19) {
        return false
      }
      if (digits <= 15) {
        ts = neg && acc !== 0 ? -acc : acc
      } else {
        try {
          ts = parseTimestamp(s, i, nl)
        } catch {
          return false // out of range: the parser says so
        }
      }
    }
    if (this.lastPlain !== undefined) {
      this.lastPlain.next = entry
    }
    this.lastPlain = entry
    const n = out.row(entry.sid, entry.shape.id, line)
    out.setTs(n, ts)
    for (let f = 0; f < nf; f++) {
      if (kinds[f] === FAST_BIGINT) {
        out.pushSafeInteger(this.lineNums[f])
      } else {
        out.pushNum(this.lineNums[f])
      }
    }
    out.count = n + 1
    return true
  }

  /** The series whose raw text is s[pos, sp), found by its hash; undefined when none or when a backslash may escape the space at sp. */
  private hashedSeries(s: string, pos: number, sp: number): FastSeries | undefined {
    // seriesTextHash(s, pos, sp), computed in the same pass that looks for a backslash (faster
    // than two calls)
    let h = sp - pos
    for (let k = pos; k < sp; k++) {
      const c = s.charCodeAt(k)
      if (c === BACKSLASH) {
        return undefined
      }
      h = (Math.imul(h, 31) + c) | 0
    }
    const entry = this.fastSeries.get(h)
    return entry !== undefined && sameText(entry.raw, s, pos, sp) ? entry : undefined
  }
}
