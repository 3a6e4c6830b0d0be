import type { ChildUsing } from './ast.js'
import type { Cursor } from './cursor.js'
import { splitDuration } from './lexer.js'
import { parseTableRef, prev, span } from './parse-common.js'
import { TD, TdError } from '../td-error.js'
import type { TimeDelta, ValueExpr } from './value-expr.js'

/** Literal values (INSERT VALUES, TAGS, SET TAG) and the `USING ... TAGS` clause of child tables. */
/** INSERT-parser error: 534 `syntax error near '<up to 63 chars from tok>' (<reason>)` */
export function insertError(sql: string, start: number, reason: string): TdError {
  return new TdError(TD.TSC_SQL_SYNTAX_ERROR, `syntax error near '${sql.slice(start, start + 63)}' (${reason})`)
}

function parseDeltas(c: Cursor): TimeDelta[] | undefined {
  let deltas: TimeDelta[] | undefined
  while ((c.at('+') || c.at('-')) && c.peek(1).kind === 'duration') {
    const sign = c.next().value === '+' ? 1 : -1
    const d = splitDuration(c.next().value)
    ;(deltas ??= []).push({ sign, value: d.value, unit: d.unit })
  }
  return deltas
}

/** one literal value; `insert` selects the 534 error form for INSERT statements */
export function parseValue(c: Cursor, insert: boolean): ValueExpr {
  const t = c.peek()
  if (t.kind === 'keyword') {
    if (t.value === 'NULL') {
      c.next()
      return { kind: 'null', span: span(t, t) }
    }
    if (t.value === 'TRUE' || t.value === 'FALSE') {
      c.next()
      return { kind: 'bool', value: t.value === 'TRUE', span: span(t, t) }
    }
  } else if (t.kind === 'number') {
    c.next()
    return withDeltas(c, { kind: 'number', text: t.value, span: span(t, t) })
  } else if (t.kind === 'string') {
    c.next()
    return withDeltas(c, { kind: 'string', value: t.value, span: span(t, t) })
  } else if (t.kind === 'op' && (t.value === '-' || t.value === '+') && c.peek(1).kind === 'number') {
    c.next()
    const n = c.next()
    return withDeltas(c, { kind: 'number', text: t.value === '-' ? '-' + n.value : n.value, span: span(t, n) })
  } else if (t.kind === 'ident' && (t.value === 'now' || t.value === 'today')) {
    c.next()
    if (c.accept('(')) {
      c.expect(')')
    } else if (t.value === 'today') {
      throw insert ? insertError(c.sql, t.start, 'invalid data or symbol') : c.error(t)
    }
    return withDeltas(c, { kind: t.value, span: span(t, prev(c)) })
  }
  throw insert ? insertError(c.sql, t.start, 'invalid data or symbol') : c.error(t)
}

function withDeltas<T extends ValueExpr>(c: Cursor, v: T): T {
  if (v.kind === 'null' || v.kind === 'bool') {
    return v
  }
  const deltas = parseDeltas(c)
  if (deltas !== undefined) {
    ;(v as { deltas?: TimeDelta[] }).deltas = deltas
    v.span = { start: v.span.start, end: prev(c).end }
  }
  return v
}

/** `USING st [(tag, ...)] TAGS (v, ...)` */
export function parseUsing(c: Cursor, insert = false): ChildUsing {
  c.expectKeyword('USING')
  const stable = parseTableRef(c)
  let tagNames: string[] | undefined
  if (c.accept('(')) {
    tagNames = [c.expectIdent().name]
    while (c.accept(',')) {
      tagNames.push(c.expectIdent().name)
    }
    c.expect(')')
  }
  c.expectKeyword('TAGS')
  c.expect('(')
  const tagValues = [parseValue(c, insert)]
  while (c.accept(',')) {
    tagValues.push(parseValue(c, insert))
  }
  c.expect(')')
  return tagNames === undefined ? { stable, tagValues } : { stable, tagNames, tagValues }
}
