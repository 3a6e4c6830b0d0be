import type { Cursor } from '../cursor.js'
import { splitDuration, type Token } from '../lexer.js'
import { MAX_EXPR_DEPTH } from '../sql-limits.js'
import type { BinaryOp, Expr } from './ast.js'

/**
 * Expression parser (precedence climbing, loosest first):
 *   OR < AND < NOT < comparison / IN / BETWEEN / LIKE / MATCH / IS NULL
 *      < bitwise (| & << >>) < + - || < * / % < unary (- + ~) < primary
 *
 * Operator chains are loops; nesting goes through `c.enter()` (bounded). Every function leaves the
 * depth of the tree it built in `c.exprDepth`, so a chain deeper than MAX_EXPR_DEPTH (which the
 * recursive planner and SQL writer would then walk) is refused as it is read, in linear time.
 */
export function parseExpr(c: Cursor): Expr {
  return parseOr(c)
}

/** the depth of a node over children of depths `a` and `b`, refused past the limit */
function deeper(c: Cursor, a: number, b: number): number {
  const d = (a > b ? a : b) + 1
  if (d > MAX_EXPR_DEPTH) {
    throw c.tooDeep(`an expression more than ${MAX_EXPR_DEPTH} operators deep`)
  }
  return d
}

function parseOr(c: Cursor): Expr {
  let left = parseAnd(c)
  let depth = c.exprDepth
  while (c.acceptKeyword('OR')) {
    const right = parseAnd(c)
    depth = deeper(c, depth, c.exprDepth)
    left = { kind: 'binary', op: 'OR', left, right }
  }
  c.exprDepth = depth
  return left
}

function parseAnd(c: Cursor): Expr {
  let left = parseNot(c)
  let depth = c.exprDepth
  while (c.acceptKeyword('AND')) {
    const right = parseNot(c)
    depth = deeper(c, depth, c.exprDepth)
    left = { kind: 'binary', op: 'AND', left, right }
  }
  c.exprDepth = depth
  return left
}

function parseNot(c: Cursor): Expr {
  if (c.peek().kind === 'keyword' && c.peek().value === 'NOT') {
    c.next()
    c.enter()
    const expr = parseNot(c)
    c.leave()
    c.exprDepth = deeper(c, c.exprDepth, 0)
    return { kind: 'unary', op: 'NOT', expr }
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
  const leftDepth = c.exprDepth
  const t = c.peek()
  if (t.kind === 'op' && COMPARISON_OPS[t.value] !== undefined) {
    c.next()
    const right = parseBitwise(c)
    c.exprDepth = deeper(c, leftDepth, c.exprDepth)
    return { kind: 'binary', op: COMPARISON_OPS[t.value], left, right }
  }
  if (isKw(t, 'CONTAINS')) {
    c.next()
    c.exprDepth = deeper(c, leftDepth, 0)
    return { kind: 'json', op: 'contains', expr: left, key: jsonKey(c) }
  }
  if (isKw(t, 'IS')) {
    c.next()
    const not = c.acceptKeyword('NOT')
    c.expectKeyword('NULL')
    c.exprDepth = deeper(c, leftDepth, 0)
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
    const depth = deeper(c, leftDepth, c.exprDepth)
    c.expectKeyword('AND')
    const high = parseBitwise(c)
    c.exprDepth = deeper(c, depth - 1, c.exprDepth)
    return { kind: 'between', expr: left, low, high, not }
  }
  if (isKw(u, 'IN')) {
    c.next()
    c.expect('(')
    c.enter()
    const list: Expr[] = [parseExpr(c)]
    let depth = deeper(c, leftDepth, c.exprDepth)
    while (c.accept(',')) {
      list.push(parseExpr(c))
      depth = deeper(c, depth - 1, c.exprDepth)
    }
    c.expect(')')
    c.leave()
    c.exprDepth = depth
    return { kind: 'in', expr: left, list, not }
  }
  if (isKw(u, 'LIKE') || isKw(u, 'MATCH') || isKw(u, 'NMATCH')) {
    c.next()
    const op = u.value as 'LIKE' | 'MATCH' | 'NMATCH'
    const pattern = parseBitwise(c)
    c.exprDepth = deeper(c, leftDepth, c.exprDepth)
    return { kind: 'like', op, expr: left, pattern, not }
  }
  c.exprDepth = leftDepth
  return left
}

function parseBitwise(c: Cursor): Expr {
  let left = parseAdditive(c)
  let depth = c.exprDepth
  for (;;) {
    const t = c.peek()
    if (t.kind === 'op' && (t.value === '|' || t.value === '&' || t.value === '<<' || t.value === '>>')) {
      c.next()
      const right = parseAdditive(c)
      depth = deeper(c, depth, c.exprDepth)
      left = { kind: 'binary', op: t.value, left, right }
    } else {
      c.exprDepth = depth
      return left
    }
  }
}

function parseAdditive(c: Cursor): Expr {
  let left = parseMultiplicative(c)
  let depth = c.exprDepth
  for (;;) {
    const t = c.peek()
    if (t.kind === 'op' && (t.value === '+' || t.value === '-' || t.value === '||')) {
      c.next()
      const right = parseMultiplicative(c)
      depth = deeper(c, depth, c.exprDepth)
      left = { kind: 'binary', op: t.value, left, right }
    } else {
      c.exprDepth = depth
      return left
    }
  }
}

function parseMultiplicative(c: Cursor): Expr {
  let left = parseUnary(c)
  let depth = c.exprDepth
  for (;;) {
    const t = c.peek()
    if (t.kind === 'op' && (t.value === '*' || t.value === '/' || t.value === '%')) {
      c.next()
      const right = parseUnary(c)
      depth = deeper(c, depth, c.exprDepth)
      left = { kind: 'binary', op: t.value, left, right }
    } else {
      c.exprDepth = depth
      return left
    }
  }
}

function parseUnary(c: Cursor): Expr {
  const t = c.peek()
  if (t.kind === 'op' && (t.value === '-' || t.value === '+' || t.value === '~')) {
    c.next()
    c.enter()
    const inner = parseUnary(c)
    c.leave()
    // fold a sign into numeric literals so `-1` stays a literal (LIMIT, FILL values, IN lists)
    if (t.value === '-' && inner.kind === 'num') {
      return { kind: 'num', text: inner.text.startsWith('-') ? inner.text.slice(1) : `-${inner.text}`, isFloat: inner.isFloat }
    }
    if (t.value === '+' && inner.kind === 'num') {
      return inner
    }
    c.exprDepth = deeper(c, c.exprDepth, 0)
    return { kind: 'unary', op: t.value, expr: inner }
  }
  let e = parsePrimary(c)
  // `jtag->'key'` binds tightest: a postfix on its operand
  while (c.peek().kind === 'op' && c.peek().value === '->') {
    c.next()
    e = { kind: 'json', op: '->', expr: e, key: jsonKey(c) }
    c.exprDepth = deeper(c, c.exprDepth, 0)
  }
  return e
}

function jsonKey(c: Cursor): string {
  const t = c.next()
  if (t.kind !== 'string') {
    throw c.error(t)
  }
  return t.value
}

function parsePrimary(c: Cursor): Expr {
  const t = c.peek()
  // a leaf unless a branch below builds more
  c.exprDepth = 1
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
        c.enter()
        const e = parseExpr(c)
        c.expect(')')
        c.leave()
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
  c.enter()
  let depth = 0
  const sub = (): Expr => {
    const e = parseExpr(c)
    depth = c.exprDepth > depth ? c.exprDepth : depth
    return e
  }
  const operand = c.atKeyword('WHEN') ? undefined : sub()
  const whens: { when: Expr; then: Expr }[] = []
  while (c.acceptKeyword('WHEN')) {
    const when = sub()
    c.expectKeyword('THEN')
    whens.push({ when, then: sub() })
  }
  if (whens.length === 0) {
    throw c.error()
  }
  const elseExpr = c.acceptKeyword('ELSE') ? sub() : undefined
  c.expectKeyword('END')
  c.leave()
  c.exprDepth = deeper(c, depth, 0)
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
    c.enter()
    if (name === 'cast') {
      const expr = parseExpr(c)
      const depth = deeper(c, c.exprDepth, 0)
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
      c.leave()
      c.exprDepth = depth
      return out
    }
    const special = parseSpecialCall(c, name)
    if (special !== undefined) {
      c.expect(')')
      c.leave()
      return special
    }
    const args: Expr[] = []
    let depth = 1
    if (!c.at(')')) {
      args.push(parseExpr(c))
      depth = deeper(c, c.exprDepth, 0)
      while (c.accept(',')) {
        args.push(parseExpr(c))
        depth = deeper(c, depth - 1, c.exprDepth)
      }
    }
    c.expect(')')
    c.leave()
    c.exprDepth = depth
    return { kind: 'call', name, args }
  }
  c.exprDepth = 1
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

/**
 * The calls with keywords inside (TDengine 3.3.3): POSITION(a IN b), SUBSTRING/SUBSTR(s FROM pos
 * [FOR len]) and TRIM([{LEADING|TRAILING|BOTH}] [remstr] FROM s), read into plain calls:
 * position(a, b), substring(s, pos[, len]) and trim(s, remstr, side). Undefined (nothing read)
 * for the ordinary argument-list form.
 */
function parseSpecialCall(c: Cursor, name: string): Expr | undefined {
  const arg = (): Expr => {
    const e = parseExpr(c)
    c.exprDepth = deeper(c, c.exprDepth, 0)
    return e
  }
  if (name === 'position') {
    const needle = parseBitwise(c)
    c.expectKeyword('IN')
    return { kind: 'call', name, args: [needle, arg()] }
  }
  if ((name === 'substring' || name === 'substr') && !c.at(')')) {
    const start = c.pos
    const s = arg()
    if (!c.acceptKeyword('FROM')) {
      c.pos = start
      return undefined
    }
    const args = [s, arg()]
    if (c.acceptKeyword('FOR')) {
      args.push(arg())
    }
    return { kind: 'call', name, args }
  }
  if (name === 'trim' && !c.at(')')) {
    const start = c.pos
    let side: string | undefined
    if (c.atKeyword('LEADING', 'TRAILING', 'BOTH') && !c.atKeywordAt(1, ',', ')')) {
      side = c.next().value.toLowerCase()
    }
    if (c.acceptKeyword('FROM')) {
      return { kind: 'call', name, args: [arg(), { kind: 'str', value: ' ' }, { kind: 'str', value: side ?? 'both' }] }
    }
    const first = arg()
    if (c.acceptKeyword('FROM')) {
      return { kind: 'call', name, args: [arg(), first, { kind: 'str', value: side ?? 'both' }] }
    }
    if (side !== undefined) {
      throw c.error()
    }
    c.pos = start
    return undefined
  }
  return undefined
}
