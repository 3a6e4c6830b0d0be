/**
 * Line-protocol field values that are not strings: the decimal grammar, the type suffixes
 * (`i`, `u`, `i8`..`u64`, `f32`, `f64`) with TDengine's range checks and messages, and booleans.
 * Pure helpers of LineProtoParser (parse.ts), apart from its scanning of names and sections.
 */
import { LineFailure } from '../errors.js'
import type { FieldType, PointBuilder } from '../point.js'
import { I64_MAX, I64_MIN, fastDecimal, smallInteger } from './scan.js'

interface IntRange {
  type: FieldType
  min: number
  max: number
  /** TDengine's text: `int out of range[-2147483648,2147483647]` */
  label: string
}

function intRange(type: FieldType, name: string, min: number, max: number): IntRange {
  return { type, min, max, label: `${name} out of range[${min},${max}]` }
}

const I8 = intRange('TINYINT', 'tinyint', -128, 127)
const I16 = intRange('SMALLINT', 'smallint', -32768, 32767)
const I32 = intRange('INT', 'int', -2147483648, 2147483647)
const U8 = intRange('TINYINT UNSIGNED', 'tinyint unsigned', 0, 255)
const U16 = intRange('SMALLINT UNSIGNED', 'smallint unsigned', 0, 65535)
const U32 = intRange('INT UNSIGNED', 'int unsigned', 0, 4294967295)

const U64_MAX = 2n ** 64n - 1n
const I64_LABEL = `bigint out of range[${I64_MIN},${I64_MAX}]`
const U64_LABEL = `bigint unsigned out of range[0,${U64_MAX}]`
const FLT_MAX = 3.4028234663852886e38
const FLOAT_LABEL = 'float out of range[-3.402823466e+38,3.402823466e+38]'

/** Adds the unquoted number s[i, j) as field `key` to `b` (typed by its suffix), or throws LineFailure. */
export function parseNumber(b: PointBuilder, s: string, key: string, i: number, j: number): void {
  // Decimal grammar only: [+-] digits [. digits] [e [+-] digits], at least one digit. Rejects
  // what Number() would also take (hex, Infinity, empty, whitespace).
  let k = i
  let c = s.charCodeAt(k)
  if (c === 45 || c === 43) {
    k++
  }
  let digits = 0
  while (k < j && (c = s.charCodeAt(k)) >= 48 && c <= 57) {
    k++
    digits++
  }
  let integral = true
  if (k < j && s.charCodeAt(k) === 46) {
    integral = false
    k++
    while (k < j && (c = s.charCodeAt(k)) >= 48 && c <= 57) {
      k++
      digits++
    }
  }
  if (digits === 0) {
    throw badNumber(s, key, i, j)
  }
  let noExponent = true
  if (k < j && ((c = s.charCodeAt(k)) === 101 || c === 69)) {
    integral = false
    noExponent = false
    let e = k + 1
    if (e < j && ((c = s.charCodeAt(e)) === 45 || c === 43)) {
      e++
    }
    const expStart = e
    while (e < j && (c = s.charCodeAt(e)) >= 48 && c <= 57) {
      e++
    }
    if (e === expStart) {
      throw badNumber(s, key, i, j)
    }
    k = e
  }
  const numEnd = k
  const suffixLen = j - k
  if (suffixLen === 0) {
    addDouble(b, s, key, i, numEnd, noExponent)
    return
  }
  const s0 = s.charCodeAt(k) | 0x20 // lower-case ASCII letter
  if (s0 < 97 || s0 > 122) {
    throw badNumber(s, key, i, j) // e.g. 1.2.3, 1-2: not a suffix at all
  }
  const bits = suffixBits(s, k + 1, j)
  if (bits < 0 || (s0 !== 105 && s0 !== 117 && s0 !== 102) || (s0 === 102 && bits !== 32 && bits !== 64)) {
    throw new LineFailure(
      `cannot parse field value for ${JSON.stringify(key)}: unknown type suffix ${JSON.stringify(s.slice(k, j))} in ${JSON.stringify(s.slice(i, j))}`,
      key,
    )
  }
  if (s0 === 102) {
    // f32 / f64
    if (bits === 64) {
      addDouble(b, s, key, i, numEnd, noExponent)
      return
    }
    const v = Number(s.slice(i, numEnd))
    if (!(Math.abs(v) <= FLT_MAX)) {
      throw new LineFailure(
        `cannot parse field value for ${JSON.stringify(key)}: ${FLOAT_LABEL}:${s.slice(i, numEnd)}`,
        key,
      )
    }
    b.addField(key, 'FLOAT', v)
    return
  }
  if (!integral) {
    throw new LineFailure(
      `cannot parse field value for ${JSON.stringify(key)}: not an integer: ${JSON.stringify(s.slice(i, j))}`,
      key,
    )
  }
  // Up to 15 digits the value is exact as a number: no slice, no BigInt parse.
  const small = digits <= 15 ? smallInteger(s, i, numEnd) : undefined
  const text = small === undefined ? s.slice(i, numEnd) : ''
  if (bits === 0 || bits === 64) {
    if (small !== undefined) {
      if (s0 === 117 && small < 0) {
        throw new LineFailure(
          `cannot parse field value for ${JSON.stringify(key)}: ${U64_LABEL}:${s.slice(i, numEnd)}`,
          key,
        )
      }
      b.addField(key, s0 === 105 ? 'BIGINT' : 'BIGINT UNSIGNED', toBigInt(small))
      return
    }
    const v = BigInt(text)
    if (s0 === 105) {
      if (v < I64_MIN || v > I64_MAX) {
        throw new LineFailure(`cannot parse field value for ${JSON.stringify(key)}: ${I64_LABEL}:${text}`, key)
      }
      b.addField(key, 'BIGINT', v)
    } else {
      if (v < 0n || v > U64_MAX) {
        throw new LineFailure(`cannot parse field value for ${JSON.stringify(key)}: ${U64_LABEL}:${text}`, key)
      }
      b.addField(key, 'BIGINT UNSIGNED', v)
    }
    return
  }
  const r =
    s0 === 105 ? (bits === 8 ? I8 : bits === 16 ? I16 : I32) : bits === 8 ? U8 : bits === 16 ? U16 : U32
  // Over-long digit strings become large numbers and fail the range check.
  const v = small ?? Number(text)
  if (!(v >= r.min && v <= r.max)) {
    throw new LineFailure(
      `cannot parse field value for ${JSON.stringify(key)}: ${r.label}:${s.slice(i, numEnd)}`,
      key,
    )
  }
  b.addField(key, r.type, v === 0 ? 0 : v) // -0 -> 0
}

function addDouble(b: PointBuilder, s: string, key: string, i: number, numEnd: number, noExponent: boolean): void {
  const v = fastDecimal(s, i, numEnd, noExponent) ?? Number(s.slice(i, numEnd))
  if (!Number.isFinite(v)) {
    throw new LineFailure(
      `cannot parse field value for ${JSON.stringify(key)}: double out of range:${s.slice(i, numEnd)}`,
      key,
    )
  }
  b.addField(key, 'DOUBLE', v)
}

function badNumber(s: string, key: string, i: number, j: number): LineFailure {
  return new LineFailure(
    `cannot parse field value for ${JSON.stringify(key)}: invalid value ${JSON.stringify(s.slice(i, j))}`,
    key,
  )
}

/** 0 for no digits after the suffix letter, 8/16/32/64, or -1. */
function suffixBits(s: string, i: number, end: number): number {
  const n = end - i
  if (n === 0) {
    return 0
  }
  const a = s.charCodeAt(i)
  if (n === 1) {
    return a === 56 ? 8 : -1
  }
  if (n !== 2) {
    return -1
  }
  const b = s.charCodeAt(i + 1)
  return a === 49 && b === 54 ? 16 : a === 51 && b === 50 ? 32 : a === 54 && b === 52 ? 64 : -1
}

/** Small counters and flags dominate real integer fields; their bigints are made once. */
const SMALL_BIGINTS: bigint[] = Array.from({ length: 1024 }, (_, n) => BigInt(n))

function toBigInt(v: number): bigint {
  return v >= 0 && v < 1024 ? SMALL_BIGINTS[v] : BigInt(v)
}

/** t T true True TRUE f F false False (the forms TDengine accepts), else undefined. */
export function parseBool(s: string, i: number, j: number): boolean | undefined {
  const n = j - i
  if (n === 1) {
    const c = s.charCodeAt(i)
    return c === 116 || c === 84 ? true : c === 102 || c === 70 ? false : undefined
  }
  if (n !== 4 && n !== 5) {
    return undefined
  }
  const w = s.slice(i, j)
  if (w === 'true' || w === 'True' || w === 'TRUE') {
    return true
  }
  if (w === 'false' || w === 'False' || w === 'FALSE') {
    return false
  }
  return undefined
}
