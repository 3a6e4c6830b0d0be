import { TD, TdError } from '../td-error.js'
import { nearText, type Token } from './lexer.js'
import { MAX_SQL_NESTING } from './sql-limits.js'

/**
 * A position in a token stream with the helpers every recursive-descent parser here uses.
 *
 * Keywords: `atKeyword('TAGS')` matches a reserved `keyword` token AND an unquoted `ident` whose
 * upper-cased text equals the word (a *soft keyword*, see lexer RESERVED_KEYWORDS). Back-quoted
 * identifiers never match a keyword. Pass keywords in upper case.
 *
 * Errors: `error(tok)` builds TDengine's parser error: 9728 `syntax error near "<rest of the SQL
 * from tok, trimmed, at most 64 chars>"`; when the offending token is the end of input it is 9729
 * `Incomplete SQL statement`, as TDengine's grammar reports a syntax error on the end token.
 */
export class Cursor {
  readonly sql: string
  readonly tokens: Token[]
  pos = 0
  /** how many nested constructs (parentheses, calls, unary operators, subqueries) are open */
  nesting = 0
  /** the depth of the expression tree the expression parser built last (see select/expr.ts) */
  exprDepth = 0

  constructor(sql: string, tokens: Token[]) {
    this.sql = sql
    this.tokens = tokens
  }

  peek(offset = 0): Token {
    const i = Math.min(this.pos + offset, this.tokens.length - 1)
    return this.tokens[i]
  }

  next(): Token {
    const t = this.peek()
    if (t.kind !== 'eof') {
      this.pos++
    }
    return t
  }

  atEnd(): boolean {
    return this.peek().kind === 'eof'
  }

  /** true when the token at `offset` is one of the keywords (reserved or soft). */
  atKeywordAt(offset: number, ...kw: string[]): boolean {
    const t = this.peek(offset)
    if (t.kind === 'keyword') {
      return kw.includes(t.value)
    }
    if (t.kind === 'ident') {
      return kw.includes(t.value.toUpperCase())
    }
    return false
  }

  atKeyword(...kw: string[]): boolean {
    return this.atKeywordAt(0, ...kw)
  }

  acceptKeyword(...kw: string[]): boolean {
    if (this.atKeyword(...kw)) {
      this.pos++
      return true
    }
    return false
  }

  /** consumes a sequence of keywords (`IF NOT EXISTS`) or nothing */
  acceptKeywords(...seq: string[]): boolean {
    for (let i = 0; i < seq.length; i++) {
      if (!this.atKeywordAt(i, seq[i])) {
        return false
      }
    }
    this.pos += seq.length
    return true
  }

  expectKeyword(kw: string): Token {
    if (!this.atKeyword(kw)) {
      throw this.error()
    }
    return this.next()
  }

  /** true when the next token is the given operator or punctuation (`(`, `,`, `=`, `->` ...) */
  at(value: string): boolean {
    const t = this.peek()
    return (t.kind === 'op' || t.kind === 'punct') && t.value === value
  }

  accept(value: string): boolean {
    if (this.at(value)) {
      this.pos++
      return true
    }
    return false
  }

  expect(value: string): Token {
    if (!this.at(value)) {
      throw this.error()
    }
    return this.next()
  }

  /** true when the next token can be a name: an unquoted identifier or a back-quoted one */
  atIdent(): boolean {
    const k = this.peek().kind
    return k === 'ident' || k === 'quotedIdent'
  }

  /** a name (unquoted: lower-cased; back-quoted: exact). Reserved keywords are not names. */
  expectIdent(): { name: string; quoted: boolean; token: Token } {
    const t = this.peek()
    if (t.kind === 'ident' || t.kind === 'quotedIdent') {
      this.pos++
      return { name: t.value, quoted: t.kind === 'quotedIdent', token: t }
    }
    throw this.error(t)
  }

  /**
   * Opens one nested construct. Past MAX_SQL_NESTING it is a syntax error, so hostile input
   * (thousands of parentheses) gets an answer in milliseconds instead of overflowing the stack.
   */
  enter(): void {
    if (++this.nesting > MAX_SQL_NESTING) {
      throw this.tooDeep(`more than ${MAX_SQL_NESTING} nested levels`)
    }
  }

  leave(): void {
    this.nesting--
  }

  /** 9728 naming the limit, at the current token */
  tooDeep(what: string): TdError {
    return new TdError(TD.PAR_SYNTAX_ERROR, `syntax error near "${nearText(this.sql, this.peek().start)}" (expression too complex: ${what})`)
  }

  /** the syntax error for `tok` (default: the current token); see the class comment */
  error(tok: Token = this.peek()): TdError {
    if (tok.kind === 'eof') {
      return new TdError(TD.PAR_INCOMPLETE_SQL, 'Incomplete SQL statement')
    }
    return new TdError(TD.PAR_SYNTAX_ERROR, `syntax error near "${nearText(this.sql, tok.start)}"`)
  }

  /** source text between two tokens (inclusive), e.g. for default column names */
  textBetween(from: Token, to: Token): string {
    return this.sql.slice(from.start, to.end)
  }
}
