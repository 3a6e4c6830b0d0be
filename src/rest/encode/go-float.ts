/** Number text as Go's encoding/json writes it, which taosAdapter's bodies hold: FLOAT and DOUBLE values. */

/** Go prints exponents with at least two digits (`1e-07`); JS prints `1e-7`. */
function goExponent(s: string): string {
  const e = s.indexOf('e')
  if (e === -1) {
    return s
  }
  const sign = s[e + 1]
  const digits = s.slice(e + 2)
  return digits.length >= 2 ? s : `${s.slice(0, e + 1)}${sign}0${digits}`
}

/** DOUBLE: shortest round-trip decimal; exponent form only below 1e-6 or from 1e21; NaN/Inf -> null. */
export function formatFloat64(v: number): string {
  if (!Number.isFinite(v)) {
    return 'null'
  }
  if (v === 0) {
    return Object.is(v, -0) ? '-0' : '0'
  }
  // JS prints plain decimals exactly in [1e-6, 1e21): no exponent to fix up there
  const a = v < 0 ? -v : v
  if (a >= 1e-6 && a < 1e21) {
    return String(v)
  }
  return goExponent(String(v))
}

/** Nearest doubles of 10^k (exact for |k| <= 22), k in -70..70. */
const POW10: number[] = Array.from({ length: 141 }, (_, i) => Number(`1e${i - 70}`))

/** Text of m * 10^k (m a positive integer) with Go's plain/exponent choice. */
function decimalText(m: number, k: number): string {
  while (m % 10 === 0) {
    m /= 10
    k++
  }
  const d = String(m)
  const n = d.length
  const e = k + n - 1 // decimal exponent of the first digit
  if (e < -6 || e >= 21) {
    const abs = e < 0 ? -e : e
    return `${d[0]}${n > 1 ? `.${d.slice(1)}` : ''}e${e < 0 ? '-' : '+'}${abs < 10 ? '0' : ''}${abs}`
  }
  if (k >= 0) {
    return d + '0'.repeat(k)
  }
  if (e >= 0) {
    return `${d.slice(0, n + k)}.${d.slice(n + k)}`
  }
  return `0.${'0'.repeat(-e - 1)}${d}`
}

/** Slow, obviously right search: smallest p whose toPrecision(p) reads back as the float32. */
function formatFloat32Slow(f: number): string {
  let lo = 1
  let hi = 9
  let best = ''
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    const text = f.toPrecision(mid)
    if (Math.fround(Number(text)) === f) {
      best = text
      hi = mid - 1
    } else {
      lo = mid + 1
    }
  }
  return goExponent(String(Number(best === '' ? f.toPrecision(9) : best)))
}

/**
 * FLOAT: the shortest decimal that reads back as the same float32 (stored 10.3 prints `10.3`,
 * not the float64 expansion `10.300000190734863`). NaN/Inf -> null.
 *
 * Hot path of large results: candidates m * 10^k are tried with plain arithmetic for 1..9
 * significant digits; the winner is checked once by parsing its text, and anything doubtful
 * falls back to the toPrecision search.
 */
export function formatFloat32(v: number): string {
  const f = Math.fround(v)
  if (!Number.isFinite(f)) {
    return 'null'
  }
  if (f === 0) {
    return Object.is(f, -0) ? '-0' : '0'
  }
  // Integers below 2^24 are exact in float32 and print as themselves.
  if (Number.isInteger(f) && f > -16777216 && f < 16777216) {
    return String(f)
  }
  const neg = f < 0
  const a = neg ? -f : f
  const e = Math.floor(Math.log10(a))
  for (let p = 1; p <= 9; p++) {
    const k = e - p + 1
    if (k < -70 || k > 70) {
      break
    }
    const m = k >= 0 ? Math.round(a / POW10[k + 70]) : Math.round(a * POW10[70 - k])
    const c = k >= 0 ? m * POW10[k + 70] : m / POW10[70 - k]
    if (m > 0 && Math.fround(c) === a) {
      const text = decimalText(m, k)
      if (Math.fround(Number(text)) === a) {
        return neg ? `-${text}` : text
      }
      break
    }
  }
  return formatFloat32Slow(f)
}

export { formatFloat32Slow as formatFloat32Reference }
