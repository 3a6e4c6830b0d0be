/**
 * DuckDB result chunks read as numeric columns (storage/types.ts NumericChunk) straight from the
 * vectors' memory. Building a row array per row, a bigint per BIGINT value and a boxed number
 * per DOUBLE cost a 160,700-row aggregate about as much main-thread time as encoding it, most of
 * it in the garbage collector afterwards.
 */
import type { DuckDBDataChunk } from '@duckdb/node-api'
import { DuckDBTypeId } from '@duckdb/node-api'
import bindings from '@duckdb/node-bindings'
import type { NumericChunk, NumericVector } from '../types.js'

type Reader = (bytes: Uint8Array, n: number, out: Float64Array, valid: (r: number) => boolean) => boolean

/** a view of `bytes` as T when aligned, else of an aligned copy */
function view<T>(bytes: Uint8Array, size: number, make: (b: ArrayBuffer, off: number, n: number) => T, n: number): T {
  if (bytes.byteOffset % size === 0) {
    return make(bytes.buffer as ArrayBuffer, bytes.byteOffset, n)
  }
  return make(bytes.slice(0, n * size).buffer, 0, n)
}

function copying<A extends ArrayLike<number>>(size: number, make: (b: ArrayBuffer, off: number, n: number) => A): Reader {
  return (bytes, n, out) => {
    // TypedArray#set converts element types natively (a plain copy for DOUBLE)
    out.set(view(bytes, size, make, n))
    return true
  }
}

/**
 * 64-bit integers as two 32-bit halves (little-endian, as DuckDB stores them on every platform
 * Node runs on): no bigint per value. False when a value is beyond 2^53 and a double would round it.
 */
function int64(unsigned: boolean): Reader {
  return (bytes, n, out, valid) => {
    const halves = view(bytes, 4, (b, off, k) => new Int32Array(b, off, k), n * 2)
    for (let r = 0; r < n; r++) {
      const lo = halves[2 * r] >>> 0
      const hi = unsigned ? halves[2 * r + 1] >>> 0 : halves[2 * r + 1]
      // |value| < 2^53 <=> the high half is in [-2^21, 2^21) (the bound itself excluded)
      if (hi >= 0x200000 || hi < -0x200000 || (hi === -0x200000 && lo === 0)) {
        if (valid(r)) {
          return false
        }
        continue
      }
      out[r] = hi * 4294967296 + lo
    }
    return true
  }
}

const READERS: Partial<Record<number, { size: number; integral: boolean; read: Reader }>> = {
  [DuckDBTypeId.BOOLEAN]: { size: 1, integral: true, read: (bytes, n, out) => {
    for (let r = 0; r < n; r++) {
      out[r] = bytes[r] === 0 ? 0 : 1
    }
    return true
  } },
  [DuckDBTypeId.TINYINT]: { size: 1, integral: true, read: copying(1, (b, o, n) => new Int8Array(b, o, n)) },
  [DuckDBTypeId.UTINYINT]: { size: 1, integral: true, read: copying(1, (b, o, n) => new Uint8Array(b, o, n)) },
  [DuckDBTypeId.SMALLINT]: { size: 2, integral: true, read: copying(2, (b, o, n) => new Int16Array(b, o, n)) },
  [DuckDBTypeId.USMALLINT]: { size: 2, integral: true, read: copying(2, (b, o, n) => new Uint16Array(b, o, n)) },
  [DuckDBTypeId.INTEGER]: { size: 4, integral: true, read: copying(4, (b, o, n) => new Int32Array(b, o, n)) },
  [DuckDBTypeId.UINTEGER]: { size: 4, integral: true, read: copying(4, (b, o, n) => new Uint32Array(b, o, n)) },
  [DuckDBTypeId.BIGINT]: { size: 8, integral: true, read: int64(false) },
  [DuckDBTypeId.UBIGINT]: { size: 8, integral: true, read: int64(true) },
  [DuckDBTypeId.FLOAT]: { size: 4, integral: false, read: copying(4, (b, o, n) => new Float32Array(b, o, n)) },
  [DuckDBTypeId.DOUBLE]: { size: 8, integral: false, read: copying(8, (b, o, n) => new Float64Array(b, o, n)) },
}

/**
 * The chunk as numeric columns, or undefined when a column is not numeric or holds an integer a
 * double cannot carry exactly (the caller then reads it as rows).
 */
export function numericChunk(chunk: DuckDBDataChunk): NumericChunk | undefined {
  const n = chunk.rowCount
  const width = chunk.columnCount
  const columns: NumericVector[] = []
  for (let c = 0; c < width; c++) {
    const vector = bindings.data_chunk_get_vector(chunk.chunk, c)
    const reader = READERS[bindings.get_type_id(bindings.vector_get_column_type(vector))]
    if (reader === undefined) {
      return undefined
    }
    const nulls = nullsOf(bindings.vector_get_validity(vector, Math.ceil(n / 64) * 8), n)
    const valid = nulls === undefined ? () => true : (r: number) => nulls[r] === 0
    const values = new Float64Array(n)
    if (!reader.read(bindings.vector_get_data(vector, n * reader.size), n, values, valid)) {
      return undefined
    }
    if (nulls !== undefined) {
      // the data under a NULL is whatever the vector held there
      for (let r = 0; r < n; r++) {
        if (nulls[r] === 1) {
          values[r] = 0
        }
      }
    }
    columns.push({ values, nulls, integral: reader.integral })
  }
  return { rowCount: n, columns }
}

/** DuckDB's validity mask (1 bit per row, 1 = valid; absent when all are) as 1 = NULL bytes, or undefined without NULLs. */
function nullsOf(mask: Uint8Array | null | undefined, n: number): Uint8Array | undefined {
  if (mask === null || mask === undefined) {
    return undefined
  }
  let nulls: Uint8Array | undefined
  for (let r = 0; r < n; r++) {
    if ((mask[r >> 3] & (1 << (r & 7))) === 0) {
      nulls ??= new Uint8Array(n)
      nulls[r] = 1
    }
  }
  return nulls
}

/** Chunks of the same columns as one (the stream hands out chunks of a target size). */
export function concatNumeric(parts: NumericChunk[]): NumericChunk {
  if (parts.length === 1) {
    return parts[0]
  }
  let n = 0
  for (const p of parts) {
    n += p.rowCount
  }
  const columns = parts[0].columns.map((first, c): NumericVector => {
    const values = new Float64Array(n)
    let nulls: Uint8Array | undefined
    let at = 0
    for (const p of parts) {
      const col = p.columns[c]
      values.set(col.values, at)
      if (col.nulls !== undefined) {
        nulls ??= new Uint8Array(n)
        nulls.set(col.nulls, at)
      }
      at += p.rowCount
    }
    return { values, nulls, integral: first.integral }
  })
  return { rowCount: n, columns }
}
