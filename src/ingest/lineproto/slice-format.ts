/**
 * How values travel in a parsed slice's typed arrays (SliceMessage in ../types.ts): the kinds of
 * timestamps and of field values, and 64-bit integers read and written as two 32-bit halves. The
 * worker side (slice-encoder.ts), the main thread's decoder (slice-decoder.ts) and the columnar
 * lane (../schemaless/columnar.ts) share it.
 */
import { endianness } from 'node:os'
import type { FieldType } from '../point.js'

export const TS_NONE = 0
export const TS_NUMBER = 1
export const TS_BIGINT = 2

export const KIND_NUM = 0
export const KIND_BOOL = 1
export const KIND_BIG = 2
const KIND_STR = 3

/** Which value stream a field type's values travel in. */
export function kindOf(type: FieldType): number {
  switch (type) {
    case 'BOOL':
      return KIND_BOOL
    case 'BIGINT':
    case 'BIGINT UNSIGNED':
      return KIND_BIG
    case 'VARCHAR':
    case 'NCHAR':
      return KIND_STR
    default:
      return KIND_NUM
  }
}

/** Which 32-bit half of a 64-bit integer comes first in memory on this machine */
const LOW = endianness() === 'LE' ? 0 : 1
const HIGH = 1 - LOW

/** A 64-bit integer array's memory as 32-bit halves. */
export function halvesOf(a: BigInt64Array | BigUint64Array): Int32Array {
  return new Int32Array(a.buffer, a.byteOffset, a.length * 2)
}

/** Writes integer `v` (|v| <= 2^53) as element k of the 64-bit array whose halves are `halves`. */
export function setInt64(halves: Int32Array, k: number, v: number): void {
  const high = Math.floor(v / 4294967296)
  // (Int32Array stores take the low 32 bits of each half)
  halves[2 * k + LOW] = v - high * 4294967296
  halves[2 * k + HIGH] = high
}
