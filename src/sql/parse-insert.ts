import type { InsertTarget, Statement } from './ast.js'
import type { Cursor } from './cursor.js'
import { parseTableRef, span } from './parse-common.js'
import { insertError, parseUsing, parseValue } from './parse-values.js'
import type { Span, ValueExpr } from './value-expr.js'
import { parseSelect } from './select/parse-select.js'

/** INSERT INTO: targets with optional USING and column lists, then VALUES tuples. */

export function parseInsert(c: Cursor): Statement {
  c.expectKeyword('INTO')
  const targets: InsertTarget[] = []
  do {
    targets.push(parseInsertTarget(c))
  } while (c.atIdent() && targets[targets.length - 1].select === undefined)
  return { type: 'insert', targets }
}

/** All tuples of an INSERT target as parseValue builds them, the lexer's plain ones first. */
export function insertRows(target: InsertTarget): ValueExpr[][] {
  return target.plain === undefined ? target.rows : target.plain.toValueExprs().concat(target.rows)
}

function parseInsertTarget(c: Cursor): InsertTarget {
  const table = parseTableRef(c)
  const target: InsertTarget = { table, rows: [] }
  if (c.atKeyword('USING')) {
    target.using = parseUsing(c, true)
  }
  if (c.accept('(')) {
    const cols: { name: string; span: Span }[] = []
    do {
      const id = c.expectIdent()
      cols.push({ name: id.name, span: span(id.token, id.token) })
    } while (c.accept(','))
    c.expect(')')
    target.columns = cols
  }
  if (target.using === undefined && c.atKeyword('USING')) {
    target.using = parseUsing(c, true)
  }
  const kw = c.peek()
  if (c.atKeyword('SELECT') && target.using === undefined) {
    // INSERT INTO tb [(cols)] subquery: one target, the query runs to its end
    target.select = parseSelect(c)
    return target
  }
  if (c.atKeyword('SELECT') || c.atKeyword('FILE')) {
    throw insertError(c.sql, kw.start, kw.value.toUpperCase() === 'SELECT' ? 'INSERT ... USING ... SELECT is not supported' : 'INSERT ... FILE is not supported over REST')
  }
  if (!c.acceptKeyword('VALUES')) {
    throw insertError(c.sql, kw.start, 'keyword VALUES or FILE is expected')
  }
  if (!c.at('(') && c.peek().kind !== 'rows') {
    throw insertError(c.sql, c.peek().start, 'invalid data or symbol')
  }
  for (;;) {
    const t = c.peek()
    if (t.kind === 'rows') {
      // tuples the lexer already found (scanPlainTuples), only ever right after VALUES;
      // ordinary ones may follow
      c.next()
      target.plain = t.tuples
      continue
    }
    if (!c.accept('(')) {
      break
    }
    const row: ValueExpr[] = [parseValue(c, true)]
    while (c.accept(',')) {
      row.push(parseValue(c, true))
    }
    if (!c.accept(')')) {
      throw insertError(c.sql, c.peek().start, 'invalid data or symbol')
    }
    target.rows.push(row)
    c.accept(',')
  }
  return target
}
