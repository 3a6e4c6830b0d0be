import type { Statement } from './ast.js'
import { Cursor } from './cursor.js'
import { tokenize } from './lexer.js'
import { expectString, parseTableRef } from './parse-common.js'
import { parseAlter, parseCreate, parseDrop } from './parse-ddl.js'
import { parseGrant } from './parse-grant.js'
import { parseInsert } from './parse-insert.js'
import { parseShow } from './parse-show.js'
import { parseSelect, parseUnionTail } from './select/parse-select.js'
import { parseExpr } from './select/expr.js'

/**
 * Recursive-descent parser for one TDengine statement (sql-dialect.md sections 2-4, 7). SELECT is
 * delegated to src/sql/select. A single trailing `;` is tolerated; anything after it is 9728.
 * Syntax errors: 9728 `syntax error near "<rest of the SQL>"`, 9729 at end of input, and for
 * INSERT TDengine's insert-parser form 534 `syntax error near '<text>' (<reason>)`.
 */
export function parseStatement(sql: string, opts: { fastValues?: boolean } = {}): Statement {
  const c = new Cursor(sql, tokenize(sql, opts.fastValues ?? true))
  const stmt = parseOne(c)
  c.accept(';')
  if (!c.atEnd()) {
    throw c.error()
  }
  return stmt
}

function parseOne(c: Cursor): Statement {
  if (c.atKeyword('SELECT') || c.at('(')) {
    return { type: 'select', select: parseParenSelect(c) }
  }
  const t = c.peek()
  if (c.acceptKeyword('CREATE')) {
    return parseCreate(c)
  }
  if (c.acceptKeyword('DROP')) {
    return parseDrop(c)
  }
  if (c.acceptKeyword('ALTER')) {
    return parseAlter(c)
  }
  if (c.acceptKeyword('USE')) {
    return { type: 'useDatabase', name: c.expectIdent().name }
  }
  if (c.atKeyword('FLUSH', 'COMPACT', 'TRIM')) {
    const op = c.next().value.toLowerCase() as 'flush' | 'compact' | 'trim'
    c.expectKeyword('DATABASE')
    return { type: 'databaseMaintenance', op, name: c.expectIdent().name }
  }
  if (c.acceptKeyword('SHOW')) {
    return { type: 'show', show: parseShow(c) }
  }
  if (c.acceptKeyword('DESCRIBE', 'DESC')) {
    return { type: 'describe', table: parseTableRef(c) }
  }
  if (c.acceptKeyword('INSERT')) {
    return parseInsert(c)
  }
  if (c.acceptKeyword('DELETE')) {
    c.expectKeyword('FROM')
    const table = parseTableRef(c)
    return c.acceptKeyword('WHERE') ? { type: 'delete', table, where: parseExpr(c) } : { type: 'delete', table }
  }
  if (c.acceptKeyword('KILL')) {
    c.expectKeyword('QUERY')
    return { type: 'killQuery', id: expectString(c) }
  }
  if (c.acceptKeyword('GRANT')) {
    return parseGrant(c, 'grant')
  }
  if (c.acceptKeyword('REVOKE')) {
    return parseGrant(c, 'revoke')
  }
  throw c.error(t)
}

/** `SELECT ...` or `(SELECT ...)`, any depth of wrapping parentheses */
function parseParenSelect(c: Cursor): ReturnType<typeof parseSelect> {
  if (c.accept('(')) {
    c.enter()
    const inner = parseParenSelect(c)
    c.expect(')')
    c.leave()
    // `(SELECT ...) UNION [ALL] ...`
    return inner.setOps === undefined ? parseUnionTail(c, inner) : inner
  }
  return parseSelect(c)
}
