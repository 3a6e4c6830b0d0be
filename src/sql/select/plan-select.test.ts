import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openStorage } from '../catalog/open.js'
import type { Storage } from '../catalog/types.js'
import { Cursor } from '../cursor.js'
import { tokenize } from '../lexer.js'
import { parseSelect } from './parse-select.js'
import { planSelect } from './plan-select.js'
import type { SelectPlan } from './select-plan.js'

let storage: Storage
let d2Tid = 0

function plan(sql: string, defaultDb?: string, preAggregate?: boolean): SelectPlan {
  const stmt = parseSelect(new Cursor(sql, tokenize(sql)))
  return planSelect(stmt, {
    catalog: storage.catalog,
    dialect: storage.engine.dialect,
    ctx: defaultDb === undefined ? { user: 'root' } : { user: 'root', defaultDb },
    nowMs: Date.UTC(2024, 0, 1),
    ...(preAggregate === undefined ? {} : { preAggregate }),
  })
}

beforeAll(async () => {
  storage = await openStorage('duckdb::memory:', { rootPassword: 'taosdata' })
  await storage.catalog.createDatabase('db', { precision: 'us' }, false)
  await storage.catalog.createStable(
    'db',
    'st',
    [
      { name: 'ts', type: 'TIMESTAMP', length: 8 },
      { name: 'c', type: 'BIGINT', length: 8 },
    ],
    [{ name: 'info', type: 'JSON', length: 4095 }],
    false,
  )
  await storage.catalog.createChildTable('db', 'd1', 'st', { info: { a: 1 } }, false)
  d2Tid = (await storage.catalog.createChildTable('db', 'd2', 'st', { info: null }, false)).tid
})

afterAll(async () => {
  await storage?.close()
})

describe('planSelect: backend SQL shape', () => {
  it('folds datetime strings and NOW arithmetic to integer ticks in the scan WHERE', () => {
    const p = plan("select c from db.d1 where ts >= '2024-01-01T00:00:00Z' and ts < now + 1s")
    const t = Date.UTC(2024, 0, 1) * 1000
    expect(p.precision).toBe('us')
    expect(p.sql).toContain(`(d."ts" >= ${t})`)
    expect(p.sql).toContain(`(d."ts" < ${t + 1_000_000})`)
    // a child table is its super table's rows with its _tid
    expect(p.sql).toMatch(/\(d\."_tid" = \d+\)/)
    // no join: a child's tags are constants
    expect(p.sql).not.toContain('$tags')
  })

  it('streams a super-table LIMIT without ORDER BY in storage order; keeps ts order elsewhere', () => {
    // no promised order across children: no sort, so no top-N heap over the whole LIMIT
    expect(plan('select ts, c, tbname from db.st limit 10').sql).not.toContain('ORDER BY')
    // without LIMIT, with ORDER BY, and on a child table, rows stay ordered as before
    expect(plan('select ts, c from db.st').sql).toMatch(/ORDER BY "__s0" ASC NULLS LAST, "o0" ASC NULLS LAST$/)
    expect(plan('select ts, c from db.st order by ts limit 10').sql).toContain('ORDER BY')
    expect(plan('select ts, c from db.d1 limit 10').sql).toMatch(/ORDER BY "o0" ASC NULLS LAST LIMIT 10 OFFSET 0$/)
    expect(plan('select ts, c from db.st partition by tbname limit 10').sql).toContain('ORDER BY')
  })

  it('keeps hidden sort and partition keys out of the result columns (unless FILL needs them)', () => {
    const p = plan('select _wstart, avg(c) from db.st interval(1m) partition by tbname')
    expect(p.sql).toMatch(/^SELECT z\."o0", z\."o1" FROM \(/)
    expect(p.sql).toMatch(/ORDER BY "__k0" ASC NULLS LAST, "o0" ASC NULLS LAST$/)
    // FILL reads the window start and keys from the rows: they stay selected
    const f = plan("select _wstart, avg(c) from db.st where ts >= '2024-01-01T00:00:00Z' and ts < '2024-01-01T01:00:00Z' partition by tbname interval(1m) fill(null)")
    expect(f.sql).toMatch(/^SELECT \(\d+ \+ b\."__w" \* 60000000\) AS "o0", /)
    expect(f.sql).toContain('AS "__k0"')
  })

  it('turns tbname equality and IN lists into _tid filters and joins tags only when needed', () => {
    expect(plan('select count(*) from db.st').sql).not.toContain('$tags')
    // nothing else reads tags: resolved at plan time, no join
    const p = plan("select count(*) from db.st where tbname in ('d2', 'missing')")
    expect(p.sql).toContain(`(d."_tid" = ${d2Tid})`)
    expect(p.sql).not.toContain('$tags')
    expect(plan("select count(*) from db.st where tbname = 'missing'").sql).toContain('(FALSE)')
    // tbname read elsewhere: the join stays, the equality still filters on the key column
    const joined = plan("select tbname, count(*) from db.st where tbname in ('d2', 'missing') group by tbname")
    expect(joined.sql).toContain('$tags')
    expect(joined.sql).toContain(`(d."_tid" IN (${d2Tid}))`)
    // the tag index turned off (tests only): as before
    const off = planSelect(parseSelect(new Cursor("select count(*) from db.st where tbname = 'd2'", tokenize("select count(*) from db.st where tbname = 'd2'"))), {
      catalog: storage.catalog,
      dialect: storage.engine.dialect,
      ctx: { user: 'root' },
      nowMs: 0,
      tagIndex: false,
    })
    expect(off.sql).toContain('$tags')
  })

  it('buckets INTERVAL windows with integer arithmetic and groups in the backend', () => {
    const p = plan('select _wstart, avg(c) from db.st interval(1m, 1s) partition by tbname')
    expect(p.sql).toContain(
      '(CASE WHEN (d."ts" - 1000000) >= 0 THEN d."ts" - ((d."ts" - 1000000) % 60000000) ELSE d."ts" - ((((d."ts" - 1000000) % 60000000) + 60000000) % 60000000) END) AS "__w"',
    )
    // a WHERE with a lower bound: windows are numbered from the bound's window, the start computed per group
    const numbered = plan('select _wstart, avg(c) from db.st where ts >= 1000000 and c > 0 interval(1m, 1s)').sql
    expect(numbered).toContain('((d."ts" - 1000000) // (60000000)) AS "__w"')
    expect(numbered).toMatch(/^SELECT \(1000000 \+ b\."__w" \* 60000000\) AS "o0"/)
    // the bound's window may start before it, before 1970 too
    expect(plan('select _wstart, avg(c) from db.st where ts >= 999999 interval(1m, 1s)').sql).toContain('((d."ts" - (-59000000)) // (60000000)) AS "__w"')
    for (const where of ['where ts >= 1000000 or c > 0', 'where ts <= 1000000']) {
      expect(plan(`select _wstart, avg(c) from db.st ${where} interval(1m, 1s)`).sql).toContain('(CASE WHEN (d."ts" - 1000000) >= 0')
    }
    // overlapping (SLIDING) windows keep the aligned start: from the offset on, the single `%`
    expect(plan('select _wstart, avg(c) from db.st where ts >= 1000000 interval(2m, 1s) sliding(1m)').sql).toContain(
      '(d."ts" - ((d."ts" - 1000000) % 60000000))',
    )
    expect(plan('select _wstart, avg(c) from db.st interval(1m, 1s) partition by tbname', undefined, false).sql).toMatch(
      /GROUP BY b\."tbname", b\."__w"/,
    )
    expect(p.columns).toEqual([
      { name: '_wstart', type: 'TIMESTAMP', length: 8 },
      { name: 'avg(c)', type: 'DOUBLE', length: 8 },
    ])
  })

  it('aggregates per child before joining the tags when tbname is a key', () => {
    const p = plan('select _wstart, tbname, avg(c) from db.st interval(1m) partition by tbname having avg(c) > 0')
    const perChild = p.sql.indexOf('GROUP BY b."__tid", b."__w"')
    const join = p.sql.indexOf('JOIN "td_db"."st$tags" AS t')
    expect(perChild).toBeGreaterThan(0)
    expect(join).toBeGreaterThan(perChild)
    expect(p.sql).toContain('CAST(avg(b."c1") AS DOUBLE) AS "__a0"')
    expect(p.sql).toContain('WHERE (b."__a0" > ')
    // the tag table is only read after the aggregation
    expect(p.sql.match(/st\$tags/g)).toHaveLength(1)
    // a tag key alone groups several children: the join stays first
    expect(plan("select _wstart, avg(c) from db.st interval(1m) partition by info->'a'").sql).not.toContain('"__a0"')
    expect(plan('select tbname, avg(c) from db.st where info is not null group by tbname').sql).not.toContain('"__a0"')
  })

  it('limits rows per partition with row_number() and partitions with dense_rank()', () => {
    const p = plan('select tbname, c from db.st partition by tbname slimit 1 limit 2')
    expect(p.sql).toContain('row_number() OVER (PARTITION BY b."tbname"')
    expect(p.sql).toContain('dense_rank() OVER (ORDER BY b."tbname" ASC NULLS LAST)')
    expect(p.sql).toContain('"__rn" <= 2')
    expect(p.sql).toContain('"__pr" <= 1')
  })

  it('types results per the function table and names columns as written', () => {
    expect(plan('select SUM(c), Min(ts), spread(c) from st', 'db').columns).toEqual([
      { name: 'sum(c)', type: 'BIGINT', length: 8 },
      { name: 'min(ts)', type: 'TIMESTAMP', length: 8 },
      { name: 'spread(c)', type: 'DOUBLE', length: 8 },
    ])
    expect(plan('select info, c + 1 as inc, tbname from st', 'db').columns).toEqual([
      { name: 'info', type: 'JSON', length: 4095 },
      { name: 'inc', type: 'DOUBLE', length: 8 },
      { name: 'tbname', type: 'VARCHAR', length: 192 },
    ])
  })
})
