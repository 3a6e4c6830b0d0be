import { describe, expect, it } from 'vitest'
import { openStorage } from './open.js'
import type { ColumnDef } from '../../storage/td-types.js'

describe('Catalog.version (what the columnar lane keeps resolved child tables on)', () => {
  it('changes when a super table or table is created, altered or dropped, and not on lookups', async () => {
    const storage = await openStorage('duckdb::memory:', { rootPassword: 'taosdata' })
    try {
      const c = storage.catalog
      const col = (name: string, type: ColumnDef['type'], length = 0): ColumnDef => ({ name, type, length })
      let seen = c.version
      const step = async (fn: () => Promise<unknown>, changes: boolean): Promise<void> => {
        await fn()
        expect(c.version !== seen).toBe(changes)
        seen = c.version
      }
      await step(() => c.createDatabase('v', {}, false), false)
      await step(() => c.createStable('v', 'cpu', [col('ts', 'TIMESTAMP'), col('usage', 'DOUBLE')], [col('host', 'NCHAR', 16)], false), true)
      await step(() => c.createChildTable('v', 't1', 'cpu', { host: 'a' }, false), true)
      await step(async () => [c.getStable('v', 'cpu'), c.getTable('v', 't1'), c.listTables('v'), c.getTable('v', 'nope')], false)
      // an existing child asked for again
      await step(() => c.createChildTable('v', 't1', 'cpu', { host: 'a' }, true), false)
      await step(() => c.addStableColumn('v', 'cpu', col('extra', 'BIGINT'), false), true)
      await step(() => c.dropTable('v', 't1', false), true)
      await step(() => c.dropStable('v', 'cpu', false), true)
      await step(() => c.createStable('v', 'mem', [col('ts', 'TIMESTAMP'), col('free', 'BIGINT')], [col('host', 'NCHAR', 16)], false), true)
      await step(() => c.dropDatabase('v', false), true)
    } finally {
      await storage.close()
    }
  })
})
