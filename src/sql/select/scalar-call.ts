/**
 * SQL of TDengine's maths and string scalar functions, the same results on every backend:
 * domain errors (ln of 0, asin of 2, a zero modulus) are NULL as in TDengine instead of the
 * backend's error, and positions, padding and trimming follow TDengine, not the backend.
 */
import { FUNCTIONS } from './functions.js'
import type { Compiled } from './compile-context.js'
import { constInt, numericArg, paraType, paraValue, sqlOf, stringArg, type ScalarCall } from './scalar-args.js'
import { castSql } from './scalar-cast.js'
import { EXTRA_SCALARS } from './scalar-extra.js'
import { timeCall } from './scalar-time.js'
import { fixed, isNumeric, isSignedInt, isString, isUnsignedInt, type TypeInfo } from './type-info.js'

const DOUBLE = fixed('DOUBLE')
/** TSDB_MAX_BINARY_LEN: the longest VARCHAR value TDengine holds */
const MAX_STRING = 65517
const BIGINT = fixed('BIGINT')

/** the SQL of a scalar call this module owns, or undefined (functions.ts's common subset) */
export function scalarCall(c: ScalarCall): Compiled | undefined {
  const own = MATHS[c.name] ?? STRINGS[c.name] ?? EXTRA_SCALARS[c.name]
  if (own !== undefined) {
    return own(c)
  }
  return timeCall(c)
}

function resultType(c: ScalarCall): TypeInfo {
  return FUNCTIONS.get(c.name)?.result(c.args.map((a) => a.type)) ?? DOUBLE
}

function isIntegral(t: TypeInfo['type']): boolean {
  return isSignedInt(t) || isUnsignedInt(t) || t === 'TIMESTAMP'
}

/** f(x) as DOUBLE, NULL outside the domain `ok` (a condition on the DOUBLE value) */
function guarded(fn: string, ok?: (x: string) => string): (c: ScalarCall) => Compiled {
  return (c) => {
    const x = sqlOf(c.ctx).dbl(numericArg(c, 0).sql)
    const call = `${fn}(${x})`
    return { sql: ok === undefined ? call : `(CASE WHEN ${ok(x)} THEN ${call} END)`, type: DOUBLE }
  }
}

/** round-half-away-from-zero of a DOUBLE to `digits` places, spelt alike for every backend */
export function roundSql(x: string, digits: string | undefined, dbl: (s: string) => string): string {
  const scale = digits === undefined ? undefined : `power(${dbl('10')}, ${dbl(digits)})`
  const y = scale === undefined ? x : `(${x} * ${scale})`
  // trunc(y) and y - trunc(y) are exact in binary floating point, so this is C's round()
  const r = `(trunc(${y}) + (CASE WHEN abs(${y} - trunc(${y})) >= 0.5 THEN sign(${y}) ELSE 0 END))`
  return scale === undefined ? r : `(${r} / ${scale})`
}

/** ROUND(x[, digits]) and TRUNCATE(x, digits): integers pass through, floats keep their type */
function roundLike(mode: 'round' | 'truncate'): (c: ScalarCall) => Compiled {
  return (c) => {
    const x = numericArg(c, 0)
    const digitsArg = c.args[1] === undefined ? undefined : numericArg(c, 1)
    const d = constInt(c.raw[1])
    const type = x.type
    const p = c.ctx.sql
    const { dbl } = sqlOf(c.ctx)
    if (isIntegral(type.type) && (digitsArg === undefined || (d !== undefined && d >= 0))) {
      return { sql: digitsArg === undefined ? x.sql : `(CASE WHEN ${digitsArg.sql} IS NOT NULL THEN ${x.sql} END)`, type }
    }
    const v = dbl(x.sql)
    let sql: string
    if (mode === 'round') {
      sql = roundSql(v, digitsArg?.sql, dbl)
    } else {
      const scale = `power(${dbl('10')}, ${dbl((digitsArg as Compiled).sql)})`
      sql = `(trunc(${v} * ${scale}) / ${scale})`
    }
    const out = type.type === 'NULL' ? DOUBLE : type
    return { sql: `CAST(${sql} AS ${p.physType(out.type === 'NULL' ? 'DOUBLE' : out.type)})`, type: out }
  }
}

const MATHS: Record<string, (c: ScalarCall) => Compiled> = {
  abs: (c) => {
    const x = numericArg(c, 0)
    const t = x.type.type
    if (!isSignedInt(t) || t === 'BIGINT' || t === 'BOOL') {
      return { sql: `abs(${x.sql})`, type: x.type }
    }
    // abs of the smallest TINYINT/SMALLINT/INT wraps like C instead of overflowing in the backend
    const wide: Compiled = { sql: `abs(${sqlOf(c.ctx).big(x.sql)})`, type: BIGINT }
    return castSql(wide, c.raw[0], x.type, c.ctx)
  },
  sin: guarded('sin'),
  cos: guarded('cos'),
  tan: guarded('tan'),
  asin: guarded('asin', (x) => `${x} BETWEEN -1 AND 1`),
  acos: guarded('acos', (x) => `${x} BETWEEN -1 AND 1`),
  atan: guarded('atan'),
  exp: guarded('exp', (x) => `${x} < 709.78`),
  ln: guarded('ln', (x) => `${x} > 0`),
  sqrt: guarded('sqrt', (x) => `${x} >= 0`),
  degrees: guarded('degrees'),
  radians: guarded('radians'),
  pi: (c) => ({ sql: sqlOf(c.ctx).dbl('pi()'), type: DOUBLE }),
  log: (c) => {
    const { dbl } = sqlOf(c.ctx)
    const x = dbl(numericArg(c, 0).sql)
    if (c.args.length === 1) {
      return { sql: `(CASE WHEN ${x} > 0 THEN ln(${x}) END)`, type: DOUBLE }
    }
    const b = dbl(numericArg(c, 1).sql)
    return { sql: `(CASE WHEN ${x} > 0 AND ${b} > 0 AND ${b} <> 1 THEN ln(${x}) / ln(${b}) END)`, type: DOUBLE }
  },
  pow: (c) => {
    const { dbl } = sqlOf(c.ctx)
    const a = dbl(numericArg(c, 0).sql)
    const b = dbl(numericArg(c, 1).sql)
    // C's pow gives inf / NaN where PostgreSQL fails the query: NULL on every backend
    // and beyond DOUBLE's range (inf, NULL in the JSON), where PostgreSQL fails with an overflow
    const overflow = `(${a} <> 0 AND ${b} * ln(abs(${a})) > 709.78)`
    return { sql: `(CASE WHEN (${a} = 0 AND ${b} < 0) OR (${a} < 0 AND ${b} <> trunc(${b})) OR ${overflow} THEN NULL ELSE power(${a}, ${b}) END)`, type: DOUBLE }
  },
  mod: (c) => {
    const { dbl } = sqlOf(c.ctx)
    const a = dbl(numericArg(c, 0).sql)
    const b = dbl(numericArg(c, 1).sql)
    // C's fmod: the sign of the dividend; a zero divisor gives NULL
    return { sql: `(${a} - ${b} * trunc(${a} / NULLIF(${b}, 0)))`, type: DOUBLE }
  },
  sign: (c) => {
    const x = numericArg(c, 0)
    const t = x.type.type === 'NULL' ? DOUBLE : x.type
    return { sql: `CAST(sign(${x.sql}) AS ${c.ctx.sql.physType(t.type === 'NULL' ? 'DOUBLE' : t.type)})`, type: t }
  },
  round: roundLike('round'),
  truncate: roundLike('truncate'),
  rand: (c) => {
    if (c.args.length === 0) {
      return { sql: 'random()', type: DOUBLE }
    }
    // a seed makes the value reproducible: a fixed value per seed (no per-statement seeding in SQL)
    const seed = constInt(c.raw[0])
    if (seed === undefined) {
      throw paraType()
    }
    return { sql: sqlOf(c.ctx).dbl(String(seededRandom(seed))), type: DOUBLE }
  },
}

/** a deterministic value in [0, 1) for a seed (mulberry32-style mixing) */
function seededRandom(seed: number): number {
  let t = (seed + 0x6d2b79f5) | 0
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

function escapeRegex(s: string): string {
  return s.replace(/[\\^$.*+?()[\]{}|]/g, (ch) => `\\${ch}`)
}

const STRINGS: Record<string, (c: ScalarCall) => Compiled> = {
  length: (c) => {
    const a = c.args[0]
    const s = isString(a.type.type) || a.type.type === 'NULL' ? a.sql : sqlOf(c.ctx).text(a.sql)
    return { sql: sqlOf(c.ctx).big(c.ctx.sql.dialect.scalar.byteLength(s)), type: BIGINT }
  },
  char_length: (c) => ({ sql: sqlOf(c.ctx).big(`length(${stringArg(c, 0).sql})`), type: BIGINT }),
  concat: (c) => {
    // TDengine: any NULL argument makes the result NULL (the backends' concat() skips NULLs)
    const { text } = sqlOf(c.ctx)
    c.args.forEach((_, i) => stringArg(c, i))
    return { sql: `(${c.args.map((a) => text(a.sql)).join(' || ')})`, type: resultType(c) }
  },
  concat_ws: (c) => {
    const { text } = sqlOf(c.ctx)
    c.args.forEach((_, i) => stringArg(c, i))
    const sep = text(c.args[0].sql)
    return { sql: `(${c.args.slice(1).map((a) => text(a.sql)).join(` || ${sep} || `)})`, type: resultType(c) }
  },
  substr: substr,
  substring: substr,
  substring_index: (c) => {
    const s = stringArg(c, 0).sql
    const delim = stringArg(c, 1).sql
    const n = numericArg(c, 2).sql
    const { big } = sqlOf(c.ctx)
    // split_part counts from the left; the right-hand form reverses everything
    const left = `array_to_string((string_to_array(${s}, ${delim}))[1:${big(n)}], ${delim})`
    const right = `reverse(array_to_string((string_to_array(reverse(${s}), reverse(${delim})))[1:${big(`-(${n})`)}], reverse(${delim})))`
    return { sql: `(CASE WHEN ${n} > 0 THEN ${left} WHEN ${n} < 0 THEN ${right} ELSE '' END)`, type: c.args[0].type }
  },
  replace: (c) => {
    const [s, from, to] = [0, 1, 2].map((i) => stringArg(c, i).sql)
    return { sql: `replace(${s}, ${from}, ${to})`, type: c.args[0].type }
  },
  repeat: (c) => {
    const s = stringArg(c, 0).sql
    const n = numericArg(c, 1).sql
    const k = constInt(c.raw[1])
    const len = Math.max(1, c.raw[0].kind === 'str' ? c.raw[0].value.length : c.args[0].type.length)
    if (k !== undefined && k * len > MAX_STRING) {
      throw paraValue('repeat')
    }
    // a column count is capped so no row grows past TDengine's longest string (a huge count
    // would otherwise build a gigabyte value in the backend)
    const capped = `least(CAST(${n} AS INTEGER), CAST(${MAX_STRING} / greatest(length(${s}), 1) AS INTEGER))`
    return { sql: `(CASE WHEN ${n} < 1 THEN '' ELSE repeat(${s}, ${capped}) END)`, type: c.args[0].type }
  },
  trim: (c) => {
    const s = stringArg(c, 0).sql
    const rem = c.raw[1]
    const side = c.raw[2]?.kind === 'str' ? c.raw[2].value : 'both'
    if (rem === undefined || (rem.kind === 'str' && rem.value === ' ')) {
      const fn = side === 'leading' ? 'ltrim' : side === 'trailing' ? 'rtrim' : 'trim'
      return { sql: `${fn}(${s})`, type: c.args[0].type }
    }
    // remstr is removed as a whole string, repeatedly (trim('ab' from 'ababc') = 'c')
    if (rem.kind !== 'str') {
      throw paraType()
    }
    if (rem.value === '') {
      return { sql: s, type: c.args[0].type }
    }
    const d = c.ctx.sql.dialect
    const e = escapeRegex(rem.value)
    let sql = s
    if (side !== 'trailing') {
      sql = d.scalar.regexReplace(sql, d.quoteString(`^(${e})+`), "''")
    }
    if (side !== 'leading') {
      sql = d.scalar.regexReplace(sql, d.quoteString(`(${e})+$`), "''")
    }
    return { sql, type: c.args[0].type }
  },
  ascii: (c) => {
    // the first BYTE of the UTF-8 encoding, as TDengine counts it
    const s = stringArg(c, 0).sql
    const q = c.ctx.sql.dialect.quotient
    const cp = `ascii(${s})`
    const sql = `(CASE WHEN ${cp} < 128 THEN ${cp} WHEN ${cp} < 2048 THEN 192 + ${q(cp, '64')} WHEN ${cp} < 65536 THEN 224 + ${q(cp, '4096')} ELSE 240 + ${q(cp, '262144')} END)`
    return { sql: sqlOf(c.ctx).big(sql), type: BIGINT }
  },
  position: (c) => {
    const needle = stringArg(c, 0).sql
    const hay = stringArg(c, 1).sql
    return { sql: sqlOf(c.ctx).big(`strpos(${hay}, ${needle})`), type: BIGINT }
  },
  char: (c) => {
    // each argument is bytes, most significant first: char(77 * 256 + 77) = 'MM'; NULLs are skipped
    const { big } = sqlOf(c.ctx)
    const d = c.ctx.sql.dialect
    const parts = c.args.map((a) => {
      if (!isString(a.type.type) && !isNumeric(a.type.type) && a.type.type !== 'NULL') {
        throw paraType()
      }
      const n = big(a.sql)
      const byte = (shift: number): string => `chr(CAST(${d.quotient(n, String(2 ** shift))} % 256 AS INTEGER))`
      return `COALESCE(CASE WHEN ${n} < 256 THEN ${byte(0)} WHEN ${n} < 65536 THEN ${byte(8)} || ${byte(0)} WHEN ${n} < 16777216 THEN ${byte(16)} || ${byte(8)} || ${byte(0)} ELSE ${byte(24)} || ${byte(16)} || ${byte(8)} || ${byte(0)} END, '')`
    })
    return { sql: `(${parts.join(' || ')})`, type: resultType(c) }
  },
}

/** SUBSTR(s, pos[, len]): 1-based, negative pos counts from the end, pos 0 or len < 1 is '' */
function substr(c: ScalarCall): Compiled {
  const s = sqlOf(c.ctx).text(stringArg(c, 0).sql)
  // positions as INTEGER: PostgreSQL's substr has no BIGINT form
  const int = (x: string): string => `CAST(${x} AS INTEGER)`
  const pos = int(numericArg(c, 1).sql)
  const len = c.args[2] === undefined ? undefined : int(numericArg(c, 2).sql)
  const n = `length(${s})`
  const take = (start: string): string => (len === undefined ? `substr(${s}, ${start})` : `substr(${s}, ${start}, ${len})`)
  const sql =
    `(CASE WHEN ${pos} = 0${len === undefined ? '' : ` OR ${len} < 1`} THEN '' ` +
    `WHEN ${pos} > 0 THEN ${take(pos)} ` +
    `WHEN -${pos} > ${n} THEN '' ELSE ${take(`${n} + ${pos} + 1`)} END)`
  return { sql: `(CASE WHEN ${s} IS NOT NULL AND ${pos} IS NOT NULL THEN ${sql} END)`, type: c.args[0].type }
}
