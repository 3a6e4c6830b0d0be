import type { Cursor } from '../cursor.js'
import { TD, TdError } from '../../td-error.js'
import { splitDuration } from '../lexer.js'
import type { Duration, Expr, InterpClause, InterpFillMode, RowWindow } from './ast.js'
import { parseExpr } from './expr.js'

/** A duration: `1m`, a bare integer (ticks) or a quoted `'1m'`. */
export function parseDuration(c: Cursor): Duration {
  const t = c.next()
  if (t.kind === 'duration') {
    return splitDuration(t.value)
  }
  if (t.kind === 'number' && /^\d+$/.test(t.value)) {
    return { value: Number(t.value), unit: '' }
  }
  if (t.kind === 'string') {
    const m = /^\s*(\d+(?:\.\d+)?)([a-zA-Z]?)\s*$/.exec(t.value)
    if (m !== null && (m[2] === '' || 'buasmhdwny'.includes(m[2].toLowerCase()))) {
      return { value: Number(m[1]), unit: m[2].toLowerCase() }
    }
  }
  throw c.error(t)
}

function unsupported(c: Cursor, what: string): TdError {
  return new TdError(TD.PAR_SYNTAX_ERROR, `syntax error near "${c.peek().raw}" (${what} is not supported)`)
}

function parseCountArg(c: Cursor): number {
  const t = c.next()
  if (t.kind !== 'number' || !/^\d+$/.test(t.value)) {
    throw c.error(t)
  }
  return Number(t.value)
}

/** SESSION(ts, tol), STATE_WINDOW(expr), EVENT_WINDOW START WITH a END WITH b, COUNT_WINDOW(n[, m]) */
export function parseRowWindow(c: Cursor): RowWindow {
  const word = c.next().value.toUpperCase()
  if (word === 'EVENT_WINDOW') {
    c.expectKeyword('START')
    c.expectKeyword('WITH')
    const start = parseExpr(c)
    c.expectKeyword('END')
    c.expectKeyword('WITH')
    const end = parseExpr(c)
    if (c.atKeyword('TRUE_FOR')) {
      throw unsupported(c, 'TRUE_FOR')
    }
    return { kind: 'event', start, end }
  }
  c.expect('(')
  let w: RowWindow
  if (word === 'SESSION') {
    const col = parseExpr(c)
    c.expect(',')
    w = { kind: 'session', col, tol: parseDuration(c) }
  } else if (word === 'STATE_WINDOW') {
    w = { kind: 'state', expr: parseExpr(c) }
    if (c.at(',')) {
      throw unsupported(c, 'STATE_WINDOW over several keys')
    }
  } else {
    const count = parseCountArg(c)
    w = { kind: 'count', count }
    if (c.accept(',')) {
      w.sliding = parseCountArg(c)
    }
    if (c.at(',')) {
      throw unsupported(c, 'COUNT_WINDOW with columns')
    }
  }
  c.expect(')')
  if (c.atKeyword('EXTEND', 'ZEROTH_STATE', 'TRUE_FOR')) {
    throw unsupported(c, c.peek().raw.toUpperCase())
  }
  return w
}

const INTERP_FILLS = ['null', 'value', 'prev', 'next', 'linear', 'near']

/** INTERP's RANGE(start[, end]) EVERY(dur) FILL(mode[, values...]), each optional here (the planner checks) */
export function parseInterpClause(c: Cursor): InterpClause | undefined {
  if (!c.atKeyword('RANGE', 'EVERY')) {
    return undefined
  }
  const clause: InterpClause = { range: [] }
  if (c.acceptKeyword('RANGE')) {
    c.expect('(')
    clause.range.push(parseExpr(c))
    if (c.accept(',')) {
      clause.range.push(parseExpr(c))
    }
    c.expect(')')
  }
  if (c.acceptKeyword('EVERY')) {
    c.expect('(')
    clause.every = parseDuration(c)
    c.expect(')')
  }
  if (c.acceptKeyword('FILL')) {
    c.expect('(')
    const t = c.next()
    const mode = (t.kind === 'keyword' || t.kind === 'ident' ? t.value.toLowerCase() : '') as InterpFillMode
    if (!INTERP_FILLS.includes(mode)) {
      throw c.error(t)
    }
    const values: Expr[] = []
    while (c.accept(',')) {
      values.push(parseExpr(c))
    }
    if (mode === 'value' && values.length === 0) {
      throw c.error()
    }
    c.expect(')')
    clause.fill = { mode, values }
  }
  return clause
}
