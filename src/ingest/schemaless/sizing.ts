/**
 * Var-length column sizing of schemaless writes (sql-dialect 9.4): a new or widened VARCHAR/NCHAR
 * column gets the smallest power of two strictly greater than the observed length, lengths of 1024
 * and more keep the exact length, and the type maximum caps it. So a column grows in a few large
 * steps instead of one ALTER per extra character.
 */
import type { TdType } from '../../storage/td-types.js'

/** VARCHAR data columns hold up to 65517 bytes, tags 16382 (TDengine 3.0.5+); NCHAR counts 4 bytes a character. */
export const MAX_VARCHAR_COLUMN = 65517
export const MAX_VARCHAR_TAG = 16382
export const MAX_NCHAR_COLUMN = Math.floor(MAX_VARCHAR_COLUMN / 4)
export const MAX_NCHAR_TAG = Math.floor(MAX_VARCHAR_TAG / 4)

/** Largest declared length a var-length column or tag may have. */
export function maxVarLength(type: 'VARCHAR' | 'NCHAR', isTag: boolean): number {
  if (type === 'NCHAR') {
    return isTag ? MAX_NCHAR_TAG : MAX_NCHAR_COLUMN
  }
  return isTag ? MAX_VARCHAR_TAG : MAX_VARCHAR_COLUMN
}

/** Declared length for a value of `observed` length: next power of two above it, exact from 1024, capped. */
export function varCapacity(observed: number, max: number): number {
  if (observed >= 1024) {
    return Math.min(observed, max)
  }
  let n = 1
  while (n <= observed) {
    n *= 2
  }
  return Math.min(n, max)
}

/**
 * Length of a string in the unit of its column type: UTF-8 bytes for VARCHAR, characters (code
 * points) for NCHAR, as TDengine reports them.
 */
export function valueLength(type: TdType, s: string): number {
  if (type === 'NCHAR') {
    let n = 0
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i)
      // a high surrogate followed by a low one is one character
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
        const d = s.charCodeAt(i + 1)
        if (d >= 0xdc00 && d <= 0xdfff) {
          i++
        }
      }
      n++
    }
    return n
  }
  return Buffer.byteLength(s, 'utf8')
}

/** True when `s` certainly fits `length` without measuring exactly (the hot-path check). */
export function fitsQuickly(type: TdType, s: string, length: number): boolean {
  // UTF-16 units >= code points, and every unit is at most 3 UTF-8 bytes
  return type === 'NCHAR' ? s.length <= length : s.length * 3 <= length
}
