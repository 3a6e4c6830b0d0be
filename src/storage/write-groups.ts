import type { RowBatch } from './types.js'

/** Batches that share a physical table and column list, written with one append/COPY. */
export interface WriteGroup {
  db: string
  schema: string
  table: string
  child: boolean
  columns: string[]
  batches: RowBatch[]
}

/** Groups the batches of one `writeRows` call by target table and column list (empty ones dropped). */
export function groupBatches(batches: RowBatch[], schemaName: (db: string) => string): WriteGroup[] {
  const groups = new Map<string, WriteGroup>()
  // callers share one columns array between the batches of a table (a schemaless request has
  // one batch per child, thousands of them): key by identity before building the string key
  const byArray = new Map<string[], WriteGroup[]>()
  for (const b of batches) {
    if (b.rows.length === 0) {
      continue
    }
    const child = b.tid !== undefined
    let g = byArray.get(b.columns)?.find((x) => x.child === child && x.table === b.table && x.db === b.db)
    if (g === undefined) {
      const key = `${b.db}\u0000${b.table}\u0000${child ? 'c' : 'n'}\u0000${b.columns.join('\u0000')}`
      g = groups.get(key)
      if (g === undefined) {
        g = { db: b.db, schema: schemaName(b.db), table: b.table, child, columns: b.columns, batches: [] }
        groups.set(key, g)
      }
      const same = byArray.get(b.columns)
      if (same === undefined) {
        byArray.set(b.columns, [g])
      } else {
        same.push(g)
      }
    }
    g.batches.push(b)
  }
  return [...groups.values()]
}
