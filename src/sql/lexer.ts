import { TD, TdError } from './errors.js'

/**
 * Hand-written lexer for the TDengine dialect (sql-dialect.md sections 1.2, 1.3, 7).
 *
 * Token values are normalised so the parsers never re-case anything:
 *  - `keyword`: reserved words, value upper-cased;
 *  - `ident`: unquoted identifiers, value lower-cased (TDengine folds them);
 *  - `quotedIdent`: back-quoted identifiers, value exact (without the backticks);
 *  - `string`: '..' or ".." literals, value unescaped;
 *  - `number`: value = the literal text (decimal, exponent or hex), lower-cased;
 *  - `duration`: an integer or decimal followed by a unit letter (`1s`, `500a`, `0.5s`), lower-cased;
 *  - `op` / `punct`: the operator or punctuation text; `eof` terminates every stream.
 * `raw` is the exact source slice, `start`/`end` its offsets (end exclusive).
 */
export type TokenKind =
  | 'ident'
  | 'quotedIdent'
  | 'keyword'
  | 'number'
  | 'string'
  | 'duration'
  | 'op'
  | 'punct'
  | 'eof'

export interface Token {
  kind: TokenKind
  value: string
  raw: string
  start: number
  end: number
}

/**
 * Reserved words: only the words that start or separate clauses, so that a following identifier
 * could not be told apart from them (`FROM t WHERE`, `FROM t INTERVAL(1m)`, `a AS b`, `x IS NULL`).
 * Everything else (`value`, `status`, `tags`, `using`, `now`, type names, database options ...) is
 * lexed as an identifier and matched as a *soft keyword* by `Cursor.atKeyword`, which keeps common
 * column names usable without backticks (a superset of what TDengine accepts).
 */
export const RESERVED_KEYWORDS: ReadonlySet<string> = new Set([
  'ALL',
  'AND',
  'AS',
  'ASC',
  'BETWEEN',
  'BY',
  'CASE',
  'CONTAINS',
  'COUNT_WINDOW',
  'DESC',
  'DISTINCT',
  'ELSE',
  'END',
  'EVENT_WINDOW',
  'EVERY',
  'FALSE',
  'FILL',
  'FROM',
  'FULL',
  'GROUP',
  'HAVING',
  'IN',
  'INNER',
  'INTERVAL',
  'INTO',
  'IS',
  'JOIN',
  'LEFT',
  'LIKE',
  'LIMIT',
  'MATCH',
  'NMATCH',
  'NOT',
  'NULL',
  'NULLS',
  'OFFSET',
  'ON',
  'OR',
  'ORDER',
  'OUTER',
  'PARTITION',
  'RANGE',
  'RIGHT',
  'SELECT',
  'SESSION',
  'SLIDING',
  'SLIMIT',
  'SOFFSET',
  'STATE_WINDOW',
  'THEN',
  'TRUE',
  'UNION',
  'WHEN',
  'WHERE',
])

/** Unit letters of duration literals: b ns, u us, a ms, s, m, h, d, w, n month, y year. */
export const DURATION_UNITS = 'buasmhdwny'

const OPERATORS2 = ['!=', '<>', '<=', '>=', '||', '<<', '>>', '->']
const OPERATORS1 = '=<>+-*/%&|~'
const PUNCT = '(),.;'

function isIdentStart(ch: string): boolean {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch === '_' || ch.charCodeAt(0) > 127
}

function isIdentPart(ch: string): boolean {
  return isIdentStart(ch) || isDigit(ch) || ch === '$'
}

function isDigit(ch: string): boolean {
  return ch >= '0' && ch <= '9'
}

function isSpace(ch: string): boolean {
  return ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r' || ch === '\f' || ch === '\v'
}

/** The `syntax error near "..."` text TDengine prints: the rest of the SQL from `pos`, trimmed. */
export function nearText(sql: string, pos: number): string {
  const rest = sql.slice(pos).trim()
  return rest.length > 64 ? rest.slice(0, 64) : rest
}

function lexError(sql: string, pos: number): TdError {
  return new TdError(TD.PAR_SYNTAX_ERROR, `syntax error near "${nearText(sql, pos)}"`)
}

/** Unescapes a string body: \' \" \\ \n \r \t \0; `\%` and `\_` stay as written for LIKE. */
function unescape(body: string, quote: string): string {
  if (!body.includes('\\') && !body.includes(quote + quote)) {
    return body
  }
  let out = ''
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]
    if (ch === '\\' && i + 1 < body.length) {
      const nx = body[++i]
      switch (nx) {
        case 'n':
          out += '\n'
          break
        case 'r':
          out += '\r'
          break
        case 't':
          out += '\t'
          break
        case '0':
          out += '\0'
          break
        case '%':
        case '_':
          out += '\\' + nx
          break
        default:
          out += nx
      }
    } else if (ch === quote && body[i + 1] === quote) {
      out += quote
      i++
    } else {
      out += ch
    }
  }
  return out
}

/** Splits SQL text into tokens; throws TdError 9728 on characters or literals it cannot read. */
export function tokenize(sql: string): Token[] {
  const tokens: Token[] = []
  const n = sql.length
  let i = 0
  while (i < n) {
    const ch = sql[i]
    if (isSpace(ch)) {
      i++
      continue
    }
    // comments, including `/*+ hints */`, are whitespace
    if (ch === '-' && sql[i + 1] === '-') {
      const nl = sql.indexOf('\n', i)
      i = nl < 0 ? n : nl + 1
      continue
    }
    if (ch === '/' && sql[i + 1] === '*') {
      const close = sql.indexOf('*/', i + 2)
      if (close < 0) {
        throw lexError(sql, i)
      }
      i = close + 2
      continue
    }
    const start = i
    if (ch === "'" || ch === '"') {
      // find the closing quote; a backslash escapes the next char, a doubled quote is one quote
      let j = i + 1
      for (;;) {
        if (j >= n) {
          throw lexError(sql, start)
        }
        const c = sql[j]
        if (c === '\\') {
          j += 2
          continue
        }
        if (c === ch) {
          if (sql[j + 1] === ch) {
            j += 2
            continue
          }
          break
        }
        j++
      }
      const raw = sql.slice(start, j + 1)
      tokens.push({ kind: 'string', value: unescape(sql.slice(start + 1, j), ch), raw, start, end: j + 1 })
      i = j + 1
      continue
    }
    if (ch === '`') {
      const close = sql.indexOf('`', i + 1)
      if (close < 0) {
        throw lexError(sql, start)
      }
      const raw = sql.slice(start, close + 1)
      tokens.push({ kind: 'quotedIdent', value: sql.slice(start + 1, close), raw, start, end: close + 1 })
      i = close + 1
      continue
    }
    if (isDigit(ch) || (ch === '.' && isDigit(sql[i + 1] ?? ''))) {
      i = readNumber(sql, i, tokens)
      continue
    }
    if (isIdentStart(ch)) {
      let j = i + 1
      while (j < n && isIdentPart(sql[j])) {
        j++
      }
      const raw = sql.slice(start, j)
      const upper = raw.toUpperCase()
      if (RESERVED_KEYWORDS.has(upper)) {
        tokens.push({ kind: 'keyword', value: upper, raw, start, end: j })
      } else {
        tokens.push({ kind: 'ident', value: raw.toLowerCase(), raw, start, end: j })
      }
      i = j
      continue
    }
    const two = sql.slice(i, i + 2)
    if (OPERATORS2.includes(two)) {
      tokens.push({ kind: 'op', value: two, raw: two, start, end: i + 2 })
      i += 2
      continue
    }
    if (OPERATORS1.includes(ch)) {
      tokens.push({ kind: 'op', value: ch, raw: ch, start, end: i + 1 })
      i++
      continue
    }
    if (PUNCT.includes(ch)) {
      tokens.push({ kind: 'punct', value: ch, raw: ch, start, end: i + 1 })
      i++
      continue
    }
    throw lexError(sql, i)
  }
  tokens.push({ kind: 'eof', value: '', raw: '', start: n, end: n })
  return tokens
}

function readNumber(sql: string, i: number, tokens: Token[]): number {
  const start = i
  const n = sql.length
  let j = i
  if (sql[j] === '0' && (sql[j + 1] === 'x' || sql[j + 1] === 'X') && /[0-9a-fA-F]/.test(sql[j + 2] ?? '')) {
    j += 2
    while (j < n && /[0-9a-fA-F]/.test(sql[j])) {
      j++
    }
    if (j < n && isIdentPart(sql[j])) {
      throw lexError(sql, start)
    }
    const raw = sql.slice(start, j)
    tokens.push({ kind: 'number', value: raw.toLowerCase(), raw, start, end: j })
    return j
  }
  while (j < n && isDigit(sql[j])) {
    j++
  }
  if (sql[j] === '.' && isDigit(sql[j + 1] ?? '')) {
    j++
    while (j < n && isDigit(sql[j])) {
      j++
    }
  } else if (sql[j] === '.' && !isIdentStart(sql[j + 1] ?? '')) {
    // `1.` is a valid DOUBLE literal; `1.x` is not a number followed by `.x`
    j++
  }
  if ((sql[j] === 'e' || sql[j] === 'E') && (isDigit(sql[j + 1] ?? '') || ((sql[j + 1] === '+' || sql[j + 1] === '-') && isDigit(sql[j + 2] ?? '')))) {
    j += 2
    while (j < n && isDigit(sql[j])) {
      j++
    }
    if (j < n && isIdentPart(sql[j])) {
      throw lexError(sql, start)
    }
    const raw = sql.slice(start, j)
    tokens.push({ kind: 'number', value: raw.toLowerCase(), raw, start, end: j })
    return j
  }
  const unit = sql[j]
  if (unit !== undefined && DURATION_UNITS.includes(unit.toLowerCase()) && !isIdentPart(sql[j + 1] ?? '')) {
    const raw = sql.slice(start, j + 1)
    tokens.push({ kind: 'duration', value: raw.toLowerCase(), raw, start, end: j + 1 })
    return j + 1
  }
  if (j < n && isIdentPart(sql[j])) {
    throw lexError(sql, start)
  }
  const raw = sql.slice(start, j)
  tokens.push({ kind: 'number', value: raw.toLowerCase(), raw, start, end: j })
  return j
}

/** Splits a duration token value (`10m`, `0.5s`) into its number and unit letter. */
export function splitDuration(value: string): { value: number; unit: string } {
  return { value: Number(value.slice(0, -1)), unit: value.slice(-1).toLowerCase() }
}
