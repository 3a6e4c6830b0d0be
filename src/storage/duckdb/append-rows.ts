import { DuckDBDataChunk, DuckDBTypeId } from '@duckdb/node-api'
import type { DuckDBAppender, DuckDBType, DuckDBValue } from '@duckdb/node-api'
import bindings from '@duckdb/node-bindings'
import { yieldToEventLoop } from '../../event-loop.js'
import type { RowBatch } from '../types.js'
import { copyValidity, discardAppender, FIXED, FLUSH_ROWS, toBigint, validityMask } from './appender.js'
import type { FixedColumn } from './appender.js'

/**
 * Rows per appended data chunk: DuckDB's vector size. Defined here, not in appender.ts, because
 * appendChunks reads it once a row, where a module's own const is cheaper than an import.
 */
export const CHUNK_ROWS = 2048

type Coerce = (v: unknown) => DuckDBValue

/** How one non-null JS value becomes the DuckDB value of a column of the given type (other types). */
function coercerFor(typeId: DuckDBTypeId): Coerce {
  switch (typeId) {
    case DuckDBTypeId.HUGEINT:
      return toBigint
    case DuckDBTypeId.VARCHAR:
      return (v) => (typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v))
    default:
      throw new Error(`writeRows: unsupported physical column type id ${typeId}`)
  }
}

/** Where an appended column's values come from. */
export type Source = { kind: 'tid' } | { kind: 'seq' } | { kind: 'null' } | { kind: 'col'; index: number } | { kind: 'const'; value: number }

/** One column of the chunk being filled: a typed array (fixed width) or values (the rest). */
interface ColumnFill {
  fixed: FixedColumn | undefined
  data: ReturnType<FixedColumn['make']> | DuckDBValue[]
  coerce: Coerce | undefined
  /** row indexes of NULLs in the current chunk (fixed-width columns) */
  nulls: number[]
}

/**
 * Appends every row of the batches column-wise, one data chunk of CHUNK_ROWS rows at a time,
 * giving the event loop a turn between chunks. Fixed-width columns go into the chunk's vectors
 * as whole buffers. The caller's close flushes what is left.
 */
async function appendChunks(appender: DuckDBAppender, sources: Source[], batches: RowBatch[]): Promise<number> {
  const types: DuckDBType[] = sources.map((_, i) => appender.columnType(i))
  const width = sources.length
  const fills: ColumnFill[] = types.map((t) => {
    const fixed = FIXED[t.typeId]
    return fixed
      ? { fixed, data: fixed.make(CHUNK_ROWS), coerce: undefined, nulls: [] }
      : { fixed: undefined, data: new Array<DuckDBValue>(CHUNK_ROWS), coerce: coercerFor(t.typeId), nulls: [] }
  })
  let fill = 0
  let seq = 0
  let chunks = 0
  const appendChunk = (): void => {
    if (fill === 0) {
      return
    }
    const chunk = DuckDBDataChunk.create(types, fill)
    for (let j = 0; j < width; j++) {
      const f = fills[j]
      if (f.fixed === undefined) {
        const values = f.data as DuckDBValue[]
        chunk.setColumnValues(j, fill === CHUNK_ROWS ? values : values.slice(0, fill))
        continue
      }
      const data = f.data as Exclude<ColumnFill['data'], DuckDBValue[]>
      const vector = bindings.data_chunk_get_vector(chunk.chunk, j)
      bindings.copy_data_to_vector(vector, 0, data.buffer as ArrayBuffer, data.byteOffset, fill * data.BYTES_PER_ELEMENT)
      if (f.nulls.length > 0) {
        const mask = validityMask(fill, true)
        for (const r of f.nulls) {
          mask[r >> 3] &= ~(1 << (r & 7))
        }
        copyValidity(vector, mask)
        f.nulls = []
      }
    }
    appender.appendDataChunk(chunk)
    chunks++
    if (chunks % (FLUSH_ROWS / CHUNK_ROWS) === 0) {
      appender.flushSync()
    }
    fill = 0
  }
  let n = 0
  for (const b of batches) {
    const tid = b.tid ?? 0
    for (const row of b.rows) {
      for (let j = 0; j < width; j++) {
        const src = sources[j]
        let v: unknown
        if (src.kind === 'col') {
          v = row[src.index]
        } else if (src.kind === 'tid') {
          v = tid
        } else if (src.kind === 'seq') {
          v = seq
        } else if (src.kind === 'const') {
          v = src.value
        } else {
          v = null
        }
        const f = fills[j]
        if (f.fixed !== undefined) {
          if (v === null || v === undefined) {
            f.nulls.push(fill)
            // a reused buffer may hold an older value here; the validity bit hides it
          } else {
            f.fixed.set(f.data as Float64Array, fill, v)
          }
        } else {
          ;(f.data as DuckDBValue[])[fill] = v === null || v === undefined ? null : (f.coerce as Coerce)(v)
        }
      }
      seq++
      if (++fill === CHUNK_ROWS) {
        appendChunk()
        await yieldToEventLoop()
      }
    }
    n += b.rows.length
  }
  appendChunk()
  if (chunks > 1) {
    await yieldToEventLoop()
  }
  return n
}

/** appendChunks, then close; on failure the appender's rows are discarded (see discardAppender). */
export async function appendAll(appender: DuckDBAppender, sources: Source[], batches: RowBatch[]): Promise<number> {
  try {
    const n = await appendChunks(appender, sources, batches)
    appender.closeSync()
    return n
  } catch (err) {
    discardAppender(appender)
    throw err
  }
}

