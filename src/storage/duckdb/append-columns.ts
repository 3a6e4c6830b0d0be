import { DuckDBDataChunk } from '@duckdb/node-api'
import type { DuckDBAppender, DuckDBType } from '@duckdb/node-api'
import bindings from '@duckdb/node-bindings'
import { yieldToEventLoop } from '../../event-loop.js'
import type { ColumnBatch } from '../types.js'
import { CHUNK_ROWS } from './append-rows.js'
import { copyValidity, discardAppender, FIXED, FLUSH_ROWS, setValidity, validityMask } from './appender.js'

/** Where a physical column's values come from in a ColumnBatch. */
type ColumnSource = { kind: 'tid' } | { kind: 'stid' } | { kind: 'ts' } | { kind: 'null' } | { kind: 'value'; index: number }

/**
 * Appends a ColumnBatch through `appender` (its table's columns are `names`) a chunk at a time,
 * each column copied from its typed array into the chunk's vector in one call; then closes it.
 * With `close` false it neither flushes nor closes (nor discards on failure): the caller appends
 * more through the same appender and closes it once, inside its transaction (group-commit.ts).
 * `stid`: the super table's `_stid` when the table is a shared one (routes.ts).
 */
export async function appendColumnBatch(appender: DuckDBAppender, names: string[], b: ColumnBatch, close = true, stid?: number): Promise<number> {
  try {
    const width = appender.columnCount
    const types: DuckDBType[] = []
    const sources: ColumnSource[] = []
    for (let j = 0; j < width; j++) {
      const type = appender.columnType(j)
      const name = names[j]
      types.push(type)
      const fixed = FIXED[type.typeId]
      if (name === '_tid') {
        sources.push({ kind: 'tid' })
        continue
      }
      if (name === '_stid' && stid !== undefined) {
        sources.push({ kind: 'stid' })
        continue
      }
      const at = b.columns.indexOf(name)
      if (at < 0) {
        sources.push({ kind: 'null' })
        continue
      }
      const data = at === 0 ? b.ts : b.values[at - 1]
      if (fixed === undefined || fixed.make(0).constructor !== data.constructor) {
        // the dialect gives each lane type its physical type: a mismatch is a bug, not bad input
        throw new Error(`appendColumns: column ${name} is ${type.toString()}, not what ${data.constructor.name} holds`)
      }
      sources.push(at === 0 ? { kind: 'ts' } : { kind: 'value', index: at - 1 })
    }
    const tidBuf = new Int32Array(CHUNK_ROWS)
    const stidBuf = stid === undefined ? undefined : new Int32Array(CHUNK_ROWS).fill(stid)
    let child = 0
    let chunks = 0
    for (let start = 0; start < b.count; start += CHUNK_ROWS) {
      const n = Math.min(CHUNK_ROWS, b.count - start)
      const chunk = DuckDBDataChunk.create(types, n)
      for (let j = 0; j < width; j++) {
        const src = sources[j]
        const vector = bindings.data_chunk_get_vector(chunk.chunk, j)
        if (src.kind === 'null') {
          copyValidity(vector, validityMask(n, false))
          continue
        }
        let data: ColumnBatch['values'][number] | Int32Array
        let offset = start
        if (src.kind === 'stid') {
          data = stidBuf as Int32Array
          offset = 0
        } else if (src.kind === 'tid') {
          for (let r = 0; r < n; r++) {
            while (start + r >= b.starts[child + 1]) {
              child++
            }
            tidBuf[r] = b.tids[child]
          }
          data = tidBuf
          offset = 0
        } else {
          data = src.kind === 'ts' ? b.ts : b.values[src.index]
        }
        const size = data.BYTES_PER_ELEMENT
        bindings.copy_data_to_vector(vector, 0, data.buffer as ArrayBuffer, data.byteOffset + offset * size, n * size)
        const valid = src.kind === 'value' ? b.valid[src.index] : undefined
        if (valid !== undefined) {
          setValidity(vector, n, (r) => valid[start + r] === 1)
        }
      }
      appender.appendDataChunk(chunk)
      chunks++
      if (close && chunks % (FLUSH_ROWS / CHUNK_ROWS) === 0) {
        appender.flushSync()
      }
      if (start + n < b.count) {
        await yieldToEventLoop()
      }
    }
    if (close) {
      appender.closeSync()
    }
    return b.count
  } catch (err) {
    if (close) {
      discardAppender(appender)
    }
    throw err
  }
}

