import { describe, expect, it } from 'vitest'
import { tokenize, splitDuration } from './lexer.js'
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
