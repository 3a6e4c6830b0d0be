import { TD, TdError } from '../../td-error.js'
import type { FillMode } from './ast.js'
import { nextWindowStart, type WindowSpec } from './window.js'

/** Most filled rows one query may produce (TDengine's limit, error 9787 beyond it). */
export const MAX_FILL_ROWS = 10_000_000n

export interface FillOptions {
  mode: Exclude<FillMode, 'none'>
  /** index of the hidden window-start column (bigint ticks) in each row */
  wIndex: number
  /** indexes of the hidden partition-key columns */
  keyIndexes: number[]
  /** visible columns that FILL fills (aggregate results), in output order */
  fillCols: number[]
  /** visible columns holding _wstart / _wend / _wduration */
  wstartCols: number[]
  wendCols: number[]
  wdurationCols: number[]
  /** FILL(VALUE, ...) values per fill column, already converted to the column types */
  values: unknown[]
  /** converters applied to interpolated values (LINEAR), per visible column */
  convert: ((v: unknown) => unknown)[]
  spec: WindowSpec
  /** first and last window start to fill; undefined = only gaps between data windows */
  range?: { first: bigint; last: bigint }
  /** visible column count; hidden columns are cut off */
  width: number
  /** ORDER BY _wstart DESC: each partition's windows in descending order (one partition held) */
  desc?: boolean
  /** LIMIT/OFFSET per partition (applied after filling) */
  limit?: { limit: number; offset: number }
}

function keyOf(row: unknown[], idx: number[]): string {
  return idx.map((i) => (typeof row[i] === 'bigint' ? `${row[i] as bigint}n` : JSON.stringify(row[i]))).join('\u0001')
}

function toNum(v: unknown): number | undefined {
  if (typeof v === 'number') {
    return v
  }
  if (typeof v === 'bigint') {
    return Number(v)
  }
  return undefined
}

/**
 * Inserts the missing windows into a stream of window rows ordered by (partition keys, window
 * start). Memory stays bounded by one gap (NEXT/LINEAR wait for the row after the gap).
 */
export async function* fillWindows(src: AsyncIterable<unknown[][]>, o: FillOptions): AsyncIterable<unknown[][]> {
  let out: unknown[][] = []
  let produced = 0n
  let key: string | undefined
  let cursor = 0n
  let prevRow: unknown[] | undefined
  let lastNonNull: unknown[] = []
  let gap: bigint[] = []
  let seen = 0

  const emit = (row: unknown[]): void => {
    produced++
    if (produced > MAX_FILL_ROWS) {
      throw new TdError(TD.PAR_INVALID_FILL_TIME_RANGE, 'Start(end) time of query range required or time range too large')
    }
    const visible = row.length === o.width ? row : row.slice(0, o.width)
    if (o.desc === true) {
      part.push(visible)
    } else {
      take(visible)
    }
  }
  const take = (row: unknown[]): void => {
    seen++
    if (o.limit !== undefined && (seen <= o.limit.offset || seen > o.limit.offset + o.limit.limit)) {
      return
    }
    out.push(row)
  }
  // ORDER BY _wstart DESC: a partition's rows, filled in ascending order, then given out reversed
  let part: unknown[][] = []
  const flushPart = (): void => {
    for (let i = part.length - 1; i >= 0; i--) {
      take(part[i])
    }
    part = []
  }

  const filled = (w: bigint, neighbour: unknown[], next: unknown[] | undefined): unknown[] => {
    const row = neighbour.slice(0, o.width)
    for (const i of o.wstartCols) {
      row[i] = w
    }
    const end = o.spec.months === undefined ? w + o.spec.interval : nextWindowStart(w, o.spec)
    for (const i of o.wendCols) {
      row[i] = end
    }
    for (const i of o.wdurationCols) {
      row[i] = end - w
    }
    o.fillCols.forEach((col, n) => {
      switch (o.mode) {
        case 'null':
          row[col] = null
          break
        case 'value':
          row[col] = n < o.values.length ? o.values[n] : null
          break
        case 'prev':
          row[col] = lastNonNull[col] ?? null
          break
        case 'next':
          row[col] = next === undefined ? null : next[col]
          break
        case 'linear': {
          const a = prevRow === undefined ? undefined : toNum(prevRow[col])
          const b = next === undefined ? undefined : toNum(next[col])
          if (a === undefined || b === undefined || prevRow === undefined || next === undefined) {
            row[col] = null
          } else {
            const wa = prevRow[o.wIndex] as bigint
            const wb = next[o.wIndex] as bigint
            const v = a + ((b - a) * Number(w - wa)) / Number(wb - wa)
            row[col] = o.convert[col](v)
          }
          break
        }
      }
    })
    return row
  }

  // NEXT/LINEAR need the row after a gap, so gaps are remembered as window starts until then
  const flushGap = (next: unknown[] | undefined, neighbour: unknown[]): void => {
    for (const w of gap) {
      emit(filled(w, neighbour, next))
    }
    gap = []
  }

  const endPartition = (): void => {
    if (prevRow === undefined) {
      return
    }
    if (o.range !== undefined) {
      while (cursor <= o.range.last) {
        gap.push(cursor)
        cursor = nextWindowStart(cursor, o.spec)
      }
    }
    flushGap(undefined, prevRow)
    flushPart()
  }

  for await (const chunk of src) {
    for (const row of chunk) {
      const k = keyOf(row, o.keyIndexes)
      const w = row[o.wIndex] as bigint
      if (k !== key) {
        endPartition()
        key = k
        prevRow = undefined
        lastNonNull = []
        seen = 0
        cursor = o.range === undefined ? w : o.range.first
      }
      while (cursor < w) {
        gap.push(cursor)
        cursor = nextWindowStart(cursor, o.spec)
      }
      flushGap(row, row)
      emit(row)
      for (const col of o.fillCols) {
        if (row[col] !== null && row[col] !== undefined) {
          lastNonNull[col] = row[col]
        }
      }
      prevRow = row
      if (cursor <= w) {
        cursor = nextWindowStart(w, o.spec)
      }
    }
    if (out.length > 0) {
      yield out
      out = []
    }
  }
  endPartition()
  if (out.length > 0) {
    yield out
  }
}
