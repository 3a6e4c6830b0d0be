import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openStorage } from './catalog/open.js'
import type { Storage } from './catalog/types.js'
import { createSqlExecutor } from './executor.js'
import { keepText, systemTable } from './system-tables.js'

let storage: Storage

beforeEach(async () => {
  storage = await openStorage('duckdb::memory:', { rootPassword: 'taosdata' })
  const sql = createSqlExecutor(storage)
  for (const s of [
    'create database power vgroups 2',
    "create stable power.meters (ts timestamp, current float, location_note varchar(8)) tags (location varchar(24), groupid int) comment 'm'",
    "create table power.d1001 using power.meters tags ('CA', 2) power.d1002 using power.meters (groupid) tags (3)",
    'create table power.t (ts timestamp, v nchar(10))',
  ]) {
    await sql.execute(s, { user: 'root' })
  }
})

afterEach(async () => {
  await storage.close()
})

function table(name: string): { columns: string[]; meta: [string, string, number][]; rows: unknown[][] } {
  const t = systemTable(name, storage.catalog, 'root')
  if (t === undefined) {
    throw new Error(`no ${name}`)
  }
  return { columns: t.columns.map((c) => c.name), meta: t.columns.map((c) => [c.name, c.type, c.length]), rows: t.rows }
}

describe('systemTable', () => {
  it('ins_databases has the systable.c column order and the two system databases first', () => {
    const t = table('ins_databases')
    expect(t.columns).toEqual([
      'name', 'create_time', 'vgroups', 'ntables', 'replica', 'strict', 'duration', 'keep', 'buffer', 'pagesize', 'pages',
      'minrows', 'maxrows', 'comp', 'precision', 'status', 'retentions', 'single_stable', 'cachemodel', 'cachesize',
      'wal_level', 'wal_fsync_period', 'wal_retention_period', 'wal_retention_size', 'stt_trigger', 'table_prefix',
      'table_suffix', 'tsdb_pagesize', 'keep_time_offset',
    ])
    expect(t.meta.slice(0, 4)).toEqual([
      ['name', 'VARCHAR', 64],
      ['create_time', 'TIMESTAMP', 8],
      ['vgroups', 'INT', 4],
      ['ntables', 'BIGINT', 8],
    ])
    expect(t.rows.map((r) => r[0])).toEqual(['information_schema', 'performance_schema', 'power'])
    expect(t.rows[0][2]).toBeNull()
    expect(t.rows[2][3]).toBe(3n)
  })

  it('ins_tables lists children and normal tables with the vgroup of each name', () => {
    const t = table('ins_tables')
    expect(t.columns).toEqual(['table_name', 'db_name', 'create_time', 'columns', 'stable_name', 'uid', 'vgroup_id', 'ttl', 'table_comment', 'type'])
    const byName = new Map(t.rows.map((r) => [r[0], r]))
    // sql-dialect.md 10 reference: d1001 -> vgroup 3, d1002 -> vgroup 2 (ids 2,3 of the first db)
    expect(byName.get('d1001')?.slice(3, 5)).toEqual([3, 'meters'])
    expect(byName.get('d1001')?.[6]).toBe(3)
    expect(byName.get('d1002')?.[6]).toBe(2)
    expect(byName.get('d1001')?.[9]).toBe('CHILD_TABLE')
    expect(byName.get('t')?.slice(3, 5)).toEqual([2, null])
    expect(byName.get('t')?.[9]).toBe('NORMAL_TABLE')
    expect(byName.has('meters')).toBe(false)
  })

  it('ins_stables, ins_tags and ins_columns describe the schema', () => {
    expect(table('ins_stables').rows.map((r) => [r[0], r[1], r[3], r[4], r[6]])).toEqual([['meters', 'power', 3, 2, 'm']])
    expect(table('ins_tags').rows).toEqual([
      ['d1001', 'power', 'meters', 'location', 'VARCHAR(24)', 'CA'],
      ['d1001', 'power', 'meters', 'groupid', 'INT', '2'],
      ['d1002', 'power', 'meters', 'location', 'VARCHAR(24)', null],
      ['d1002', 'power', 'meters', 'groupid', 'INT', '3'],
    ])
    const cols = table('ins_columns').rows.filter((r) => r[0] === 't')
    expect(cols).toEqual([
      ['t', 'power', 'NORMAL_TABLE', 'ts', 'TIMESTAMP', 8, 0, 0, 0],
      ['t', 'power', 'NORMAL_TABLE', 'v', 'NCHAR(10)', 10, 0, 0, 0],
    ])
  })

  it('ins_users, ins_vgroups and ins_dnodes', () => {
    const users = table('ins_users')
    expect(users.columns.slice(0, 6)).toEqual(['name', 'super', 'enable', 'sysinfo', 'createdb', 'create_time'])
    expect(users.rows.map((r) => r.slice(0, 5))).toEqual([['root', 1, 1, 1, 1]])
    // ins_vgroups.tables must agree with ins_tables.vgroup_id (sql-dialect.md 10)
    const perVgroup = new Map<unknown, number>()
    for (const r of table('ins_tables').rows) {
      perVgroup.set(r[6], (perVgroup.get(r[6]) ?? 0) + 1)
    }
    expect(table('ins_vgroups').rows.map((r) => r.slice(0, 3))).toEqual([
      [2, 'power', perVgroup.get(2) ?? 0],
      [3, 'power', perVgroup.get(3) ?? 0],
    ])
    expect((perVgroup.get(2) ?? 0) + (perVgroup.get(3) ?? 0)).toBe(3)
    expect(table('ins_dnodes').rows.map((r) => [r[0], r[2], r[4]])).toEqual([[1, 2, 'ready']])
    expect(systemTable('ins_nope', storage.catalog, 'root')).toBeUndefined()
  })

  it('prints KEEP as three values with units', () => {
    expect(keepText(365)).toBe('365d,365d,365d')
    expect(keepText('10d,20d')).toBe('10d,20d,20d')
    expect(keepText('1440m,2880m,5760m')).toBe('1440m,2880m,5760m')
  })
})
