import { TD, TdError } from '../td-error.js'
import type { Precision } from '../storage/td-types.js'

/**
 * Timestamps are bigint ticks since the Unix epoch in the database precision (ms, us or ns), so
 * every precision round-trips exactly. This module converts between ticks, datetime strings and
 * duration literals (sql-dialect.md section 1.2).
 */

export const TICKS_PER_MS: Readonly<Record<Precision, bigint>> = { ms: 1n, us: 1000n, ns: 1_000_000n }
const TICKS_PER_SECOND: Readonly<Record<Precision, bigint>> = { ms: 1000n, us: 1_000_000n, ns: 1_000_000_000n }
const NS_PER_TICK: Readonly<Record<Precision, bigint>> = { ms: 1_000_000n, us: 1000n, ns: 1n }
/** digits after the decimal point when formatting, by precision */
const FRACTION_DIGITS: Readonly<Record<Precision, number>> = { ms: 3, us: 6, ns: 9 }

/** nanoseconds per duration unit; `n` (month) and `y` (year) are calendar units, see durationTicks */
const UNIT_NS: Readonly<Record<string, bigint>> = {
  b: 1n,
  u: 1000n,
  a: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
  d: 86_400_000_000_000n,
  w: 604_800_000_000_000n,
  // approximations, used only when the caller allows calendar units (see durationTicks)
  n: 30n * 86_400_000_000_000n,
  y: 365n * 86_400_000_000_000n,
}

/** Floor division for bigint (JS `/` truncates toward zero). */
export function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b
  return (a % b !== 0n && (a < 0n) !== (b < 0n)) ? q - 1n : q
}

function invalidTimestamp(s: string): TdError {
  return new TdError(TD.INVALID_TIMESTAMP, `Invalid timestamp format: ${s}`)
}

const DATETIME_RE =
  /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,9})\d*)?)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/

/**
 * Parses a datetime string to ticks: `YYYY-MM-DD[( |T)HH:MM[:SS[.fraction]]][Z|±hh:mm|±hhmm|±hh]`.
 * Zone-less strings are UTC (the adapter's deterministic connection zone, sql-dialect.md 7).
 * Fractions keep up to 9 digits exactly; digits finer than the precision are truncated (floor).
 * Throws TdError 295 `Invalid timestamp format: <s>` for anything else or impossible dates.
 */
export function parseTimestampString(s: string, precision: Precision): bigint {
  const m = DATETIME_RE.exec(s.trim())
  if (!m) {
    throw invalidTimestamp(s)
  }
  const year = Number(m[1])
  const month = Number(m[2])
  const day = Number(m[3])
  const hour = m[4] === undefined ? 0 : Number(m[4])
  const minute = m[5] === undefined ? 0 : Number(m[5])
  const second = m[6] === undefined ? 0 : Number(m[6])
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 59) {
    throw invalidTimestamp(s)
  }
  let offsetMin = 0
  const zone = m[8]
  if (zone !== undefined && zone !== 'Z' && zone !== 'z') {
    const sign = zone[0] === '-' ? -1 : 1
    const digits = zone.slice(1).replace(':', '')
    const oh = Number(digits.slice(0, 2))
    const om = digits.length > 2 ? Number(digits.slice(2, 4)) : 0
    if (oh > 23 || om > 59) {
      throw invalidTimestamp(s)
    }
    offsetMin = sign * (oh * 60 + om)
  }
  const dayMs = Date.UTC(year, month - 1, day)
  // Date.UTC maps years 0..99 to 1900..1999; the regex needs 4 digits, so only 0000-0099 hit it
  const fixYear = year < 100 ? new Date(dayMs).setUTCFullYear(year) : dayMs
  const secs = BigInt(fixYear / 1000) + BigInt(hour * 3600 + minute * 60 + second - offsetMin * 60)
  const frac = (m[7] ?? '').padEnd(9, '0')
  const ns = secs * 1_000_000_000n + BigInt(frac === '' ? 0 : Number(frac))
  return floorDiv(ns, NS_PER_TICK[precision])
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) {
    return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28
  }
  return [31, 0, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
}

/**
 * Ticks of `n` units (`b u a s m h d w`) in `precision`. Fractions are accepted (`0.5s`, a superset
 * Grafana relies on) and rounded to whole ticks. `n` (month) and `y` (year) are calendar units:
 * they throw TdError 9728 unless `opts.allowCalendar`, in which case they are approximated as 30
 * and 365 days (exact calendar arithmetic is the window planner's job).
 */
export function durationTicks(
  n: number,
  unit: string,
  precision: Precision,
  opts: { allowCalendar?: boolean } = {},
): bigint {
  const u = unit.toLowerCase()
  const unitNs = UNIT_NS[u]
  if (unitNs === undefined) {
    throw new TdError(TD.PAR_SYNTAX_ERROR, `syntax error near "${n}${unit}"`)
  }
  if ((u === 'n' || u === 'y') && !opts.allowCalendar) {
    throw new TdError(TD.PAR_SYNTAX_ERROR, `syntax error near "${n}${unit}" (calendar unit not allowed here)`)
  }
  if (Number.isInteger(n)) {
    return floorDiv(BigInt(n) * unitNs, NS_PER_TICK[precision])
  }
  return BigInt(Math.round((n * Number(unitNs)) / Number(NS_PER_TICK[precision])))
}

/** Current time in ticks. `nowMs` (epoch ms) fixes the clock for tests and per-statement NOW. */
export function nowTicks(precision: Precision, nowMs?: number): bigint {
  if (nowMs !== undefined) {
    return BigInt(Math.trunc(nowMs)) * TICKS_PER_MS[precision]
  }
  if (precision === 'ms') {
    return BigInt(Date.now())
  }
  // sub-millisecond part from the monotonic clock anchored at process start
  const us = Math.floor((performance.timeOrigin + performance.now()) * 1000)
  return precision === 'us' ? BigInt(us) : BigInt(us) * 1000n
}

/** Start of today (UTC, the adapter's connection zone) in ticks. */
export function todayTicks(precision: Precision, nowMs: number = Date.now()): bigint {
  const dayMs = Math.floor(nowMs / 86_400_000) * 86_400_000
  return BigInt(dayMs) * TICKS_PER_MS[precision]
}

/** true when Intl knows the zone (IANA name, `UTC`...). */
export function isValidTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz })
    return true
  } catch {
    return false
  }
}

const zoneFormatters = new Map<string, Intl.DateTimeFormat>()
const offsetCache = new Map<string, Map<number, number>>()

/** UTC offset of `tz` in minutes at instant `ms`. Offsets change on 15-minute boundaries at most. */
function zoneOffsetMinutes(tz: string, ms: number): number {
  const bucket = Math.floor(ms / 900_000)
  let cache = offsetCache.get(tz)
  if (cache === undefined) {
    cache = new Map()
    offsetCache.set(tz, cache)
  }
  const hit = cache.get(bucket)
  if (hit !== undefined) {
    return hit
  }
  let fmt = zoneFormatters.get(tz)
  if (fmt === undefined) {
    fmt = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    })
    zoneFormatters.set(tz, fmt)
  }
  const at = bucket * 900_000
  const p: Record<string, number> = {}
  for (const part of fmt.formatToParts(new Date(at))) {
    if (part.type !== 'literal') {
      p[part.type] = Number(part.value)
    }
  }
  const local = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second)
  const off = Math.round((local - at) / 60_000)
  if (cache.size > 10_000) {
    cache.clear()
  }
  cache.set(bucket, off)
  return off
}

function pad(n: number, w: number): string {
  return String(n).padStart(w, '0')
}

/**
 * RFC 3339 text of `ticks`, with the fixed fraction width of the precision (ms 3, us 6, ns 9).
 * No zone, `UTC` or a zero offset prints `Z`; other IANA zones print local time and a `+08:00` offset.
 */
export function formatTimestamp(ticks: bigint, precision: Precision, tz?: string): string {
  const perSec = TICKS_PER_SECOND[precision]
  const secs = floorDiv(ticks, perSec)
  const frac = ticks - secs * perSec
  const ms = Number(secs) * 1000
  let offMin = 0
  if (tz !== undefined && tz !== 'UTC' && tz !== 'Z' && tz !== 'Etc/UTC') {
    offMin = zoneOffsetMinutes(tz, ms)
  }
  const d = new Date(ms + offMin * 60_000)
  const y = d.getUTCFullYear()
  const date =
    (y >= 0 && y <= 9999 ? pad(y, 4) : (y < 0 ? '-' : '+') + pad(Math.abs(y), 6)) +
    '-' +
    pad(d.getUTCMonth() + 1, 2) +
    '-' +
    pad(d.getUTCDate(), 2) +
    'T' +
    pad(d.getUTCHours(), 2) +
    ':' +
    pad(d.getUTCMinutes(), 2) +
    ':' +
    pad(d.getUTCSeconds(), 2) +
    '.' +
    frac.toString().padStart(FRACTION_DIGITS[precision], '0')
  // Go's RFC 3339 layout (what taosAdapter uses) prints `Z` for any zero offset
  if (offMin === 0) {
    return date + 'Z'
  }
  const sign = offMin < 0 ? '-' : '+'
  const a = Math.abs(offMin)
  return `${date}${sign}${pad(Math.floor(a / 60), 2)}:${pad(a % 60, 2)}`
}
