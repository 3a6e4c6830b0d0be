import { describe, expect, it } from 'vitest'
import { Cursor } from './cursor.js'
import { tokenize } from './lexer.js'

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
