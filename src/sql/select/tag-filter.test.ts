import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openStorage } from '../catalog/open.js'
import type { Storage } from '../catalog/types.js'
import { Cursor } from '../cursor.js'
import { tokenize } from '../lexer.js'
import { parseSelect } from './parse-select.js'
import { planSelect } from './plan-select.js'
import { postgresDialect } from '../../storage/postgres/dialect.js'
import { IN_LIST_MAX, MAX_TID_LIST } from './tag-filter.js'

// which statements the planner resolves to `_tid` lists (answers: test/sql/tag-index.test.ts)
let storage: Storage
const tid: Record<string, number> = {}

function sqlOf(text: string): string {
  return planSelect(parseSelect(new Cursor(text, tokenize(text))), {
    catalog: storage.catalog,
    dialect: storage.engine.dialect,
    ctx: { user: 'root' },
    nowMs: 0,
  }).sql
}

beforeAll(async () => {
  storage = await openStorage('duckdb::memory:', { rootPassword: 'taosdata' })
  const c = storage.catalog
  await c.createDatabase('db', { precision: 'ms' }, false)
  await c.createStable(
    'db',
    'st',
    [
      { name: 'ts', type: 'TIMESTAMP', length: 8 },
      { name: 'v', type: 'INT', length: 4 },
    ],
    [
      { name: 'h', type: 'NCHAR', length: 20 },
      { name: 'i', type: 'INT', length: 4 },
      { name: 'ti', type: 'TINYINT', length: 1 },
      { name: 'f', type: 'FLOAT', length: 4 },
      { name: 'bo', type: 'BOOL', length: 1 },
      { name: 'tt', type: 'TIMESTAMP', length: 8 },
      { name: 'j', type: 'VARCHAR', length: 20 },
    ],
    false,
  )
  for (const [name, h, i] of [
    ['a', 'host_a', 7],
    ['b', 'host_b', 7],
    ['c', null, null],
  ] as const) {
    tid[name] = (await c.createChildTable('db', name, 'st', { h, i, ti: 1, f: 1.5, bo: true, tt: 0, j: 'x' }, false)).tid
  }
})

afterAll(async () => {
  await storage?.close()
})

describe('tag equalities resolved to _tid lists at plan time', () => {
  it('drops the tag join for text and integer tags and tbname', () => {
    const resolved: Array<[string, string]> = [
      ["h = 'host_a'", `(d."_tid" = ${tid.a})`],
      ["'host_b' = h", `(d."_tid" = ${tid.b})`],
      ["h in ('host_a', 'host_b', 'x')", `(d."_tid" IN (${tid.a}, ${tid.b}))`],
      ['i = 7', `(d."_tid" IN (${tid.a}, ${tid.b}))`],
      ["i = '07'", `(d."_tid" IN (${tid.a}, ${tid.b}))`],
      ["i = 7 and h = 'host_b'", `(d."_tid" = ${tid.b})`],
      ["tbname = 'c'", `(d."_tid" = ${tid.c})`],
      ["h = 'host_a' and h = 'host_b'", '(FALSE)'],
      ['h = NULL', '(FALSE)'],
      ["h = 'Host_A'", '(FALSE)'],
      ["st.h = 'host_a' and v > 1", `(d."_tid" = ${tid.a})`],
    ]
    for (const [where, cond] of resolved) {
      const sql = sqlOf(`select count(*), max(v) from db.st where ${where} and ts >= 0`)
      expect(sql, where).not.toContain('$tags')
      expect(sql, where).toContain(cond)
      expect(sql, where).toContain('(d."ts" >= 0)')
    }
  })

  it('keeps the join where the index cannot decide as the backend would, or a tag is read elsewhere', () => {
    const kept = [
      'select count(*) from db.st where f = 1.5',
      'select count(*) from db.st where bo = true',
      'select count(*) from db.st where tt = 0',
      'select count(*) from db.st where i = 7.0',
      "select count(*) from db.st where ti = '300'",
      "select count(*) from db.st where i = 'x'",
      'select count(*) from db.st where h = 7',
      "select count(*) from db.st where h != 'host_a'",
      "select count(*) from db.st where h not in ('host_a')",
      "select count(*) from db.st where h = 'host_a' or v > 1",
      "select count(*) from db.st where h like 'host_a'",
      "select i, count(*) from db.st where h = 'host_a' group by i",
      "select count(*) from db.st where h = 'host_a' partition by j",
      "select tbname, count(*) from db.st where h = 'host_a' group by tbname",
      "select * from db.st where h = 'host_a'",
      "select v from db.st where h = 'host_a' and j = lower(h)",
      // tags read by a row window
      "select count(*) from db.st where h = 'host_a' partition by v event_window start with j = 'x' end with v > 1",
    ]
    for (const q of kept) {
      expect(sqlOf(q), q).toContain('$tags')
    }
  })

  it('passes long lists as an unnested join on DuckDB, an IN list on PostgreSQL, and keeps the join past the limits', async () => {
    const c = storage.catalog
    await c.createStable('db', 'many', [{ name: 'ts', type: 'TIMESTAMP', length: 8 }, { name: 'v', type: 'INT', length: 4 }], [{ name: 'k', type: 'INT', length: 4 }], false)
    const n = MAX_TID_LIST + 1
    // k = 1 on the even children, k = the child's number on the odd ones
    await c.createChildTables?.('db', Array.from({ length: n }, (_v, i) => ({ name: `m${i}`, stable: 'many', tags: { k: i % 2 === 0 ? 1 : i } })), false)
    // odd numbers from 3: one child each
    const odd = (count: number): string => Array.from({ length: count }, (_v, i) => 2 * i + 3).join(', ')
    const pg = (text: string): string =>
      planSelect(parseSelect(new Cursor(text, tokenize(text))), { catalog: c, dialect: postgresDialect, ctx: { user: 'root' }, nowMs: 0 }).sql
    // IN_LIST_MAX ids: an IN list
    const short = `select count(*) from db.many where k in (${odd(IN_LIST_MAX)})`
    expect(sqlOf(short)).toMatch(/\(d\."_tid" IN \([\d, ]+\)\)/)
    expect(sqlOf(short)).not.toContain('$tags')
    // one more: unnested and joined on DuckDB, still an IN list on PostgreSQL
    const longer = `select count(*) from db.many where k in (${odd(IN_LIST_MAX + 1)})`
    expect(sqlOf(longer)).toMatch(/JOIN \(SELECT unnest\(\[[\d, ]+\]\) AS "_tid"\) AS tk ON d\."_tid" = tk\."_tid"/)
    expect(sqlOf(longer)).not.toContain('$tags')
    expect(pg(longer)).toMatch(/\(d\."_tid" IN \([\d, ]+\)\)/)
    // past PostgreSQL's limit (half the children have k = 1): its join stays
    expect(sqlOf('select count(*) from db.many where k = 1')).toContain('unnest')
    expect(pg('select count(*) from db.many where k = 1')).toContain('$tags')
    // past DuckDB's limit too
    expect(sqlOf(`select count(*) from db.many where k in (1, ${odd(MAX_TID_LIST / 2)})`)).toContain('$tags')
  })
})
