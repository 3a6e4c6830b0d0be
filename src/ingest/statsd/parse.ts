/**
 * @module
 * StatsD lines as the original's StatsD input reads them (adapter-behaviour 8, telegraf 1.23 with
 * DataDog extensions off): `bucket[,k=v...]:value|type[|@rate][:value|type...]`, one line per
 * `\n`, each line trimmed. Pure: text in, samples and per-line errors out; nothing is aggregated
 * here (aggregate.ts does that).
 *
 * Differences from the original, on purpose: a bad line is refused whole (the original had
 * already aggregated the values before the bad one), a sample rate outside (0, 1] or unreadable
 * is an error instead of being ignored, and values must be finite decimal numbers (no NaN/Inf).
 * Every line is scanned once, so the work is linear in its length.
 */
import { IngestParseError, LineFailure } from '../errors.js'
import { MAX_TAGS, tooManyTags } from '../limits.js'

export type StatsdType = 'c' | 'g' | 's' | 'ms' | 'h' | 'd'

/** One `value|type[|@rate]` of a line, its bucket already split into name and tags. */
export interface StatsdSample {
  /** the bucket's name with `.` replaced by `_` (the measurement) */
  name: string
  /** the bucket's tags sorted by key, duplicates resolved (last wins), empty keys/values and metric_type left out */
  tags: Array<[string, string]>
  type: StatsdType
  /**
   * c: the integer to add (already divided by the sample rate and truncated);
   * g, ms, h, d: the float; s: unused (0)
   */
  value: number
  /** c only: the integer when it is outside the safe range of a number (then `value` is approximate) */
  big?: bigint
  /** g only: `+x` / `-x` adds to the gauge instead of replacing it */
  additive: boolean
  /** s only: the member */
  member: string
  /** the sample rate (1 when none was sent); ms/h samples count 1/rate times */
  rate: number
}

const TYPES: ReadonlySet<string> = new Set(['c', 'g', 's', 'ms', 'h', 'd'])
const INT64_MAX = 2n ** 63n - 1n
const INT64_MIN = -(2n ** 63n)

/**
 * Parses one trimmed, non-empty line into its samples (several `:value|type` bits share the
 * bucket). Throws LineFailure for anything it cannot read; then none of the line's samples count.
 */
export function parseStatsdLine(line: string): StatsdSample[] {
  const colon = line.indexOf(':')
  if (colon < 0) {
    throw new LineFailure('no ":" after the bucket name (expected bucket:value|type)')
  }
  const { name, tags } = parseBucket(line.slice(0, colon))
  const out: StatsdSample[] = []
  let start = colon + 1
  for (;;) {
    const next = line.indexOf(':', start)
    const bit = next < 0 ? line.slice(start) : line.slice(start, next)
    out.push(parseBit(bit, name, tags))
    if (next < 0) {
      return out
    }
    start = next + 1
  }
}

function parseBucket(bucket: string): { name: string; tags: Array<[string, string]> } {
  const comma = bucket.indexOf(',')
  const rawName = comma < 0 ? bucket : bucket.slice(0, comma)
  if (rawName === '') {
    throw new LineFailure('empty bucket name')
  }
  const name = rawName.replaceAll('.', '_')
  if (comma < 0) {
    return { name, tags: [] }
  }
  const byKey = new Map<string, string>()
  let start = comma + 1
  let parts = 0
  for (;;) {
    const next = bucket.indexOf(',', start)
    const part = next < 0 ? bucket.slice(start) : bucket.slice(start, next)
    // one tag is metric_type; counted before any work on the rest of the line
    if (++parts > MAX_TAGS - 1) {
      throw new LineFailure(`${tooManyTags()}; metric_type takes one`, 'tags')
    }
    // as the original: exactly one "=" makes a tag, anything else is ignored
    const eq = part.indexOf('=')
    if (eq > 0 && part.indexOf('=', eq + 1) < 0 && eq < part.length - 1) {
      const key = part.slice(0, eq)
      // metric_type is the receiver's own tag (the original overwrote a sent one)
      if (key !== 'metric_type') {
        byKey.set(key, part.slice(eq + 1))
      }
    }
    if (next < 0) {
      break
    }
    start = next + 1
  }
  const tags = [...byKey].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
  return { name, tags }
}

function parseBit(bit: string, name: string, tags: Array<[string, string]>): StatsdSample {
  const p1 = bit.indexOf('|')
  if (p1 < 0) {
    throw new LineFailure(`no "|type" after the value ${JSON.stringify(bit.slice(0, 40))}`)
  }
  const text = bit.slice(0, p1)
  const p2 = bit.indexOf('|', p1 + 1)
  const type = p2 < 0 ? bit.slice(p1 + 1) : bit.slice(p1 + 1, p2)
  if (!TYPES.has(type)) {
    throw new LineFailure(`unknown metric type ${JSON.stringify(type.slice(0, 20))} (expected c, g, s, ms, h or d)`)
  }
  let rate = 1
  if (p2 >= 0) {
    // the third segment may be the rate; later ones (DataDog's |#tags, |c:) are not read, as in the original
    const p3 = bit.indexOf('|', p2 + 1)
    const seg = p3 < 0 ? bit.slice(p2 + 1) : bit.slice(p2 + 1, p3)
    if (seg.startsWith('@')) {
      const r = parseDecimal(seg.slice(1))
      if (r === undefined || !(r > 0 && r <= 1)) {
        throw new LineFailure(`sample rate ${JSON.stringify(seg.slice(0, 30))} is not a number in (0, 1]`)
      }
      rate = r
    }
  }
  const signed = text.startsWith('+') || text.startsWith('-')
  if (signed && type !== 'g' && type !== 'c') {
    throw new LineFailure(`a +/- value is only allowed for gauges and counters, not "${type}"`)
  }
  const sample: StatsdSample = { name, tags, type: type as StatsdType, value: 0, additive: false, member: '', rate }
  if (type === 's') {
    sample.member = text
    return sample
  }
  const v = parseDecimal(text)
  if (v === undefined) {
    throw new LineFailure(`value ${JSON.stringify(text.slice(0, 40))} is not a finite number`)
  }
  if (type === 'c') {
    counterValue(sample, text, v, rate)
  } else {
    sample.value = v
    sample.additive = signed
  }
  return sample
}

/** A counter: integer (a fraction is truncated), divided by the rate and truncated again. */
function counterValue(sample: StatsdSample, text: string, v: number, rate: number): void {
  let n = Math.trunc(v)
  if (rate !== 1) {
    n = Math.trunc(n / rate)
  }
  if (Number.isSafeInteger(n)) {
    sample.value = n
    return
  }
  // beyond 2^53 a number is inexact: an integer as sent is kept whole in a bigint
  const exact = rate === 1 && isIntegerText(text) ? BigInt(text) : BigInt(n)
  if (exact > INT64_MAX || exact < INT64_MIN) {
    throw new LineFailure(`counter value ${JSON.stringify(text.slice(0, 40))} is outside the 64-bit integer range`)
  }
  sample.value = n
  sample.big = exact
}

function isIntegerText(s: string): boolean {
  let i = s.startsWith('+') || s.startsWith('-') ? 1 : 0
  if (i === s.length) {
    return false
  }
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 48 || c > 57) {
      return false
    }
  }
  return true
}

/**
 * A decimal number: optional sign, digits with an optional point (at least one digit), optional
 * exponent. One pass, no regular expression (a backtracking one is quadratic on long digit runs).
 */
export function parseDecimal(s: string): number | undefined {
  const n = s.length
  let i = 0
  if (i < n && (s.charCodeAt(i) === 43 || s.charCodeAt(i) === 45)) {
    i++
  }
  let digits = 0
  while (i < n && isDigit(s.charCodeAt(i))) {
    i++
    digits++
  }
  if (i < n && s.charCodeAt(i) === 46) {
    i++
    while (i < n && isDigit(s.charCodeAt(i))) {
      i++
      digits++
    }
  }
  if (digits === 0) {
    return undefined
  }
  if (i < n && (s.charCodeAt(i) === 101 || s.charCodeAt(i) === 69)) {
    i++
    if (i < n && (s.charCodeAt(i) === 43 || s.charCodeAt(i) === 45)) {
      i++
    }
    const e0 = i
    while (i < n && isDigit(s.charCodeAt(i))) {
      i++
    }
    if (i === e0) {
      return undefined
    }
  }
  if (i !== n) {
    return undefined
  }
  const v = Number(s)
  return Number.isFinite(v) ? v : undefined
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57
}

export interface StatsdParseStats {
  /** non-empty lines seen */
  lines: number
  samples: number
  /** lines refused */
  errors: number
}

/**
 * Every line of a datagram (or of a TCP read): split at `\n`, trimmed, empty lines skipped. Good
 * lines' samples go to onSample in order; each bad line to onError, naming its 1-based number.
 */
export function parseStatsdText(
  text: string,
  onSample: (s: StatsdSample) => void,
  onError: (e: IngestParseError) => void,
  firstLine = 1,
): StatsdParseStats {
  const stats: StatsdParseStats = { lines: 0, samples: 0, errors: 0 }
  let start = 0
  let lineNo = firstLine
  while (start <= text.length) {
    const nl = text.indexOf('\n', start)
    const end = nl < 0 ? text.length : nl
    const line = text.slice(start, end).trim()
    if (line !== '') {
      stats.lines++
      try {
        const samples = parseStatsdLine(line)
        for (const s of samples) {
          onSample(s)
        }
        stats.samples += samples.length
      } catch (err) {
        if (!(err instanceof LineFailure)) {
          throw err
        }
        stats.errors++
        onError(new IngestParseError({ format: 'statsd', line: lineNo, reason: err.reason, input: line, ...(err.field !== undefined ? { field: err.field } : {}) }))
      }
    }
    if (nl < 0) {
      break
    }
    start = nl + 1
    lineNo++
  }
  return stats
}
