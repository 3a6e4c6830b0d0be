/**
 * The write of rows (step 3 of schemaless.ts): what pass 1 collected, as the row batches of one
 * transaction. A child's rows with repeated timestamps are merged first (later lines win).
 */
import type { RowBatch } from '../../storage/types.js'
import type { RequestState } from './request-state.js'

/** The rows of the live children of a request, as batches for one `engine.writeRows` call. */
export function rowBatches(state: RequestState): RowBatch[] {
  const out: RowBatch[] = []
  for (const st of state.stables.values()) {
    if (st.error !== undefined || st.children.length === 0) {
      continue
    }
    const width = st.slots.length + 1
    const allColumns = [st.tsName, ...st.slots.map((c) => c.name)]
    for (const child of st.children) {
      if (child.dead || child.rows.length === 0 || child.tid === undefined) {
        continue
      }
      const rows = child.unsorted ? mergeSameTs(child.rows) : child.rows
      let complete = true
      for (const r of rows) {
        if (r.length !== width || hasHole(r)) {
          complete = false
          break
        }
      }
      if (complete) {
        out.push({ db: state.db, table: st.name, tid: child.tid, columns: allColumns, rows })
        continue
      }
      // rows with different field sets: one batch per set, so absent fields keep their stored
      // values on overwrite instead of becoming NULL
      const bySig = new Map<string, { idx: number[]; rows: unknown[][] }>()
      for (const r of rows) {
        const idx: number[] = [0]
        for (let j = 1; j < r.length; j++) {
          if (r[j] !== undefined) {
            idx.push(j)
          }
        }
        const sig = idx.join(',')
        let g = bySig.get(sig)
        if (g === undefined) {
          g = { idx, rows: [] }
          bySig.set(sig, g)
        }
        g.rows.push(idx.map((j) => r[j]))
      }
      for (const g of bySig.values()) {
        out.push({ db: state.db, table: st.name, tid: child.tid, columns: g.idx.map((j) => allColumns[j]), rows: g.rows })
      }
    }
  }
  return out
}

function hasHole(r: unknown[]): boolean {
  for (let j = 1; j < r.length; j++) {
    if (r[j] === undefined) {
      return true
    }
  }
  return false
}

/** Rows of one child with repeated timestamps: merged per timestamp, later rows' fields win. */
function mergeSameTs(rows: unknown[][]): unknown[][] {
  const byTs = new Map<bigint, unknown[]>()
  for (const r of rows) {
    const ts = r[0] as bigint
    const prev = byTs.get(ts)
    if (prev === undefined) {
      byTs.set(ts, r.slice())
      continue
    }
    for (let j = 1; j < r.length; j++) {
      if (r[j] !== undefined) {
        prev[j] = r[j]
      }
    }
  }
  return [...byTs.values()]
}
