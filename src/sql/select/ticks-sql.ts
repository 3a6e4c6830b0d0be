/**
 * Datetime fields read from strings in SQL, to ticks in the database precision: shared by the
 * ISO 8601 reader (scalar-time.ts) and TO_TIMESTAMP over column values, whose format string
 * (time-format.ts tokens) is turned into one regular expression with a group per field.
 */
import type { Precision } from '../../storage/td-types.js'
import type { CompileCtx } from './compile-context.js'
import { sqlOf } from './scalar-args.js'
import { DAYS, MONTHS, tokenizeFormat } from './time-format.js'

const PER_SECOND: Record<Precision, bigint> = { ms: 1000n, us: 1_000_000n, ns: 1_000_000_000n }

/** SQL integer expressions of each field; `matched` is a condition, NULL result when false */
export interface Fields {
  matched: string
  year: string
  month: string
  day: string
  hour: string
  minute: string
  second: string
  fracNs: string
  offsetMin: string
}

export function fieldsToTicks(f: Fields, ctx: CompileCtx): string {
  const d = ctx.sql.dialect
  const big = sqlOf(ctx).big
  const { year: y, month: m, day } = f
  const leap = `(${y} % 4 = 0 AND (${y} % 100 <> 0 OR ${y} % 400 = 0))`
  const monthDays = `(CASE ${m} WHEN 2 THEN (CASE WHEN ${leap} THEN 29 ELSE 28 END) WHEN 4 THEN 30 WHEN 6 THEN 30 WHEN 9 THEN 30 WHEN 11 THEN 30 ELSE 31 END)`
  // an impossible date or time is NULL like any other unreadable string (make_date would fail)
  const valid = `${m} BETWEEN 1 AND 12 AND ${day} BETWEEN 1 AND ${monthDays} AND ${f.hour} <= 23 AND ${f.minute} <= 59 AND ${f.second} <= 59`
  const days = big(`(make_date(${y}, ${m}, ${day}) - DATE '1970-01-01')`)
  const secs = `(${days} * 86400 + ${f.hour} * 3600 + ${f.minute} * 60 + ${f.second} - ${f.offsetMin} * 60)`
  const per = PER_SECOND[ctx.precision]
  const frac = d.quotient(f.fracNs, (1_000_000_000n / per).toString())
  return `(CASE WHEN ${f.matched} AND ${valid} THEN ${secs} * ${per} + ${frac} END)`
}

function escapeRegex(s: string): string {
  return s.replace(/[\\^$.*+?()[\]{}|]/g, (ch) => `\\${ch}`)
}

/** TO_TIMESTAMP(column, format): see parseWithFormat (time-format.ts) for the constant form */
export function formatTicks(s: string, fmt: string, ctx: CompileCtx): string {
  const d = ctx.sql.dialect
  const { big, str } = sqlOf(ctx)
  const int = (x: string): string => `CAST(${x} AS INTEGER)`
  // one piece per token; a field's pattern is a group only in its own query (DuckDB's
  // regexp_extract reads groups 0-9 only, a format may have more fields)
  const pieces: Array<{ key?: string; re: string }> = []
  const group = (key: string, pattern: string): void => {
    pieces.push({ key, re: pattern })
  }
  for (const t of tokenizeFormat(fmt)) {
    if ('text' in t) {
      pieces.push({ re: escapeRegex(t.text.replace(/\s+/g, '')) })
      continue
    }
    const f = t.field.toUpperCase()
    const digits: Record<string, string> = {
      YYYY: '[0-9]{1,4}', YYY: '[0-9]{1,3}', YY: '[0-9]{1,2}', Y: '[0-9]', MM: '[0-9]{1,2}', DD: '[0-9]{1,2}', DDD: '[0-9]{1,3}', D: '[0-9]',
      HH24: '[0-9]{1,2}', HH12: '[0-9]{1,2}', HH: '[0-9]{1,2}', MI: '[0-9]{1,2}', SS: '[0-9]{1,2}', MS: '[0-9]{1,3}', US: '[0-9]{1,6}', NS: '[0-9]{1,9}', TZH: '[+-][0-9]{1,2}',
    }
    if (digits[f] !== undefined) {
      group(f, digits[f])
    } else if (f === 'MONTH' || f === 'MON') {
      group('MON', MONTHS.map((m) => (f === 'MON' ? m.slice(0, 3) : m)).join('|'))
    } else if (f === 'DAY' || f === 'DY') {
      group('DAY', DAYS.map((m) => (f === 'DY' ? m.slice(0, 3) : m)).join('|'))
    } else {
      group('AMPM', '[ap]\\.?m\\.?')
    }
  }
  const groups = new Set(pieces.flatMap((p) => (p.key === undefined ? [] : [p.key])))
  // names in any case: the value is lower-cased, and so is every literal of the format
  const value = `lower(${s})`
  const g = (key: string): string | undefined => {
    if (!groups.has(key)) {
      return undefined
    }
    let owned = false
    const body = pieces
      .map((p) => {
        if (p.key === key && !owned) {
          owned = true
          return `(${p.re})\\s*`
        }
        return `${p.key === undefined ? p.re : `(?:${p.re})`}\\s*`
      })
      .join('')
    return d.scalar.regexGroup(value, str(`^\\s*${body}$`.toLowerCase()), 1)
  }
  const num = (key: string, dflt: string): string => {
    const x = g(key)
    return x === undefined ? dflt : int(x)
  }
  let year = num('YYYY', '1970')
  if (!groups.has('YYYY')) {
    year = groups.has('YY') ? `(2000 + ${num('YY', '0')})` : groups.has('YYY') ? `(2000 + ${num('YYY', '0')})` : year
  }
  const monName = g('MON')
  const month = groups.has('MM')
    ? num('MM', '1')
    : monName !== undefined
      ? `(CASE substr(${monName}, 1, 3) ${MONTHS.map((m, i) => `WHEN '${m.slice(0, 3)}' THEN ${i + 1}`).join(' ')} END)`
      : '1'
  let hour = groups.has('HH24') ? num('HH24', '0') : groups.has('HH12') ? num('HH12', '0') : num('HH', '0')
  const ampm = g('AMPM')
  if (ampm !== undefined) {
    hour = `((${hour} % 12) + (CASE WHEN substr(${ampm}, 1, 1) = 'p' THEN 12 ELSE 0 END))`
  }
  const frac = (key: string, width: number, scale: bigint): string => {
    const x = g(key)
    return x === undefined ? '0' : `${big(`rpad(${x}, ${width}, '0')`)} * ${scale}`
  }
  const fracNs = `(${frac('MS', 3, 1_000_000n)} + ${frac('US', 6, 1000n)} + ${frac('NS', 9, 1n)})`
  const tz = g('TZH')
  const first = g([...groups][0] ?? '')
  return fieldsToTicks(
    {
      matched: first === undefined ? 'FALSE' : `${first} IS NOT NULL`,
      year,
      month,
      day: num('DD', '1'),
      hour,
      minute: num('MI', '0'),
      second: num('SS', '0'),
      fracNs,
      offsetMin: tz === undefined ? '0' : `(${int(tz)} * 60)`,
    },
    ctx,
  )
}
