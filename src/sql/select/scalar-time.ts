/**
 * SQL of TDengine's time functions over BIGINT ticks in the database precision, the same on every
 * backend: calendar parts come from `DATE '1970-01-01' + days` (UTC, the adapter's zone), the
 * rest is integer arithmetic. Datetime strings are parsed at plan time when constant, in SQL
 * when they are column values (NULL when they are not ISO 8601 / RFC 3339).
 */
import { TD, TdError } from '../../td-error.js'
import type { Precision } from '../../storage/td-types.js'
import { parseTimestampString } from '../time.js'
import type { Compiled, CompileCtx } from './compile-context.js'
import { constInt, paraType, paraValue, sqlOf, type ScalarCall } from './scalar-args.js'
import { DAYS, inCaseOf, MONTHS, parseWithFormat, tokenizeFormat } from './time-format.js'
import { fieldsToTicks, formatTicks } from './ticks-sql.js'
import { fixed, isSignedInt, isString, isUnsignedInt } from './type-info.js'
import { durationToTicks } from './window.js'

const BIGINT = fixed('BIGINT')
const TIMESTAMP = fixed('TIMESTAMP')
const PER_SECOND: Record<Precision, bigint> = { ms: 1000n, us: 1_000_000n, ns: 1_000_000_000n }
const DIGITS: Record<Precision, number> = { ms: 3, us: 6, ns: 9 }

export function timeCall(c: ScalarCall): Compiled | undefined {
  const f = TIME[c.name]
  return f === undefined ? undefined : f(c)
}

/** the BIGINT ticks of argument `i`: a timestamp, an integer, or a datetime string */
function ticksArg(c: ScalarCall, i: number): string {
  const a = c.args[i]
  const raw = c.raw[i]
  const t = a.type.type
  if (raw.kind === 'str') {
    try {
      return sqlOf(c.ctx).big(parseTimestampString(raw.value, c.ctx.precision).toString())
    } catch {
      return `CAST(NULL AS ${c.ctx.sql.physType('BIGINT')})`
    }
  }
  if (t === 'TIMESTAMP' || isSignedInt(t) || isUnsignedInt(t) || t === 'NULL') {
    return sqlOf(c.ctx).big(a.sql)
  }
  if (isString(t)) {
    return isoTicks(a.sql, c.ctx)
  }
  throw paraType()
}

const ISO_RE =
  '^\\s*([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:[T ]([0-9]{1,2}):([0-9]{1,2})(?::([0-9]{1,2})(?:\\.([0-9]{1,9})[0-9]*)?)?)?\\s*(Z|z|[+-][0-9]{2}(?::?[0-9]{2})?)?\\s*$'

/** SQL parse of a datetime string column into ticks; NULL when it does not match */
export function isoTicks(s: string, ctx: CompileCtx): string {
  const d = ctx.sql.dialect
  const g = (n: number): string => d.scalar.regexGroup(s, d.quoteString(ISO_RE), n)
  const int = (x: string): string => `CAST(${x} AS INTEGER)`
  const num = (n: number): string => `COALESCE(${int(g(n))}, 0)`
  const z = g(8)
  const off =
    `(CASE WHEN ${z} IS NULL OR upper(${z}) = 'Z' THEN 0 ELSE (CASE WHEN substr(${z}, 1, 1) = '-' THEN -1 ELSE 1 END) * ` +
    `(${int(`substr(${z}, 2, 2)`)} * 60 + COALESCE(${int(`NULLIF(substr(replace(${z}, ':', ''), 4, 2), '')`)}, 0)) END)`
  const fracNs = sqlOf(ctx).big(`rpad(COALESCE(${g(7)}, '0'), 9, '0')`)
  // the year group is NULL exactly when the string does not match: the whole value is NULL then
  return fieldsToTicks(
    { matched: `${g(1)} IS NOT NULL`, year: int(g(1)), month: int(g(2)), day: int(g(3)), hour: num(4), minute: num(5), second: num(6), fracNs, offsetMin: off },
    ctx,
  )
}

/** calendar parts of ticks `t` (UTC) */
export function parts(t: string, ctx: CompileCtx): {
  days: string
  date: string
  ext: (field: string) => string
  hour: string
  minute: string
  second: string
  frac: string
} {
  const d = ctx.sql.dialect
  const per = PER_SECOND[ctx.precision]
  const dayTicks = (per * 86400n).toString()
  const days = d.floorDiv(t, dayTicks)
  const tod = `(${t} - ${days} * ${dayTicks})`
  const sod = d.quotient(tod, per.toString())
  const date = `(DATE '1970-01-01' + CAST(${days} AS INTEGER))`
  const big = sqlOf(ctx).big
  return {
    days,
    date,
    ext: (field) => big(`extract(${field} FROM ${date})`),
    hour: d.quotient(sod, '3600'),
    minute: `(${d.quotient(sod, '60')} % 60)`,
    second: `(${sod} % 60)`,
    frac: `(${tod} % ${per})`,
  }
}

export function pad(x: string, n: number, ctx: CompileCtx): string {
  return `lpad(${sqlOf(ctx).text(x)}, ${n}, '0')`
}

function mod7(x: string): string {
  return `(((${x}) % 7 + 7) % 7)`
}

/** a `+hh:mm`-style zone argument: its offset in minutes (the text is echoed in the output) */
function zoneOffset(z: string): number {
  if (z === 'z' || z === 'Z') {
    return 0
  }
  const m = /^([+-])(\d{2})(?::?(\d{2}))?$/.exec(z)
  if (m === null || Number(m[2]) > 23 || Number(m[3] ?? 0) > 59) {
    // TDengine's text, spelling included
    throw new TdError(TD.FUNC_TIME_UNIT_INVALID, 'Invalid timzone format : to_iso8601')
  }
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? 0))
}

function unitTicks(c: ScalarCall, i: number): bigint {
  const u = c.raw[i]
  if (u?.kind !== 'duration' || u.duration.unit === '' || u.duration.unit === 'n' || u.duration.unit === 'y') {
    throw paraValue(c.name)
  }
  const ticks = durationToTicks(u.duration, c.ctx.precision)
  if (ticks < 1n) {
    throw new TdError(TD.FUNC_TIME_UNIT_TOO_SMALL, `Time unit is too small : ${c.name}`)
  }
  return ticks
}

/** WEEK(x, mode) after MySQL's week algorithm, which TDengine's mode table follows */
function weekSql(t: string, mode: number, ctx: CompileCtx): string {
  const flags = (mode & 1) === 0 ? (mode & 7) ^ 4 : mode & 7
  const mondayFirst = (flags & 1) !== 0
  const weekYear = (flags & 2) !== 0
  const firstWeekday = (flags & 4) !== 0
  const p = parts(t, ctx)
  const q = (a: string, b: string): string => ctx.sql.dialect.quotient(a, b)
  const D = p.days
  const J = `(${D} - ${p.ext('doy')} + 1)`
  const yearLen = (y: string): string => sqlOf(ctx).big(`extract(doy FROM make_date(CAST(${y} AS INTEGER), 12, 31))`)
  const L = yearLen(p.ext('year'))
  const Lp = yearLen(`${p.ext('year')} - 1`)
  const W = mod7(`${J} + ${mondayFirst ? 3 : 4}`)
  const notFirst = (w: string): string => (firstWeekday ? `${w} <> 0` : `${w} >= 4`)
  const body = (j: string, w: string, len: string, wy: boolean): string => {
    const days = `(CASE WHEN ${notFirst(w)} THEN ${D} - (${j} + 7 - ${w}) ELSE ${D} - (${j} - ${w}) END)`
    const normal = `(${q(days, '7')} + 1)`
    if (!wy) {
      return normal
    }
    const w2 = mod7(`${w} + ${len}`)
    const nextYear = firstWeekday ? `${w2} = 0` : `${w2} < 4`
    return `(CASE WHEN ${days} >= 364 AND ${nextYear} THEN 1 ELSE ${normal} END)`
  }
  const prevYear = body(`(${J} - ${Lp})`, mod7(`${W} - ${Lp}`), Lp, true)
  const firstDays = weekYear ? prevYear : `(CASE WHEN ${notFirst(W)} THEN 0 ELSE ${prevYear} END)`
  return `(CASE WHEN ${D} - ${J} + 1 <= 7 - ${W} THEN ${firstDays} ELSE ${body(J, W, L, weekYear)} END)`
}

/** TO_CHAR's SQL: one piece per format token, concatenated */
function toCharSql(t: string, fmt: string, ctx: CompileCtx): string {
  const p = parts(t, ctx)
  const { text, str } = sqlOf(ctx)
  const per = PER_SECOND[ctx.precision]
  const pieces = tokenizeFormat(fmt).map((tok) => {
    if ('text' in tok) {
      return str(tok.text)
    }
    const f = tok.field
    // month 1-12 and dow 0-6 (Sunday first) select a name, padded to the longest (9)
    const names = (list: string[], index: string, abbrev: boolean): string =>
      `(CASE ${index} ${list.map((name, k) => `WHEN ${k} THEN ${str(inCaseOf(f, abbrev ? name.slice(0, 3) : name.padEnd(9)))}`).join(' ')} END)`
    const hour12 = `(CASE WHEN ${p.hour} % 12 = 0 THEN 12 ELSE ${p.hour} % 12 END)`
    const meridian = (am: string, pmText: string): string => `(CASE WHEN ${p.hour} < 12 THEN ${str(am)} ELSE ${str(pmText)} END)`
    switch (f.toUpperCase()) {
      case 'YYYY':
        return pad(p.ext('year'), 4, ctx)
      case 'YYY':
        return pad(`${p.ext('year')} % 1000`, 3, ctx)
      case 'YY':
        return pad(`${p.ext('year')} % 100`, 2, ctx)
      case 'Y':
        return text(`${p.ext('year')} % 10`)
      case 'MONTH':
      case 'MON':
        return names(MONTHS, `(${p.ext('month')} - 1)`, f.length === 3)
      case 'MM':
        return pad(p.ext('month'), 2, ctx)
      case 'DD':
        return pad(p.ext('day'), 2, ctx)
      case 'DAY':
      case 'DY':
        return names(DAYS, p.ext('dow'), f.length === 2)
      case 'DDD':
        return pad(p.ext('doy'), 3, ctx)
      case 'D':
        return text(`${p.ext('dow')} + 1`)
      case 'HH24':
        return pad(p.hour, 2, ctx)
      case 'HH12':
      case 'HH':
        return pad(hour12, 2, ctx)
      case 'MI':
        return pad(p.minute, 2, ctx)
      case 'SS':
        return pad(p.second, 2, ctx)
      case 'MS':
      case 'US':
      case 'NS': {
        // the fraction in 3, 6 or 9 digits whatever the precision
        const want = f.toUpperCase() === 'MS' ? 3 : f.toUpperCase() === 'US' ? 6 : 9
        const ns = `(${p.frac} * ${(1_000_000_000n / per).toString()})`
        return pad(ctx.sql.dialect.quotient(ns, (10n ** BigInt(9 - want)).toString()), want, ctx)
      }
      case 'TZH':
        return str('+00')
      case 'AM':
      case 'PM':
        return f === f.toUpperCase() ? meridian('AM', 'PM') : meridian('am', 'pm')
      default:
        return f === f.toUpperCase() ? meridian('A.M.', 'P.M.') : meridian('a.m.', 'p.m.')
    }
  })
  return pieces.length === 0 ? str('') : `(${pieces.join(' || ')})`
}

const TIME: Record<string, (c: ScalarCall) => Compiled> = {
  timetruncate: (c) => {
    const t = ticksArg(c, 0)
    const u = unitTicks(c, 1)
    if (c.args[2] !== undefined && ![0, 1].includes(constInt(c.raw[2]) ?? -1)) {
      throw paraType()
    }
    // the adapter's zone is UTC, so use_current_timezone 0 and 1 truncate alike; 1w lands on a
    // Thursday (weeks counted from the Unix epoch); C division as in TDengine (toward zero)
    const d = c.ctx.sql.dialect
    return { sql: sqlOf(c.ctx).big(`(${d.quotient(t, u.toString())} * ${u})`), type: TIMESTAMP }
  },
  timediff: (c) => {
    const diff = `(${ticksArg(c, 0)} - ${ticksArg(c, 1)})`
    if (c.raw[2] === undefined || c.raw[2].kind === 'null') {
      return { sql: sqlOf(c.ctx).big(diff), type: BIGINT }
    }
    // truncated toward zero like C's integer division
    return { sql: sqlOf(c.ctx).big(c.ctx.sql.dialect.quotient(diff, unitTicks(c, 2).toString())), type: BIGINT }
  },
  to_iso8601: (c) => {
    let zone = '+0000'
    if (c.raw[1] !== undefined) {
      if (c.raw[1].kind !== 'str') {
        throw paraType()
      }
      zone = c.raw[1].value
    }
    const offset = BigInt(zoneOffset(zone)) * 60n * PER_SECOND[c.ctx.precision]
    const t = `(${ticksArg(c, 0)} + ${offset})`
    const p = parts(t, c.ctx)
    const { str } = sqlOf(c.ctx)
    const sql = [
      pad(p.ext('year'), 4, c.ctx), str('-'), pad(p.ext('month'), 2, c.ctx), str('-'), pad(p.ext('day'), 2, c.ctx), str('T'),
      pad(p.hour, 2, c.ctx), str(':'), pad(p.minute, 2, c.ctx), str(':'), pad(p.second, 2, c.ctx), str('.'),
      pad(p.frac, DIGITS[c.ctx.precision], c.ctx), str(zone),
    ].join(' || ')
    return { sql: `(${sql})`, type: { type: 'VARCHAR', length: 64 } }
  },
  to_unixtimestamp: (c) => {
    const a = c.args[0]
    if (!isString(a.type.type) && a.type.type !== 'NULL') {
      throw paraType()
    }
    const flag = c.raw[1] === undefined ? 0 : constInt(c.raw[1])
    if (flag !== 0 && flag !== 1) {
      throw paraType()
    }
    return { sql: ticksArg(c, 0), type: flag === 1 ? TIMESTAMP : BIGINT }
  },
  to_char: (c) => {
    const fmt = c.raw[1]
    if (fmt.kind !== 'str') {
      throw paraType()
    }
    return { sql: toCharSql(ticksArg(c, 0), fmt.value, c.ctx), type: { type: 'VARCHAR', length: 4096 } }
  },
  to_timestamp: (c) => {
    const [s, fmt] = c.raw
    if (fmt.kind !== 'str' || (s.kind !== 'str' && s.kind !== 'null' && !isString(c.args[0].type.type))) {
      throw paraType()
    }
    if (s.kind === 'null') {
      return { sql: `CAST(NULL AS ${c.ctx.sql.physType('BIGINT')})`, type: TIMESTAMP }
    }
    if (s.kind !== 'str') {
      // a column: the format becomes a regular expression, unreadable values are NULL
      return { sql: formatTicks(c.args[0].sql, fmt.value, c.ctx), type: TIMESTAMP }
    }
    return { sql: sqlOf(c.ctx).big(parseWithFormat(s.value, fmt.value, c.ctx.precision).toString()), type: TIMESTAMP }
  },
  weekday: (c) => ({ sql: mod7(`${parts(ticksArg(c, 0), c.ctx).days} + 3`), type: BIGINT }),
  dayofweek: (c) => ({ sql: `(${mod7(`${parts(ticksArg(c, 0), c.ctx).days} + 4`)} + 1)`, type: BIGINT }),
  week: (c) => {
    const mode = c.raw[1] === undefined ? 0 : constInt(c.raw[1])
    if (mode === undefined || mode < 0 || mode > 7) {
      throw paraType()
    }
    return { sql: weekSql(ticksArg(c, 0), mode, c.ctx), type: BIGINT }
  },
  weekofyear: (c) => ({ sql: weekSql(ticksArg(c, 0), 3, c.ctx), type: BIGINT }),
}
