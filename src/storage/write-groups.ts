import type { RowBatch } from './types.js'

/** Batches that share a physical table and column list, written with one append/COPY. */
export interface WriteGroup {
  schema: string
  table: string
  child: boolean
  columns: string[]
  batches: RowBatch[]
}

/** Groups the batches of one `writeRows` call by target table and column list (empty ones dropped). */
export function groupBatches(batches: RowBatch[], schemaName: (db: string) => string): WriteGroup[] {
  const groups = new Map<string, WriteGroup>()
  for (const b of batches) {
    if (b.rows.length === 0) {
      continue
    }
    const child = b.tid !== undefined
    const key = `${b.db}\u0000${b.table}\u0000${child ? 'c' : 'n'}\u0000${b.columns.join('\u0000')}`
    let g = groups.get(key)
    if (!g) {
      g = { schema: schemaName(b.db), table: b.table, child, columns: b.columns, batches: [] }
      groups.set(key, g)
    }
    g.batches.push(b)
  }
  return [...groups.values()]
}
