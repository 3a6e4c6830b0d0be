import { GzipAssembler, type DeflatedPart } from '../../http/gzip-parts.js'
import type { ColumnMeta, SqlResult } from '../../sql/result.js'
import { JsonBytes } from './json-bytes.js'
import { COMMA, K_JSON, K_STRING, columnWriter, kindOf, numericCell, writeNumericRows, writeRows } from './rows.js'
import type { EncodedRows, NumericColumn, RowsOffload } from './rows-offload.js'

/**
 * The query body of `/rest/sql`, byte for byte as taosAdapter writes it: keys in the order
 * code, column_meta, data, rows, no whitespace. It is produced chunk by chunk (one part per
 * engine chunk or so) so a large result never sits in memory whole; `rows` is written last.
 */

function columnMetaJson(columns: readonly ColumnMeta[]): string {
  let s = '['
  for (let i = 0; i < columns.length; i++) {
    const c = columns[i]
    if (i > 0) {
      s += ','
    }
    s += `[${JSON.stringify(c.name)},"${c.type}",${c.length}]`
  }
  return s + ']'
}

/** Chunks of at least this many rows are worth a trip to the worker (DuckDB's chunks have 2048). */
const OFFLOAD_MIN_ROWS = 1024

/**
 * The first `n` rows of `chunk` as numeric columns, or undefined when a column holds something a
 * Float64Array cannot carry exactly: text, JSON, integers beyond 2^53 (ns timestamps among them).
 */
function numericColumns(chunk: unknown[][], n: number, kinds: readonly number[]): NumericColumn[] | undefined {
  const out: NumericColumn[] = []
  for (let c = 0; c < kinds.length; c++) {
    const kind = kinds[c]
    if (kind === K_STRING || kind === K_JSON) {
      return undefined
    }
    const values = new Float64Array(n)
    let nulls: Uint8Array | undefined
    for (let r = 0; r < n; r++) {
      const v = chunk[r][c]
      if (v === null || v === undefined) {
        nulls ??= new Uint8Array(n)
        nulls[r] = 1
        continue
      }
      if (typeof v === 'number') {
        values[r] = v
      } else if (typeof v === 'bigint') {
        const x = Number(v)
        if (!Number.isSafeInteger(x)) {
          return undefined
        }
        values[r] = x
      } else if (typeof v === 'boolean') {
        values[r] = v ? 1 : 0
      } else {
        return undefined
      }
    }
    out.push({ kind, values, nulls })
  }
  return out
}

interface EncodeOptions {
  /** IANA zone for TIMESTAMP values; undefined = UTC (`Z`) */
  tz?: string
  /** `restfulRowLimit`: negative = unlimited, otherwise at most this many rows are written */
  rowLimit: number
  /** bytes per yielded part (64 KB by default) */
  partBytes?: number
  /** a worker that encodes large numeric chunks meanwhile (see RowsOffload) */
  offload?: RowsOffload
  /**
   * yield a gzip stream instead of plain JSON: each part is deflated where it was encoded (on
   * the worker for offloaded chunks) and the parts form one gzip member (src/http/gzip-parts.ts)
   */
  gzip?: boolean
  /**
   * with `gzip`: a whole body smaller than this, not begun yet when it ends, is yielded plain
   * (deflating a few hundred bytes costs more than it saves) and `onPlain` is called first
   */
  gzipMinBytes?: number
  onPlain?: () => void
}

/** A chunk handed to the offload: its bytes once they are back (or the chunk again, on failure). */
interface OffloadedPart {
  done: boolean
  /** settles (never rejects) when the worker answered */
  settled: Promise<void>
  encoded: EncodedRows | undefined
  /** the chunk's values, for encoding it here */
  cell: (r: number, i: number) => unknown
  rows: number
}

/**
 * Streams the query body as UTF-8 bytes: the head with `column_meta` and the first rows, then
 * about `partBytes` per part, then the tail with `rows`. Stops pulling from the engine once the
 * row limit is reached (the iterator's `return` releases the rest of the result).
 *
 * With an offload, a large all-numeric chunk goes to the worker whenever it accepts one while
 * this thread goes on with the next chunk; parts are still yielded in row order. Once DuckDB has
 * sorted a large result it has nothing left to do, so the second core encodes instead of idling.
 */
export async function* encodeQueryBody(
  result: Extract<SqlResult, { kind: 'rows' }>,
  opts: EncodeOptions,
): AsyncGenerator<Uint8Array, void, undefined> {
  const { columns, precision } = result
  const limit = opts.rowLimit < 0 ? Infinity : opts.rowLimit
  const partBytes = opts.partBytes ?? 64 * 1024
  const kinds = columns.map((c) => kindOf(c.type))
  const write = kinds.map((k) => columnWriter(k, precision, opts.tz))
  const offload = opts.offload
  const out = new JsonBytes(partBytes + 16 * 1024)
  const gz = opts.gzip === true ? new GzipAssembler() : undefined
  /**
   * parts in row order: plain bytes, or deflated right away for a gzip body (the buffer is
   * reused); an offloaded part blocks the ones after it until its bytes are back
   */
  const queue: Array<Uint8Array | DeflatedPart | OffloadedPart> = []
  const seal = (o: JsonBytes): Uint8Array | DeflatedPart => (gz === undefined ? o.take() : o.deflate())
  const flushFull = (): void => {
    if (out.length >= partBytes) {
      queue.push(seal(out))
    }
  }
  /** the gzip header goes out with the first part, so nothing is sent before the first engine chunk */
  let header = gz?.header()
  /** the wire bytes of a part encoded here (deflated for a gzip body) */
  const wire = (part: Uint8Array | DeflatedPart): Uint8Array => {
    if (part instanceof Uint8Array) {
      return part
    }
    const bytes = gz!.add(part)
    if (header === undefined) {
      return bytes
    }
    const joined = Buffer.concat([header, bytes])
    header = undefined
    return joined
  }
  /** the wire bytes of an offloaded part; encoded here if the worker failed */
  const bytesOf = (p: OffloadedPart): Uint8Array => {
    const e = p.encoded
    if (e === undefined) {
      const o = new JsonBytes(partBytes + 16 * 1024)
      writeRows(o, p.rows, write, p.cell, false)
      return wire(seal(o))
    }
    return e.deflated ? wire(e) : e.bytes
  }
  let sent = 0
  out.text(`{"code":0,"column_meta":${columnMetaJson(columns)},"data":[`)
  if (sent < limit) {
    for await (const chunk of result.numeric ?? result.rows) {
      const isRows = Array.isArray(chunk)
      const n = Math.min(isRows ? chunk.length : chunk.rowCount, limit - sent)
      const cell = isRows ? (r: number, i: number): unknown => chunk[r][i] : numericCell(chunk.columns, kinds)
      let numeric: NumericColumn[] | undefined
      if (offload !== undefined && offload.accepting && n >= OFFLOAD_MIN_ROWS) {
        numeric = isRows
          ? numericColumns(chunk, n, kinds)
          : // copies: the transferred buffers leave this thread, and a failed job is encoded here
            chunk.columns.map((c, i) => ({ kind: kinds[i], values: c.values.slice(0, n), nulls: c.nulls?.slice(0, n) }))
      }
      if (numeric !== undefined && offload !== undefined) {
        if (sent > 0) {
          out.byte(COMMA)
        }
        if (out.length > 0) {
          queue.push(seal(out))
        }
        const part: OffloadedPart = { done: false, settled: Promise.resolve(), encoded: undefined, cell, rows: n }
        part.settled = offload.encode({ precision, tz: opts.tz, rows: n, columns: numeric, deflate: gz !== undefined }).then(
          (e) => {
            part.encoded = e
            part.done = true
          },
          () => {
            // the worker failed: bytesOf encodes the chunk here
            part.done = true
          },
        )
        queue.push(part)
      } else if (!isRows && opts.tz === undefined) {
        writeNumericRows(out, n, chunk.columns, kinds, precision, sent > 0, flushFull)
      } else {
        writeRows(out, n, write, cell, sent > 0, flushFull)
      }
      sent += n
      while (queue.length > 0) {
        const head = queue[0]
        if (!('done' in head)) {
          queue.shift()
          yield wire(head)
        } else if (head.done) {
          queue.shift()
          yield bytesOf(head)
        } else {
          break
        }
      }
      if (sent >= limit) {
        break
      }
    }
  }
  for (const p of queue) {
    if (!('done' in p)) {
      yield wire(p)
      continue
    }
    await p.settled
    yield bytesOf(p)
  }
  queue.length = 0
  out.text(`],"rows":${sent}}`)
  if (gz !== undefined && header !== undefined && out.length < (opts.gzipMinBytes ?? 0)) {
    // nothing went out yet (the gzip header goes with the first part): the whole body is this
    opts.onPlain?.()
    yield out.take()
    return
  }
  const last = wire(seal(out))
  yield gz === undefined ? last : Buffer.concat([last, gz.trailer()])
}
