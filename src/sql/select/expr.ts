import type { Cursor } from '../cursor.js'
import { splitDuration, type Token } from '../lexer.js'
import type { BinaryOp, Expr } from './ast.js'

/**
 * Expression parser (precedence climbing, loosest first):
 *   OR < AND < NOT < comparison / IN / BETWEEN / LIKE / MATCH / IS NULL
 *      < bitwise (| & << >>) < + - || < * / % < unary (- + ~) < primary
 */
export function parseExpr(c: Cursor): Expr {
  return parseOr(c)
}

function parseOr(c: Cursor): Expr {
  let left = parseAnd(c)
  while (c.acceptKeyword('OR')) {
    left = { kind: 'binary', op: 'OR', left, right: parseAnd(c) }
  }
  return left
}

function parseAnd(c: Cursor): Expr {
  let left = parseNot(c)
  while (c.acceptKeyword('AND')) {
    left = { kind: 'binary', op: 'AND', left, right: parseNot(c) }
  }
  return left
}

function parseNot(c: Cursor): Expr {
  if (c.peek().kind === 'keyword' && c.peek().value === 'NOT') {
    c.next()
    return { kind: 'unary', op: 'NOT', expr: parseNot(c) }
  }
  return parseComparison(c)
}

const COMPARISON_OPS: Record<string, BinaryOp> = {
  '=': '=',
  '!=': '!=',
  '<>': '!=',
  '<': '<',
  '<=': '<=',
  '>': '>',
  '>=': '>=',
}

function isKw(t: Token, kw: string): boolean {
  return t.kind === 'keyword' && t.value === kw
}

function parseComparison(c: Cursor): Expr {
  const left = parseBitwise(c)
  const t = c.peek()
  if (t.kind === 'op' && COMPARISON_OPS[t.value] !== undefined) {
    c.next()
    return { kind: 'binary', op: COMPARISON_OPS[t.value], left, right: parseBitwise(c) }
  }
  if (isKw(t, 'IS')) {
    c.next()
    const not = c.acceptKeyword('NOT')
    c.expectKeyword('NULL')
    return { kind: 'isNull', expr: left, not }
  }
  let not = false
  if (isKw(t, 'NOT') && ['IN', 'BETWEEN', 'LIKE', 'MATCH', 'NMATCH'].some((k) => isKw(c.peek(1), k))) {
    c.next()
    not = true
  }
  const u = c.peek()
  if (isKw(u, 'BETWEEN')) {
    c.next()
    const low = parseBitwise(c)
    c.expectKeyword('AND')
    const high = parseBitwise(c)
    return { kind: 'between', expr: left, low, high, not }
  }
  if (isKw(u, 'IN')) {
    c.next()
    c.expect('(')
    const list: Expr[] = [parseExpr(c)]
    while (c.accept(',')) {
      list.push(parseExpr(c))
    }
    c.expect(')')
    return { kind: 'in', expr: left, list, not }
  }
  if (isKw(u, 'LIKE') || isKw(u, 'MATCH') || isKw(u, 'NMATCH')) {
    c.next()
    const op = u.value as 'LIKE' | 'MATCH' | 'NMATCH'
    return { kind: 'like', op, expr: left, pattern: parseBitwise(c), not }
  }
  return left
}

function parseBitwise(c: Cursor): Expr {
  let left = parseAdditive(c)
  for (;;) {
    const t = c.peek()
    if (t.kind === 'op' && (t.value === '|' || t.value === '&' || t.value === '<<' || t.value === '>>')) {
      c.next()
      left = { kind: 'binary', op: t.value, left, right: parseAdditive(c) }
    } else {
      return left
    }
  }
}

function parseAdditive(c: Cursor): Expr {
  let left = parseMultiplicative(c)
  for (;;) {
    const t = c.peek()
    if (t.kind === 'op' && (t.value === '+' || t.value === '-' || t.value === '||')) {
      c.next()
      left = { kind: 'binary', op: t.value, left, right: parseMultiplicative(c) }
    } else {
      return left
    }
  }
}

function parseMultiplicative(c: Cursor): Expr {
  let left = parseUnary(c)
  for (;;) {
    const t = c.peek()
    if (t.kind === 'op' && (t.value === '*' || t.value === '/' || t.value === '%')) {
      c.next()
      left = { kind: 'binary', op: t.value, left, right: parseUnary(c) }
    } else {
      return left
    }
  }
}

function parseUnary(c: Cursor): Expr {
  const t = c.peek()
  if (t.kind === 'op' && (t.value === '-' || t.value === '+' || t.value === '~')) {
    c.next()
    const inner = parseUnary(c)
    // fold a sign into numeric literals so `-1` stays a literal (LIMIT, FILL values, IN lists)
    if (t.value === '-' && inner.kind === 'num') {
      return { kind: 'num', text: inner.text.startsWith('-') ? inner.text.slice(1) : `-${inner.text}`, isFloat: inner.isFloat }
    }
    if (t.value === '+' && inner.kind === 'num') {
      return inner
    }
    return { kind: 'unary', op: t.value, expr: inner }
  }
  return parsePrimary(c)
}

function parsePrimary(c: Cursor): Expr {
  const t = c.peek()
  switch (t.kind) {
    case 'number': {
      c.next()
      const isFloat = !t.value.startsWith('0x') && /[.e]/.test(t.value)
      const text = t.value.startsWith('0x') ? BigInt(t.value).toString() : t.value
      return { kind: 'num', text, isFloat }
    }
    case 'string':
      c.next()
      return { kind: 'str', value: t.value }
    case 'duration':
      c.next()
      return { kind: 'duration', duration: splitDuration(t.value) }
    case 'punct':
      if (t.value === '(') {
        c.next()
        const e = parseExpr(c)
        c.expect(')')
        return e
      }
      throw c.error()
    case 'op':
      if (t.value === '*') {
        c.next()
        return { kind: 'star' }
      }
      throw c.error()
    case 'keyword':
      if (t.value === 'NULL') {
        c.next()
        return { kind: 'null' }
      }
      if (t.value === 'TRUE' || t.value === 'FALSE') {
        c.next()
        return { kind: 'bool', value: t.value === 'TRUE' }
      }
      if (t.value === 'CASE') {
        return parseCase(c)
      }
      throw c.error()
    case 'ident':
    case 'quotedIdent':
      return parseNameOrCall(c)
    default:
      throw c.error()
  }
}

function parseCase(c: Cursor): Expr {
  c.expectKeyword('CASE')
  const operand = c.atKeyword('WHEN') ? undefined : parseExpr(c)
  const whens: { when: Expr; then: Expr }[] = []
  while (c.acceptKeyword('WHEN')) {
    const when = parseExpr(c)
    c.expectKeyword('THEN')
    whens.push({ when, then: parseExpr(c) })
  }
  if (whens.length === 0) {
    throw c.error()
  }
  const elseExpr = c.acceptKeyword('ELSE') ? parseExpr(c) : undefined
  c.expectKeyword('END')
  const out: Expr = { kind: 'case', whens }
  if (operand !== undefined) {
    out.operand = operand
  }
  if (elseExpr !== undefined) {
    out.else = elseExpr
  }
  return out
}

function parseNameOrCall(c: Cursor): Expr {
  const first = c.next()
  const quoted = first.kind === 'quotedIdent'
  // function call: unquoted name followed by `(`
  if (!quoted && c.at('(')) {
    const name = first.value
    c.next()
    if (name === 'cast') {
      const expr = parseExpr(c)
      c.expectKeyword('AS')
      const typeName = c.expectIdent().name
      let type = typeName
      if (c.atKeyword('UNSIGNED')) {
        c.next()
        type = `${typeName} unsigned`
      }
      const out: Expr = { kind: 'cast', expr, type: { name: type } }
      if (c.accept('(')) {
        const n = c.next()
        if (n.kind !== 'number') {
          throw c.error(n)
        }
        out.type.length = Number(n.value)
        c.expect(')')
      }
      c.expect(')')
      return out
    }
    const args: Expr[] = []
    if (!c.at(')')) {
      args.push(parseExpr(c))
      while (c.accept(',')) {
        args.push(parseExpr(c))
      }
    }
    c.expect(')')
    return { kind: 'call', name, args }
  }
  if (c.at('.')) {
    c.next()
    if (c.at('*')) {
      c.next()
      return { kind: 'star', table: first.value }
    }
    const col = c.expectIdent()
    return { kind: 'col', table: first.value, name: col.name }
  }
  // NOW / TODAY without parentheses are functions (NOW - 1h)
  if (!quoted && (first.value === 'now' || first.value === 'today')) {
    return { kind: 'call', name: first.value, args: [] }
  }
  return { kind: 'col', name: first.value }
}
