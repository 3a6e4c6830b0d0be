import { TICKS_PER_MS } from '../time.js'
import type { Precision } from '../../storage/td-types.js'

/**
 * Natural month and year windows (INTERVAL(1n), INTERVAL(1y)) in UTC, the adapter's server time
 * zone. A window is a run of K months counted from January 1900, as TDengine aligns them; a
 * row's window number is floor(months since 1900 of (ts - offset) - offset months, K). Days and
 * civil dates convert with Howard Hinnant's integer algorithms (days_from_civil and its
 * inverse), written once in backend SQL (identical on both backends: integer arithmetic only)
 * and once in BigInt for FILL and plan-time bounds.
 */
export interface MonthWindow {
  /** window length in months */
  k: number
  /** offset in months (an `n` offset of a year window) */
  offMonths: number
}

const MONTHS_1900 = 1900 * 12
/** days from 0000-03-01 to 1970-01-01 */
const EPOCH_SHIFT = 719468

const ticksPerDay = (p: Precision): bigint => 86_400_000n * TICKS_PER_MS[p]

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q
}

/** months since January 1900 of the instant `ticks` (UTC) */
export function monthIndex(ticks: bigint, p: Precision): bigint {
  const z = floorDiv(ticks, ticksPerDay(p)) + BigInt(EPOCH_SHIFT)
  const era = floorDiv(z, 146097n)
  const doe = z - era * 146097n
  const yoe = (doe - doe / 1460n + doe / 36524n - doe / 146096n) / 365n
  const doy = doe - (365n * yoe + yoe / 4n - yoe / 100n)
  const mp = (5n * doy + 2n) / 153n
  return (yoe + era * 400n) * 12n + mp + 2n - BigInt(MONTHS_1900)
}

/** the first instant (ticks) of month `m` since January 1900 */
export function monthStart(m: bigint, p: Precision): bigint {
  const a = m + BigInt(MONTHS_1900) - 2n
  const y = floorDiv(a, 12n)
  const mp = a - 12n * y
  const era = floorDiv(y, 400n)
  const yoe = y - 400n * era
  const doe = 365n * yoe + yoe / 4n - yoe / 100n + (153n * mp + 2n) / 5n
  return (146097n * era + doe - BigInt(EPOCH_SHIFT)) * ticksPerDay(p)
}

/** start (ticks) of the window holding `ticks`; `offset`: the fixed-unit offset in ticks */
export function monthWindowStart(ticks: bigint, mw: MonthWindow, offset: bigint, p: Precision): bigint {
  const n = floorDiv(monthIndex(ticks - offset, p) - BigInt(mw.offMonths), BigInt(mw.k))
  return monthStart(n * BigInt(mw.k) + BigInt(mw.offMonths), p) + offset
}

/** start (ticks) of the window after the one starting at `start` */
export function nextMonthWindow(start: bigint, mw: MonthWindow, offset: bigint, p: Precision): bigint {
  const m = monthIndex(start - offset, p) + BigInt(mw.k)
  return monthStart(m, p) + offset
}

/**
 * Backend SQL of the same two functions: the window number of a row (`ts`: BIGINT ticks) and
 * the start of window number `n`. `q` is the non-negative integer quotient, `fd` the floor
 * division; from 0000-03-01 on every intermediate value is non-negative, so only the first
 * division (ticks to days, negative before 1970) needs the floor.
 */
export function monthWindowSql(
  mw: MonthWindow,
  offset: bigint,
  p: Precision,
  q: (a: string, b: string) => string,
  fd: (a: string, b: string) => string,
): { indexSql: (ts: string) => string; startSql: (n: string) => string } {
  const k = mw.k
  const tpd = ticksPerDay(p).toString()
  const indexSql = (ts: string): string => {
    const shifted = offset === 0n ? ts : `(${ts} - ${offset})`
    const z = `(${fd(shifted, tpd)} + ${EPOCH_SHIFT})`
    const era = q(z, '146097')
    const doe = `(${z} - ${era} * 146097)`
    const yoe = q(`${doe} - ${q(doe, '1460')} + ${q(doe, '36524')} - ${q(doe, '146096')}`, '365')
    const doy = `(${doe} - (365 * ${yoe} + ${q(yoe, '4')} - ${q(yoe, '100')}))`
    const mp = q(`5 * ${doy} + 2`, '153')
    const months = `((${yoe} + ${era} * 400) * 12 + ${mp} + ${2 - MONTHS_1900 - mw.offMonths})`
    return fd(months, String(k))
  }
  const startSql = (n: string): string => {
    const a = `(${n} * ${k} + ${mw.offMonths + MONTHS_1900 - 2})`
    const y = q(a, '12')
    const mp = `(${a} - 12 * ${y})`
    const era = q(y, '400')
    const yoe = `(${y} - 400 * ${era})`
    const doe = `(365 * ${yoe} + ${q(yoe, '4')} - ${q(yoe, '100')} + ${q(`153 * ${mp} + 2`, '5')})`
    return `((146097 * ${era} + ${doe} - ${EPOCH_SHIFT}) * ${tpd}${offset === 0n ? '' : ` + ${offset}`})`
  }
  return { indexSql, startSql }
}
