import { describe, expect, it } from 'vitest'
import { tokenize, splitDuration } from './lexer.js'
import { Cursor } from './cursor.js'
import { TdError } from '../td-error.js'

function kv(sql: string): [string, string][] {
  return tokenize(sql).map((t) => [t.kind, t.value])
}

describe('tokenize', () => {
  it('folds unquoted identifiers, upper-cases reserved keywords, keeps quoted names', () => {
    expect(kv('SELECT Value, `MyCol` FROM Power.D1001')).toEqual([
      ['keyword', 'SELECT'],
      ['ident', 'value'],
      ['punct', ','],
      ['quotedIdent', 'MyCol'],
      ['keyword', 'FROM'],
      ['ident', 'power'],
      ['punct', '.'],
      ['ident', 'd1001'],
      ['eof', ''],
    ])
  })

  it('records raw text and offsets', () => {
    const t = tokenize("  show `DB`.tables like 'x%'")
    expect(t[0]).toEqual({ kind: 'ident', value: 'show', raw: 'show', start: 2, end: 6 })
    expect(t[1]).toEqual({ kind: 'quotedIdent', value: 'DB', raw: '`DB`', start: 7, end: 11 })
    expect(t[4]).toEqual({ kind: 'keyword', value: 'LIKE', raw: 'like', start: 19, end: 23 })
    expect(t[5]).toEqual({ kind: 'string', value: 'x%', raw: "'x%'", start: 24, end: 28 })
  })

  it('unescapes strings in both quote styles', () => {
    expect(tokenize(`'it''s' "a\\"b" 'x\\ny' 'p\\%q' '\\\\'`).map((t) => t.value)).toEqual([
      "it's",
      'a"b',
      'x\ny',
      'p\\%q',
      '\\',
      '',
    ])
  })

  it('reads numbers, exponents, hex and duration literals', () => {
    expect(kv('1 2.5 1e3 1.5E-2 0x1F 10m 500a 1h 2d 1w 1n 1y 5b 3u 1s 0.5s .5')).toEqual([
      ['number', '1'],
      ['number', '2.5'],
      ['number', '1e3'],
      ['number', '1.5e-2'],
      ['number', '0x1f'],
      ['duration', '10m'],
      ['duration', '500a'],
      ['duration', '1h'],
      ['duration', '2d'],
      ['duration', '1w'],
      ['duration', '1n'],
      ['duration', '1y'],
      ['duration', '5b'],
      ['duration', '3u'],
      ['duration', '1s'],
      ['duration', '0.5s'],
      ['number', '.5'],
      ['eof', ''],
    ])
    expect(splitDuration('0.5s')).toEqual({ value: 0.5, unit: 's' })
  })

  it('reads operators and punctuation, longest first', () => {
    expect(kv('a>=1 and b<>2 or c!=3 || d<<1 >> 2 -> e <= f < g > h;').filter(([k]) => k === 'op' || k === 'punct')).toEqual([
      ['op', '>='],
      ['op', '<>'],
      ['op', '!='],
      ['op', '||'],
      ['op', '<<'],
      ['op', '>>'],
      ['op', '->'],
      ['op', '<='],
      ['op', '<'],
      ['op', '>'],
      ['punct', ';'],
    ])
    expect(kv('NOW-5m')).toEqual([
      ['ident', 'now'],
      ['op', '-'],
      ['duration', '5m'],
      ['eof', ''],
    ])
  })

  it('skips line, block and hint comments', () => {
    expect(kv('select /*+ para_tables_sort() */ 1 -- trailing\n /* x */ + 2')).toEqual([
      ['keyword', 'SELECT'],
      ['number', '1'],
      ['op', '+'],
      ['number', '2'],
      ['eof', ''],
    ])
  })

  it('rejects unterminated literals and stray characters with 9728', () => {
    for (const [sql, near] of [
      ["select 'abc", "'abc"],
      ['select `abc', '`abc'],
      ['select 1 # 2', '# 2'],
      ['select 12abc', '12abc'],
      ['select 1 /* x', '/* x'],
    ]) {
      try {
        tokenize(sql)
        expect.unreachable(sql)
      } catch (e) {
        expect(e).toBeInstanceOf(TdError)
        expect((e as TdError).code).toBe(9728)
        expect((e as TdError).desc).toBe(`syntax error near "${near}"`)
      }
    }
  })
})

describe('Cursor', () => {
  it('matches soft keywords on identifiers but never on quoted names', () => {
    const c = new Cursor('tags `tags` value', tokenize('tags `tags` value'))
    expect(c.acceptKeyword('TAGS')).toBe(true)
    expect(c.atKeyword('TAGS')).toBe(false)
    expect(c.expectIdent()).toMatchObject({ name: 'tags', quoted: true })
    expect(c.expectIdent()).toMatchObject({ name: 'value', quoted: false })
    expect(c.atEnd()).toBe(true)
  })

  it('reports the rest of the statement from the offending token', () => {
    const sql = 'show database'
    const c = new Cursor(sql, tokenize(sql))
    c.next()
    const e = c.error()
    expect(e.code).toBe(9728)
    expect(e.desc).toBe('syntax error near "database"')
    const long = 'select ' + 'x'.repeat(100)
    const c2 = new Cursor(long, tokenize(long))
    c2.next()
    expect(c2.error().desc).toBe(`syntax error near "${'x'.repeat(64)}"`)
  })

  it('reports 9729 Incomplete SQL statement at end of input', () => {
    const c = new Cursor('create', tokenize('create'))
    c.next()
    expect(() => c.expectKeyword('TABLE')).toThrow(expect.objectContaining({ code: 9729, desc: 'Incomplete SQL statement' }))
  })

  it('rejects a reserved word where a name is expected', () => {
    const c = new Cursor('from', tokenize('from'))
    expect(() => c.expectIdent()).toThrow(expect.objectContaining({ code: 9728, desc: 'syntax error near "from"' }))
  })

  it('acceptKeywords consumes a whole sequence or nothing', () => {
    const c = new Cursor('if not x', tokenize('if not x'))
    expect(c.acceptKeywords('IF', 'NOT', 'EXISTS')).toBe(false)
    expect(c.pos).toBe(0)
    const d = new Cursor('IF NOT EXISTS db', tokenize('IF NOT EXISTS db'))
    expect(d.acceptKeywords('IF', 'NOT', 'EXISTS')).toBe(true)
    expect(d.expectIdent().name).toBe('db')
  })
})
