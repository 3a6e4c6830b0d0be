/**
 * What the two appending paths (rows: append-rows.ts, columns: append-columns.ts) share: the
 * flush size, fixed-width columns copied into vectors as whole buffers, validity
 * masks, and discarding a failed appender.
 */
import { DuckDBTypeId } from '@duckdb/node-api'
import type { DuckDBAppender } from '@duckdb/node-api'
import bindings from '@duckdb/node-bindings'

/**
 * Rows between explicit flushes of the appender into the table: a flush blocks the main thread
 * with a fixed cost each, so not every chunk, and far less at a time than DuckDB's own flush.
 */
export const FLUSH_ROWS = 16_384

const toNumber = (v: unknown): number => (typeof v === 'number' ? v : Number(v))
export const toBigint = (v: unknown): bigint => (typeof v === 'bigint' ? v : BigInt(v as number))
const toBool = (v: unknown): boolean => (typeof v === 'boolean' ? v : Number(v) !== 0)

/**
 * A fixed-width column filled in a typed array and copied into the chunk's vector in one call:
 * the library's per-value `setItem` path cost several times the copy (measured in appendChunks).
 */
export interface FixedColumn {
  make: (n: number) => Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array | Float32Array | Float64Array | BigInt64Array | BigUint64Array
  set: (a: ArrayLike<unknown> & { [i: number]: unknown }, i: number, v: unknown) => void
}

const setNumber: FixedColumn['set'] = (a, i, v) => {
  ;(a as Float64Array)[i] = toNumber(v)
}
const setBigint: FixedColumn['set'] = (a, i, v) => {
  ;(a as BigInt64Array)[i] = toBigint(v)
}

export const FIXED: Partial<Record<DuckDBTypeId, FixedColumn>> = {
  [DuckDBTypeId.BOOLEAN]: { make: (n) => new Uint8Array(n), set: (a, i, v) => ((a as Uint8Array)[i] = toBool(v) ? 1 : 0) },
  [DuckDBTypeId.TINYINT]: { make: (n) => new Int8Array(n), set: setNumber },
  [DuckDBTypeId.SMALLINT]: { make: (n) => new Int16Array(n), set: setNumber },
  [DuckDBTypeId.INTEGER]: { make: (n) => new Int32Array(n), set: setNumber },
  [DuckDBTypeId.UTINYINT]: { make: (n) => new Uint8Array(n), set: setNumber },
  [DuckDBTypeId.USMALLINT]: { make: (n) => new Uint16Array(n), set: setNumber },
  [DuckDBTypeId.UINTEGER]: { make: (n) => new Uint32Array(n), set: setNumber },
  [DuckDBTypeId.FLOAT]: { make: (n) => new Float32Array(n), set: setNumber },
  [DuckDBTypeId.DOUBLE]: { make: (n) => new Float64Array(n), set: setNumber },
  [DuckDBTypeId.BIGINT]: { make: (n) => new BigInt64Array(n), set: setBigint },
  [DuckDBTypeId.UBIGINT]: { make: (n) => new BigUint64Array(n), set: setBigint },
}

type Vector = ReturnType<typeof bindings.data_chunk_get_vector>

/** A validity mask for n rows (one bit per row in little-endian 64-bit words, 1 = valid), all valid or none. */
export function validityMask(n: number, valid: boolean): Uint8Array {
  return new Uint8Array(Math.ceil(n / 64) * 8).fill(valid ? 0xff : 0)
}

export function copyValidity(vector: Vector, mask: Uint8Array): void {
  bindings.vector_ensure_validity_writable(vector)
  bindings.copy_data_to_vector_validity(vector, 0, mask.buffer as ArrayBuffer, 0, mask.byteLength)
}

/** Writes the validity of a vector's first n rows. */
export function setValidity(vector: Vector, n: number, valid: (r: number) => boolean): void {
  const mask = validityMask(n, false)
  for (let r = 0; r < n; r++) {
    if (valid(r)) {
      mask[r >> 3] |= 1 << (r & 7)
    }
  }
  copyValidity(vector, mask)
}

/**
 * Drops an appender's buffered rows after a failure. Without clear(), the native destructor
 * (run later by the garbage collector) flushes the leftover rows again and aborts whatever
 * transaction is running on the connection at that moment.
 */
export function discardAppender(a: DuckDBAppender): void {
  try {
    a.clear()
  } catch {
    // nothing buffered
  }
  try {
    a.closeSync()
  } catch {
    // the original error is what the caller reports
  }
}

