import { describe, expect, it } from 'vitest'
import type { RowBatch } from './types.js'
import { groupBatches } from './write-groups.js'

describe('groupBatches', () => {
  it('groups by database, table, child-or-normal and column list, in first-seen order, dropping empty batches', () => {
    const shared = ['ts', 'v']
    const batches: RowBatch[] = [
      { db: 'a', table: 'st', tid: 1, columns: shared, rows: [[1n, 1]] },
      { db: 'a', table: 'st', tid: 2, columns: shared, rows: [[1n, 2]] },
      // equal contents in another array: the same group
      { db: 'a', table: 'st', tid: 3, columns: ['ts', 'v'], rows: [[1n, 3]] },
      // same array, other table / other database / normal table: other groups
      { db: 'a', table: 'st2', tid: 1, columns: shared, rows: [[1n, 4]] },
      { db: 'b', table: 'st', tid: 1, columns: shared, rows: [[1n, 5]] },
      { db: 'a', table: 'st', columns: shared, rows: [[1n, 6]] },
      { db: 'a', table: 'st', tid: 4, columns: ['ts', 'w'], rows: [[1n, 7]] },
      { db: 'a', table: 'st', tid: 5, columns: shared, rows: [] },
    ]
    const groups = groupBatches(batches, (db) => `td_${db}`)
    expect(groups.map((g) => [g.schema, g.table, g.child, g.columns.join(','), g.batches.map((b) => b.rows[0][1])])).toEqual([
      ['td_a', 'st', true, 'ts,v', [1, 2, 3]],
      ['td_a', 'st2', true, 'ts,v', [4]],
      ['td_b', 'st', true, 'ts,v', [5]],
      ['td_a', 'st', false, 'ts,v', [6]],
      ['td_a', 'st', true, 'ts,w', [7]],
    ])
  })
})
