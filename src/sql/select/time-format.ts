/**
 * TDengine's TO_CHAR / TO_TIMESTAMP format strings (function reference, "Supported Formats"):
 * the format is split into field tokens and literal text; TO_TIMESTAMP of constant strings is
 * evaluated here, TO_CHAR is written as SQL by scalar-time.ts.
 */
import { TD, TdError } from '../../td-error.js'
import type { Precision } from '../../storage/td-types.js'

export type FormatToken = { field: string } | { text: string }

/** Case-sensitive fields (their case picks the output case), longest first. */
const NAMED = ['A.M.', 'a.m.', 'P.M.', 'p.m.', 'MONTH', 'Month', 'month', 'DAY', 'Day', 'day', 'MON', 'Mon', 'mon', 'AM', 'am', 'PM', 'pm', 'DY', 'Dy', 'dy']
/** Numeric fields: upper and lower case mean the same, longest first. */
const NUMERIC = ['YYYY', 'HH24', 'HH12', 'YYY', 'DDD', 'TZH', 'YY', 'MM', 'DD', 'HH', 'MI', 'SS', 'MS', 'US', 'NS', 'Y', 'D']

export function tokenizeFormat(fmt: string): FormatToken[] {
  const out: FormatToken[] = []
  const pushText = (t: string): void => {
    const last = out[out.length - 1]
    if (last !== undefined && 'text' in last) {
      last.text += t
    } else {
      out.push({ text: t })
    }
  }
  let i = 0
  while (i < fmt.length) {
    if (fmt[i] === '\\' && fmt[i + 1] === '"') {
      pushText('"')
      i += 2
      continue
    }
    if (fmt[i] === '"') {
      // quoted text is copied as it is
      const end = fmt.indexOf('"', i + 1)
      pushText(end < 0 ? fmt.slice(i + 1) : fmt.slice(i + 1, end))
      i = end < 0 ? fmt.length : end + 1
      continue
    }
    const named = NAMED.find((n) => fmt.startsWith(n, i))
    if (named !== undefined) {
      out.push({ field: named })
      i += named.length
      continue
    }
    const upper = fmt.slice(i, i + 4).toUpperCase()
    const num = NUMERIC.find((n) => upper.startsWith(n))
    if (num !== undefined) {
      out.push({ field: num })
      i += num.length
      continue
    }
    pushText(fmt[i])
    i++
  }
  return out
}

export const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december']
export const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday']

/** `name` in the case of `field`: MONTH -> JANUARY, Month -> January, month -> january */
export function inCaseOf(field: string, name: string): string {
  if (field === field.toUpperCase()) {
    return name.toUpperCase()
  }
  if (field[0] === field[0].toUpperCase()) {
    return name[0].toUpperCase() + name.slice(1)
  }
  return name
}

const NS_PER_TICK: Record<Precision, bigint> = { ms: 1_000_000n, us: 1000n, ns: 1n }

function badFormat(_s: string): TdError {
  return new TdError(TD.FUNC_TO_TIMESTAMP_FAILED_FORMAT_ERR, 'Func to_timestamp failed for format mismatch')
}

/**
 * TO_TIMESTAMP of a constant string: fields are read where the format puts them (numbers may
 * have fewer digits), whitespace and format text absent from the input are skipped, unset
 * fields default to 1970-01-01 00:00:00 UTC. Returns ticks in `precision` (finer digits cut).
 */
export function parseWithFormat(s: string, fmt: string, precision: Precision): bigint {
  const tokens = tokenizeFormat(fmt)
  let year = 1970
  let month = 1
  let day = 1
  let hour = 0
  let minute = 0
  let second = 0
  let ns = 0n
  let pm: boolean | undefined
  let offsetMin = 0
  let i = 0
  const skipSpace = (): void => {
    while (i < s.length && /\s/.test(s[i])) {
      i++
    }
  }
  const digits = (max: number): string => {
    skipSpace()
    let j = i
    if (s[j] === '+' || s[j] === '-') {
      j++
    }
    while (j < s.length && j - i < max && s[j] >= '0' && s[j] <= '9') {
      j++
    }
    const t = s.slice(i, j)
    if (!/[0-9]/.test(t)) {
      throw badFormat(s)
    }
    i = j
    return t
  }
  const name = (list: string[], abbrev: boolean): number => {
    skipSpace()
    const rest = s.slice(i).toLowerCase()
    const k = list.findIndex((n) => rest.startsWith(abbrev ? n.slice(0, 3) : n))
    if (k < 0) {
      throw badFormat(s)
    }
    i += abbrev ? 3 : list[k].length
    return k
  }
  for (const t of tokens) {
    if ('text' in t) {
      for (const ch of t.text) {
        if (/\s/.test(ch)) {
          continue
        }
        skipSpace()
        if (s[i] === ch) {
          i++
        }
      }
      continue
    }
    const f = t.field.toUpperCase()
    switch (f) {
      case 'YYYY':
        year = Number(digits(4))
        break
      case 'YYY':
        year = 2000 + Number(digits(3))
        break
      case 'YY':
        year = 2000 + Number(digits(2))
        break
      case 'Y':
        year = 2020 + Number(digits(1))
        break
      case 'MONTH':
      case 'MON':
        month = name(MONTHS, f === 'MON') + 1
        break
      case 'MM':
        month = Number(digits(2))
        break
      case 'DD':
        day = Number(digits(2))
        break
      case 'DAY':
      case 'DY':
        name(DAYS, f === 'DY')
        break
      case 'DDD':
      case 'D':
        digits(f === 'D' ? 1 : 3)
        break
      case 'HH24':
        hour = Number(digits(2))
        break
      case 'HH12':
      case 'HH':
        hour = Number(digits(2))
        break
      case 'MI':
        minute = Number(digits(2))
        break
      case 'SS':
        second = Number(digits(2))
        break
      case 'MS':
        ns += BigInt(digits(3).padEnd(3, '0')) * 1_000_000n
        break
      case 'US':
        ns += BigInt(digits(6).padEnd(6, '0')) * 1000n
        break
      case 'NS':
        ns += BigInt(digits(9).padEnd(9, '0'))
        break
      case 'TZH':
        offsetMin = Number(digits(3)) * 60
        break
      default: {
        // AM / PM with or without dots
        skipSpace()
        const m = /^([ap])\.?m\.?/i.exec(s.slice(i))
        if (m === null) {
          throw badFormat(s)
        }
        pm = m[1].toLowerCase() === 'p'
        i += m[0].length
      }
    }
  }
  if (pm !== undefined) {
    if (hour < 1 || hour > 12) {
      throw badFormat(s)
    }
    hour = (hour % 12) + (pm ? 12 : 0)
  }
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) {
    throw badFormat(s)
  }
  const ms = Date.UTC(year, month - 1, day, hour, minute, second) - offsetMin * 60_000
  if (!Number.isFinite(ms)) {
    throw badFormat(s)
  }
  const total = BigInt(ms) * 1_000_000n + ns
  const per = NS_PER_TICK[precision]
  return total >= 0n ? total / per : -((-total + per - 1n) / per)
}
