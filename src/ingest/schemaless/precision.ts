/**
 * Timestamp precision of schemaless requests and exact conversion to the database precision.
 * Everything is bigint: a nanosecond timestamp does not fit a double.
 */
import type { Precision } from '../../storage/td-types.js'

/** Precisions a write request may use (line protocol `precision=`); OpenTSDB paths pass `ms`. */
export type RequestPrecision = 'h' | 'm' | 's' | 'ms' | 'us' | 'ns'

const NS_PER: Record<RequestPrecision, bigint> = {
  h: 3_600_000_000_000n,
  m: 60_000_000_000n,
  s: 1_000_000_000n,
  ms: 1_000_000n,
  us: 1_000n,
  ns: 1n,
}

const I64_MIN = -(2n ** 63n)
const I64_MAX = 2n ** 63n - 1n

/**
 * `precision=` of the line-protocol endpoint to a request precision; undefined when not accepted.
 * Absent or empty means ns. taosAdapter ignores InfluxDB's own `n` and `us`; they are accepted
 * here as users expect (adapter-behaviour 4 recommends it).
 */
export function parseRequestPrecision(raw: string | undefined): RequestPrecision | undefined {
  switch (raw ?? '') {
    case '':
    case 'n':
    case 'ns':
      return 'ns'
    case 'u':
    case 'us':
    case 'µ': // U+00B5 micro sign
    case 'μ': // U+03BC greek mu
      return 'us'
    case 'ms':
      return 'ms'
    case 's':
      return 's'
    case 'm':
      return 'm'
    case 'h':
      return 'h'
    default:
      return undefined
  }
}

/**
 * A converter from request ticks to database ticks. Coarser database precision floors (so a
 * pre-1970 timestamp lands in the tick that contains it); returns undefined when the result leaves
 * the signed 64-bit range.
 */
export function tickConverter(from: RequestPrecision, to: Precision): (ts: bigint) => bigint | undefined {
  const a = NS_PER[from]
  const b = NS_PER[to]
  // every branch checks the range: a parser's bigint can be any size, and storage would wrap it
  const inRange = (v: bigint): bigint | undefined => (v < I64_MIN || v > I64_MAX ? undefined : v)
  if (a === b) {
    return inRange
  }
  if (a > b) {
    const mul = a / b
    return (ts) => inRange(ts * mul)
  }
  const div = b / a
  return (ts) => {
    const q = ts / div
    // bigint division truncates toward zero; floor for negative non-multiples
    return inRange(ts < 0n && q * div !== ts ? q - 1n : q)
  }
}

/** The current time in database ticks. */
export function nowTicks(to: Precision, nowMs: number = Date.now()): bigint {
  return BigInt(nowMs) * (NS_PER.ms / NS_PER[to])
}
