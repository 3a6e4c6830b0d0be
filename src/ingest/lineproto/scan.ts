/**
 * Scanning helpers of line protocol shared by the parser (parse.ts, field-value.ts) and the
 * workers' plain-line reader (plain-line.ts): series-text hashing and comparison, exact small
 * integers and decimals read in place, timestamps, and unescaping of names and strings. Pure: no
 * state beyond a one-entry cache.
 */
import { LineFailure } from '../errors.js'

const SPACE = 32
const COMMA = 44
const EQUALS = 61
const QUOTE = 34
const BACKSLASH = 92

export const I64_MIN = -(2n ** 63n)
export const I64_MAX = 2n ** 63n - 1n

/**
 * The hash a series' raw text s[start, end) is looked up by (LineProtoParser's known series, the
 * parse workers' SliceEncoder): a 31-multiplier string hash seeded with the length.
 */
export function seriesTextHash(s: string, start: number, end: number): number {
  let h = end - start
  for (let k = start; k < end; k++) {
    h = (Math.imul(h, 31) + s.charCodeAt(k)) | 0
  }
  return h
}

/** Whether s[start, end) is `text`. */
export function sameText(text: string, s: string, start: number, end: number): boolean {
  if (text.length !== end - start) {
    return false
  }
  for (let k = 0; k < text.length; k++) {
    if (text.charCodeAt(k) !== s.charCodeAt(start + k)) {
      return false
    }
  }
  return true
}

/** An already validated `[+-]digits` of at most 15 digits, as an exact number. */
export function smallInteger(s: string, i: number, end: number): number {
  let k = i
  const c0 = s.charCodeAt(k)
  if (c0 === 45 || c0 === 43) {
    k++
  }
  let m = 0
  for (; k < end; k++) {
    m = m * 10 + (s.charCodeAt(k) - 48)
  }
  return c0 === 45 ? -m : m === 0 ? 0 : m
}

const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15]

/**
 * Clinger's fast path: a decimal with at most 15 significant digits and no exponent is M / 10^k
 * with M and 10^k exact doubles, and IEEE division rounds that correctly, so the result equals
 * Number(text) without slicing the string. Returns undefined when the fast path does not apply.
 */
export function fastDecimal(s: string, i: number, end: number, noExponent: boolean): number | undefined {
  if (!noExponent || end - i > 16) {
    return undefined
  }
  let k = i
  const c0 = s.charCodeAt(k)
  const neg = c0 === 45
  if (neg || c0 === 43) {
    k++
  }
  let m = 0
  let digits = 0
  let frac = -1
  for (; k < end; k++) {
    const c = s.charCodeAt(k)
    if (c === 46) {
      frac = 0
      continue
    }
    m = m * 10 + (c - 48)
    digits++
    if (frac >= 0) {
      frac++
    }
  }
  if (digits > 15) {
    return undefined
  }
  const v = frac > 0 ? m / POW10[frac] : m
  return neg ? -v : v
}

let lastTsNumber = 0
let lastTsBigInt = 0n

/** `-?digits` to the end of the line, as a signed 64-bit integer. */
export function parseTimestamp(s: string, i: number, end: number): bigint {
  let k = i
  const neg = s.charCodeAt(k) === 45
  if (neg) {
    k++
  }
  const digitsStart = k
  let acc = 0
  while (k < end) {
    const c = s.charCodeAt(k)
    if (c < 48 || c > 57) {
      throw new LineFailure(`invalid timestamp ${JSON.stringify(s.slice(i, end))}`)
    }
    acc = acc * 10 + (c - 48)
    k++
  }
  const n = k - digitsStart
  if (n === 0) {
    throw new LineFailure(`invalid timestamp ${JSON.stringify(s.slice(i, end))}`)
  }
  // Up to 15 digits the accumulated number is exact, and BigInt(number) is cheaper than parsing.
  // Batches are usually time-major (many series, same timestamp), so the last value is cached;
  // bigints are immutable, so sharing one is safe.
  if (n <= 15) {
    const v = neg ? -acc : acc
    if (v !== lastTsNumber) {
      lastTsNumber = v
      lastTsBigInt = BigInt(v)
    }
    return lastTsBigInt
  }
  const v = BigInt(s.slice(i, end))
  if (v < I64_MIN || v > I64_MAX) {
    throw new LineFailure(`timestamp out of range: ${s.slice(i, end)}`)
  }
  return v
}

/** Names: `\,` `\ ` `\\` (and `\=` when `equalsEscapable`) lose the backslash; others keep it. */
export function unescapeName(text: string, equalsEscapable: boolean): string {
  let out = ''
  let from = 0
  for (;;) {
    const n = text.indexOf('\\', from)
    if (n < 0 || n + 1 >= text.length) {
      return out + text.slice(from)
    }
    const c = text.charCodeAt(n + 1)
    if (c === COMMA || c === SPACE || c === BACKSLASH || (c === EQUALS && equalsEscapable)) {
      out += text.slice(from, n) + text[n + 1]
      from = n + 2
    } else {
      out += text.slice(from, n + 1)
      from = n + 1
    }
  }
}

/** String field values: `\"` and `\\` lose the backslash; others keep it. */
export function unescapeString(text: string): string {
  let out = ''
  let from = 0
  for (;;) {
    const n = text.indexOf('\\', from)
    if (n < 0 || n + 1 >= text.length) {
      return out + text.slice(from)
    }
    const c = text.charCodeAt(n + 1)
    if (c === QUOTE || c === BACKSLASH) {
      out += text.slice(from, n) + text[n + 1]
      from = n + 2
    } else {
      out += text.slice(from, n + 1)
      from = n + 1
    }
  }
}

/**
 * `s.indexOf(ch, from)` for the ascending positions of one body. A hit past the current line stays
 * the answer for the next lines before it, so a body of lines without `ch` does not rescan its
 * rest once per line (that was quadratic). `reset()` for each new body.
 */
export class NextIndex {
  private from = 0
  /** -2: nothing remembered; -1: no `ch` after `from` */
  private at = -2

  constructor(private readonly ch: string) {}

  reset(): void {
    this.at = -2
  }

  find(s: string, from: number): number {
    const at = this.at
    if (at !== -2 && from >= this.from && (at === -1 || from <= at)) {
      return at
    }
    const i = s.indexOf(this.ch, from)
    this.from = from
    this.at = i
    return i
  }
}
