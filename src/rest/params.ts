import { isValidTimeZone } from '../sql/time.js'
import type { RestFailure } from '../http/error-table.js'

/**
 * `tz` query parameter: IANA zone used to render TIMESTAMP values. Empty or absent means UTC.
 * An unknown zone is 400 with Go's error text, as taosAdapter answers.
 */
export function parseTz(tz: string | undefined): { tz: string | undefined } | RestFailure {
  if (tz === undefined || tz === '' || tz === 'UTC') {
    return { tz: undefined }
  }
  if (!isValidTimeZone(tz)) {
    return { status: 400, code: 65535, desc: `unknown time zone ${tz}` }
  }
  return { tz }
}

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n

/**
 * `req_id` query parameter: signed 64-bit decimal (0 or absent = none; used for logs only).
 * The error text mirrors Go's `strconv.ParseInt` messages after taosAdapter's prefix.
 */
export function parseReqId(raw: string | undefined): { reqId: bigint } | RestFailure {
  if (raw === undefined || raw === '') {
    return { reqId: 0n }
  }
  const prefix = 'illegal param, req_id must be numeric '
  if (!/^[+-]?\d+$/.test(raw)) {
    return { status: 400, code: 65535, desc: `${prefix}strconv.ParseInt: parsing ${JSON.stringify(raw)}: invalid syntax` }
  }
  const v = BigInt(raw)
  if (v < INT64_MIN || v > INT64_MAX) {
    return { status: 400, code: 65535, desc: `${prefix}strconv.ParseInt: parsing ${JSON.stringify(raw)}: value out of range` }
  }
  return { reqId: v }
}

/**
 * `ttl` query parameter: absent or empty -> 0 (none); otherwise a non-negative integer number of
 * days. Returns an error text for anything else.
 */
export function parseTtl(raw: string | undefined): number | string {
  if (raw === undefined || raw === '') {
    return 0
  }
  if (!/^[+]?\d+$/.test(raw)) {
    return `illegal param: ttl must be a non-negative integer (days), got ${JSON.stringify(raw)}`
  }
  const n = Number(raw)
  if (!Number.isSafeInteger(n) || n > 2147483647) {
    return `illegal param: ttl ${raw} is too large`
  }
  return n
}
