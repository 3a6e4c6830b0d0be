import { describe, expect, it } from 'vitest'
import { parseStatement } from '../parser.js'
import { Cursor } from '../cursor.js'
import { tokenize } from '../lexer.js'
import { parseSelect } from './parse-select.js'

function parse(sql: string) {
  const c = new Cursor(sql, tokenize(sql))
  const stmt = parseSelect(c)
  expect(c.atEnd()).toBe(true)
  return stmt
}

describe('parseSelect: JSON operators', () => {
  it("reads tag->'key' as a postfix and CONTAINS as a comparison", () => {
    const s = parse("select info->'k1' from st where info contains 'k2' and info->'k' = 'v'")
    expect(s.items[0].expr).toEqual({ kind: 'json', op: '->', expr: { kind: 'col', name: 'info' }, key: 'k1' })
    expect(s.items[0].text).toBe("info->'k1'")
    expect(s.where).toEqual({
      kind: 'binary',
      op: 'AND',
      left: { kind: 'json', op: 'contains', expr: { kind: 'col', name: 'info' }, key: 'k2' },
      right: { kind: 'binary', op: '=', left: { kind: 'json', op: '->', expr: { kind: 'col', name: 'info' }, key: 'k' }, right: { kind: 'str', value: 'v' } },
    })
  })
})

describe('parseSelect: UNION', () => {
  it('moves the ORDER BY and LIMIT after the last member to the union', () => {
    const s = parse('select a from t1 union all select b from t2 union select c from t3 order by 1 limit 2')
    expect(s.setOps?.map((m) => m.all)).toEqual([true, false])
    expect(s.orderBy).toHaveLength(1)
    expect(s.limit).toEqual({ limit: 2, offset: 0 })
    expect(s.setOps?.[1].select.orderBy).toEqual([])
    expect(s.setOps?.[1].select.limit).toBeUndefined()
  })

  it('keeps ORDER BY and LIMIT inside a parenthesised member', () => {
    const s = parse('select a from t1 union all (select b from t2 order by b limit 1) limit 5')
    expect(s.setOps?.[0].select.limit).toEqual({ limit: 1, offset: 0 })
    expect(s.limit).toEqual({ limit: 5, offset: 0 })
  })

  it('refuses ORDER BY on a member that is not the last, without parentheses', () => {
    expect(() => parse('select a from t1 order by a union all select b from t2')).toThrow(/union/)
  })

  it('accepts a parenthesised first member at statement level', () => {
    const st = parseStatement('(select a from t1) union all select b from t2')
    expect(st.type).toBe('select')
  })
})

describe('parseSelect: joins', () => {
  it('parses every documented join form', () => {
    const types = [
      ['join', 'inner'],
      ['inner join', 'inner'],
      ['left join', 'left'],
      ['left outer join', 'left'],
      ['right join', 'right'],
      ['full outer join', 'full'],
      ['left semi join', 'left semi'],
      ['right anti join', 'right anti'],
      ['left asof join', 'left asof'],
      ['right window join', 'right window'],
    ]
    for (const [words, type] of types) {
      const s = parse(`select a.ts from t1 a ${words} t2 b on a.ts = b.ts`)
      expect(s.from?.kind === 'join' && s.from.type, words).toBe(type)
    }
  })

  it('reads WINDOW_OFFSET with signed offsets and JLIMIT; no alias needed before them', () => {
    const s = parse('select * from t1 left window join t2 window_offset(-1s, 2a) jlimit 3')
    expect(s.from).toMatchObject({ kind: 'join', type: 'left window', windowOffset: [{ value: -1, unit: 's' }, { value: 2, unit: 'a' }], jlimit: 3 })
    expect(s.from?.kind === 'join' && s.from.right).toEqual({ kind: 'table', name: 't2' })
  })

  it('a comma list is a left-deep chain of comma joins', () => {
    const s = parse('select * from t1, t2, t3 where t1.ts = t2.ts')
    expect(s.from).toMatchObject({ kind: 'join', type: 'comma', left: { kind: 'join', type: 'comma' }, right: { kind: 'table', name: 't3' } })
  })

  it('names a qualified plain column by its column name', () => {
    expect(parse('select a.ts, a.v + 1 from t a').items.map((i) => i.text)).toEqual(['ts', 'a.v + 1'])
  })
})

describe('parseSelect: SELECT TAGS', () => {
  it('sets tags for SELECT TAGS and keeps a column called tags readable', () => {
    expect(parse('select tags loc, tbname from st').tags).toBe(true)
    const plain = parse('select tags from t')
    expect(plain.tags).toBeUndefined()
    expect(plain.items[0].expr).toEqual({ kind: 'col', name: 'tags' })
  })
})
