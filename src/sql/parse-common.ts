import type { TableRef } from './ast.js'
import type { Cursor } from './cursor.js'
import type { Token } from './lexer.js'
import type { Span } from './value-expr.js'

/** Small readers every statement parser uses (parser.ts and the parse-*.ts beside it). */

export function span(from: Token, to: Token): Span {
  return { start: from.start, end: to.end }
}

export function prev(c: Cursor): Token {
  return c.tokens[Math.max(0, c.pos - 1)]
}

/** `[db.]name` */
export function parseTableRef(c: Cursor): TableRef {
  const first = c.expectIdent()
  if (c.accept('.')) {
    const second = c.expectIdent()
    return { db: first.name, name: second.name, span: span(first.token, second.token) }
  }
  return { name: first.name, span: span(first.token, first.token) }
}

export function ifNotExists(c: Cursor): boolean {
  return c.acceptKeywords('IF', 'NOT', 'EXISTS')
}

export function ifExists(c: Cursor): boolean {
  return c.acceptKeywords('IF', 'EXISTS')
}

export function expectString(c: Cursor): string {
  const t = c.peek()
  if (t.kind !== 'string') {
    throw c.error()
  }
  c.next()
  return t.value
}

/** an integer, optionally negative */
export function expectInt(c: Cursor): number {
  const neg = c.accept('-')
  const t = c.peek()
  if (t.kind !== 'number' || !/^\d+$/.test(t.value)) {
    throw c.error()
  }
  c.next()
  return neg ? -Number(t.value) : Number(t.value)
}

export function expect01(c: Cursor): boolean {
  const t = c.peek()
  const v = expectInt(c)
  if (v !== 0 && v !== 1) {
    throw c.error(t)
  }
  return v === 1
}
