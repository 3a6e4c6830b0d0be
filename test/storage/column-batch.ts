import type { ColumnBatch } from '../../src/storage/types.js'

/** One child's rows for `columnBatch`: its _tid, then timestamps and values (same length, timestamps strictly increasing). */
export interface ChildRows {
  tid: number
  ts: number[]
  v: number[]
}

/** A ColumnBatch of (ts BIGINT, <value column> DOUBLE) rows, as the ingest lanes build them. */
export function columnBatch(db: string, table: string, children: ChildRows[], valueColumn = 'v'): ColumnBatch {
  const count = children.reduce((n, c) => n + c.ts.length, 0)
  const ts = new BigInt64Array(count)
  const v = new Float64Array(count)
  const starts = new Int32Array(children.length + 1)
  let r = 0
  children.forEach((c, k) => {
    starts[k] = r
    c.ts.forEach((t, i) => {
      ts[r] = BigInt(t)
      v[r] = c.v[i]
      r++
    })
  })
  starts[children.length] = r
  return {
    db,
    table,
    columns: ['ts', valueColumn],
    count,
    tids: Int32Array.from(children.map((c) => c.tid)),
    starts,
    ts,
    values: [v],
    valid: [undefined],
    first: children.map((c) => BigInt(c.ts[0])),
    last: children.map((c) => BigInt(c.ts[c.ts.length - 1])),
  }
}

/** timestamps from..to-1 */
export const span = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i)
