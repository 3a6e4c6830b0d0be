import { describe, expect, it } from 'vitest'
import { Cursor } from '../cursor.js'
import { tokenize } from '../lexer.js'
import { parseSelect } from './parse-select.js'

function parse(sql: string) {
  const c = new Cursor(sql, tokenize(sql))
  const stmt = parseSelect(c)
  expect(c.atEnd()).toBe(true)
  return stmt
}

function parseErr(sql: string): { code: number; desc: string } {
  try {
    parse(sql)
  } catch (e) {
    const err = e as { code: number; desc: string }
    return { code: err.code, desc: err.desc }
  }
  throw new Error('expected a parse error')
}

describe('parseSelect: select list', () => {
  it('keeps the written text lower-cased outside string literals as the default name', () => {
    const s = parse("SELECT AVG(Voltage), Count(*), 'AbC' , c1 AS Foo, `MiXed` FROM db.St")
    expect(s.items.map((i) => i.text)).toEqual(['avg(voltage)', 'count(*)', "'AbC'", 'c1', 'MiXed'])
    expect(s.items[3].alias).toBe('foo')
    expect(s.items[0].expr).toEqual({ kind: 'call', name: 'avg', args: [{ kind: 'col', name: 'voltage' }] })
    expect(s.items[1].expr).toEqual({ kind: 'call', name: 'count', args: [{ kind: 'star' }] })
    expect(s.from).toEqual({ kind: 'table', db: 'db', name: 'st' })
  })

  it('parses constants and system functions without FROM', () => {
    const s = parse('select 1+1, server_version(), now, -2.5')
    expect(s.from).toBeUndefined()
    expect(s.items.map((i) => i.expr)).toEqual([
      { kind: 'binary', op: '+', left: { kind: 'num', text: '1', isFloat: false }, right: { kind: 'num', text: '1', isFloat: false } },
      { kind: 'call', name: 'server_version', args: [] },
      { kind: 'call', name: 'now', args: [] },
      { kind: 'num', text: '-2.5', isFloat: true },
    ])
  })

  it('parses t.*, DISTINCT and aliases without AS', () => {
    const s = parse('select distinct t.*, c x from st t')
    expect(s.distinct).toBe(true)
    expect(s.items[0].expr).toEqual({ kind: 'star', table: 't' })
    expect(s.items[1]).toEqual({ expr: { kind: 'col', name: 'c' }, alias: 'x', text: 'c' })
    expect(s.from).toEqual({ kind: 'table', name: 'st', alias: 't' })
  })
})

describe('parseSelect: expressions and precedence', () => {
  it('binds AND tighter than OR and comparison tighter than AND', () => {
    const s = parse('select * from t where a = 1 or b > 2 and not c < 3')
    expect(s.where).toEqual({
      kind: 'binary',
      op: 'OR',
      left: { kind: 'binary', op: '=', left: { kind: 'col', name: 'a' }, right: { kind: 'num', text: '1', isFloat: false } },
      right: {
        kind: 'binary',
        op: 'AND',
        left: { kind: 'binary', op: '>', left: { kind: 'col', name: 'b' }, right: { kind: 'num', text: '2', isFloat: false } },
        right: {
          kind: 'unary',
          op: 'NOT',
          expr: { kind: 'binary', op: '<', left: { kind: 'col', name: 'c' }, right: { kind: 'num', text: '3', isFloat: false } },
        },
      },
    })
  })

  it('binds * tighter than + and + tighter than comparison', () => {
    const s = parse('select a + b * 2 >= 3 from t')
    expect(s.items[0].expr).toEqual({
      kind: 'binary',
      op: '>=',
      left: {
        kind: 'binary',
        op: '+',
        left: { kind: 'col', name: 'a' },
        right: { kind: 'binary', op: '*', left: { kind: 'col', name: 'b' }, right: { kind: 'num', text: '2', isFloat: false } },
      },
      right: { kind: 'num', text: '3', isFloat: false },
    })
  })

  it('parses IN, BETWEEN, LIKE, MATCH, IS NULL and their negations', () => {
    const s = parse(
      "select * from st where loc not in ('a', 'b') and ts between '2022-01-01' and now - 1h and tbname like 'd%' and c nmatch '^x' and v is not null",
    )
    const w = s.where as { kind: 'binary'; left: unknown; right: unknown }
    expect(JSON.stringify(w)).toContain('"kind":"in"')
    expect(s.where).toMatchObject({
      right: { kind: 'isNull', expr: { kind: 'col', name: 'v' }, not: true },
      left: {
        right: { kind: 'like', op: 'NMATCH', not: false, pattern: { kind: 'str', value: '^x' } },
        left: {
          right: { kind: 'like', op: 'LIKE', expr: { kind: 'col', name: 'tbname' } },
          left: {
            left: { kind: 'in', not: true, list: [{ kind: 'str', value: 'a' }, { kind: 'str', value: 'b' }] },
            right: {
              kind: 'between',
              low: { kind: 'str', value: '2022-01-01' },
              high: { kind: 'binary', op: '-', left: { kind: 'call', name: 'now', args: [] }, right: { kind: 'duration', duration: { value: 1, unit: 'h' } } },
            },
          },
        },
      },
    })
  })

  it('parses CASE with and without operand', () => {
    const s = parse("select case when c > 1 then 'big' else 'small' end, case c when 1 then 2 end from t")
    expect(s.items[0].expr).toEqual({
      kind: 'case',
      whens: [{ when: { kind: 'binary', op: '>', left: { kind: 'col', name: 'c' }, right: { kind: 'num', text: '1', isFloat: false } }, then: { kind: 'str', value: 'big' } }],
      else: { kind: 'str', value: 'small' },
    })
    expect(s.items[1].expr).toMatchObject({ kind: 'case', operand: { kind: 'col', name: 'c' } })
  })
})

describe('parseSelect: clauses', () => {
  it('parses PARTITION BY, INTERVAL with offset, SLIDING and FILL(VALUE, ...)', () => {
    const s = parse("select _wstart, avg(c) from db.st where ts >= '2022-01-01' partition by tbname interval(1m, 5s) sliding(30s) fill(value, 0, -1.5)")
    expect(s.partitionBy).toEqual([{ kind: 'col', name: 'tbname' }])
    expect(s.window).toEqual({
      kind: 'interval',
      interval: { value: 1, unit: 'm' },
      offset: { value: 5, unit: 's' },
      sliding: { value: 30, unit: 's' },
      fill: { mode: 'value', values: [{ kind: 'num', text: '0', isFloat: false }, { kind: 'num', text: '-1.5', isFloat: true }] },
    })
  })

  it('keeps a FILL written after a late PARTITION BY', () => {
    const s = parse('SELECT _wstart, avg(c) FROM db.st INTERVAL(1m) PARTITION BY tbname FILL(NULL)')
    expect(s.partitionBy).toEqual([{ kind: 'col', name: 'tbname' }])
    expect(s.window).toEqual({ kind: 'interval', interval: { value: 1, unit: 'm' }, fill: { mode: 'null', values: [] } })
  })

  it('accepts PARTITION BY after the window clause as well', () => {
    const s = parse('SELECT _wstart, avg(c) FROM db.st WHERE ts >= 0 INTERVAL(1m) PARTITION BY tbname')
    expect(s.partitionBy).toEqual([{ kind: 'col', name: 'tbname' }])
    expect(s.window?.interval).toEqual({ value: 1, unit: 'm' })
  })

  it('accepts bare-integer and quoted intervals and each fill mode', () => {
    for (const mode of ['none', 'null', 'prev', 'next', 'linear'] as const) {
      expect(parse(`select count(*) from t interval(10) fill(${mode})`).window).toEqual({
        kind: 'interval',
        interval: { value: 10, unit: '' },
        fill: { mode, values: [] },
      })
    }
    expect(parse("select count(*) from t interval('1s')").window?.interval).toEqual({ value: 1, unit: 's' })
  })

  it('parses GROUP BY/HAVING, ORDER BY with NULLS, LIMIT/OFFSET, LIMIT m,n and SLIMIT', () => {
    const s = parse('select loc, count(*) from st group by loc having count(*) > 1 order by 2 desc, loc nulls first slimit 2 soffset 1 limit 5, 10')
    expect(s.groupBy).toEqual([{ kind: 'col', name: 'loc' }])
    expect(s.having).toMatchObject({ kind: 'binary', op: '>' })
    expect(s.orderBy).toEqual([
      { expr: { kind: 'num', text: '2', isFloat: false }, desc: true },
      { expr: { kind: 'col', name: 'loc' }, desc: false, nullsFirst: true },
    ])
    expect(s.slimit).toEqual({ limit: 2, offset: 1 })
    expect(s.limit).toEqual({ limit: 10, offset: 5 })
    expect(parse('select * from t limit 3 offset 4').limit).toEqual({ limit: 3, offset: 4 })
  })

  it('parses FROM subqueries with aliases', () => {
    const s = parse('select avg(x) from (select _wstart as ts, max(c) as x from t interval(1m)) sub')
    expect(s.from).toMatchObject({ kind: 'subquery', alias: 'sub', select: { items: [{ alias: 'ts' }, { alias: 'x' }] } })
  })
})

describe('parseSelect: errors', () => {
  it('reports the rest of the SQL from the offending token', () => {
    expect(parseErr('select * from t where')).toEqual({ code: 9729, desc: 'Incomplete SQL statement' })
    expect(parseErr('select * from t interval(1m) fill(bogus)')).toEqual({ code: 9728, desc: 'syntax error near "bogus)"' })
    expect(parseErr('select * from t limit -1')).toEqual({ code: 9783, desc: 'soffset/offset can not be less than 0' })
  })
})
