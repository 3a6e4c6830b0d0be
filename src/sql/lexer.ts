import { TD, TdError } from '../td-error.js'
import { scanPlainTuples, type PlainTuples } from './plain-tuples.js'
import { closingQuote, codeAt, isDigitCode, isHexCode, isIdentPartCode, isIdentStartCode, isSpaceCode, unescape } from './sql-chars.js'

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
type TokenKind =
  | 'ident'
  | 'quotedIdent'
  | 'keyword'
  | 'number'
  | 'string'
  | 'duration'
  | 'op'
  | 'punct'
  | 'eof'
  /** INSERT ... VALUES tuples of plain literals, read without a token per value (see scanPlainTuples) */
  | 'rows'

export interface Token {
  kind: TokenKind
  value: string
  raw: string
  start: number
  end: number
  /** kind 'rows' only: where the tuples' values are */
  tuples?: PlainTuples
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
const DURATION_UNITS = 'buasmhdwny'

const OPERATORS2 = ['!=', '<>', '<=', '>=', '||', '<<', '>>', '->']
const OPERATORS1 = '=<>+-*/%&|~'
const PUNCT = '(),.;'
// interned one-character strings, indexed by char code (no allocation per punctuation token)
const PUNCT_BY_CODE: (string | undefined)[] = []
for (const p of PUNCT) {
  PUNCT_BY_CODE[p.charCodeAt(0)] = p
}

/** The `syntax error near "..."` text TDengine prints: the rest of the SQL from `pos`, trimmed. */
export function nearText(sql: string, pos: number): string {
  const rest = sql.slice(pos).trim()
  return rest.length > 64 ? rest.slice(0, 64) : rest
}

function lexError(sql: string, pos: number): TdError {
  return new TdError(TD.PAR_SYNTAX_ERROR, `syntax error near "${nearText(sql, pos)}"`)
}

/**
 * Splits SQL text into tokens; throws TdError 9728 on characters or literals it cannot read.
 * `fastValues: false` turns the INSERT VALUES fast path off (tests compare the two).
 */
export function tokenize(sql: string, fastValues = true): Token[] {
  const tokens: Token[] = []
  const n = sql.length
  let i = 0
  while (i < n) {
    const code = sql.charCodeAt(i)
    if (isSpaceCode(code)) {
      i++
      continue
    }
    const next = i + 1 < n ? sql.charCodeAt(i + 1) : 0
    // comments, including `/*+ hints */`, are whitespace
    if (code === 45 /* - */ && next === 45) {
      const nl = sql.indexOf('\n', i)
      i = nl < 0 ? n : nl + 1
      continue
    }
    if (code === 47 /* / */ && next === 42 /* * */) {
      const close = sql.indexOf('*/', i + 2)
      if (close < 0) {
        throw lexError(sql, i)
      }
      i = close + 2
      continue
    }
    const start = i
    if (code === 39 /* ' */ || code === 34 /* " */) {
      const j = closingQuote(sql, i)
      if (j < 0) {
        throw lexError(sql, start)
      }
      const raw = sql.slice(start, j + 1)
      const q = code === 39 ? "'" : '"'
      tokens.push({ kind: 'string', value: unescape(raw.slice(1, -1), q), raw, start, end: j + 1 })
      i = j + 1
      continue
    }
    if (code === 96 /* ` */) {
      const close = sql.indexOf('`', i + 1)
      if (close < 0) {
        throw lexError(sql, start)
      }
      const raw = sql.slice(start, close + 1)
      tokens.push({ kind: 'quotedIdent', value: sql.slice(start + 1, close), raw, start, end: close + 1 })
      i = close + 1
      continue
    }
    if (isDigitCode(code) || (code === 46 /* . */ && isDigitCode(next))) {
      i = readNumber(sql, i, tokens)
      continue
    }
    if (isIdentStartCode(code)) {
      let j = i + 1
      while (j < n && isIdentPartCode(sql.charCodeAt(j))) {
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
      if (fastValues && upper === 'VALUES' && tokens[0].kind === 'ident' && tokens[0].value === 'insert') {
        const scanned = scanPlainTuples(sql, i)
        if (scanned !== undefined) {
          tokens.push({ kind: 'rows', value: '', raw: '', start: i, end: scanned.end, tuples: scanned.tuples })
          i = scanned.end
        }
      }
      continue
    }
    const punct = PUNCT_BY_CODE[code]
    if (punct !== undefined) {
      tokens.push({ kind: 'punct', value: punct, raw: punct, start, end: i + 1 })
      i++
      continue
    }
    const ch = sql[i]
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
    throw lexError(sql, i)
  }
  tokens.push({ kind: 'eof', value: '', raw: '', start: n, end: n })
  return tokens
}

function pushNumber(sql: string, tokens: Token[], kind: 'number' | 'duration', start: number, end: number): number {
  const raw = sql.slice(start, end)
  tokens.push({ kind, value: kind === 'number' && !/[A-Z]/.test(raw) ? raw : raw.toLowerCase(), raw, start, end })
  return end
}

function readNumber(sql: string, i: number, tokens: Token[]): number {
  const start = i
  const n = sql.length
  let j = i
  if (codeAt(sql, j) === 48 /* 0 */ && (codeAt(sql, j + 1) === 120 || codeAt(sql, j + 1) === 88) /* x X */ && isHexCode(codeAt(sql, j + 2))) {
    j += 2
    while (j < n && isHexCode(codeAt(sql, j))) {
      j++
    }
    if (isIdentPartCode(codeAt(sql, j))) {
      throw lexError(sql, start)
    }
    return pushNumber(sql, tokens, 'number', start, j)
  }
  while (isDigitCode(codeAt(sql, j))) {
    j++
  }
  if (codeAt(sql, j) === 46 /* . */ && isDigitCode(codeAt(sql, j + 1))) {
    j++
    while (isDigitCode(codeAt(sql, j))) {
      j++
    }
  } else if (codeAt(sql, j) === 46 && !isIdentStartCode(codeAt(sql, j + 1))) {
    // `1.` is a valid DOUBLE literal; `1.x` is not a number followed by `.x`
    j++
  }
  const e = codeAt(sql, j)
  if ((e === 101 || e === 69) /* e E */ && (isDigitCode(codeAt(sql, j + 1)) || ((codeAt(sql, j + 1) === 43 || codeAt(sql, j + 1) === 45) && isDigitCode(codeAt(sql, j + 2))))) {
    j += 2
    while (isDigitCode(codeAt(sql, j))) {
      j++
    }
    if (isIdentPartCode(codeAt(sql, j))) {
      throw lexError(sql, start)
    }
    return pushNumber(sql, tokens, 'number', start, j)
  }
  const unit = codeAt(sql, j)
  if (unit !== 0 && isIdentStartCode(unit)) {
    if (DURATION_UNITS.includes(String.fromCharCode(unit).toLowerCase()) && !isIdentPartCode(codeAt(sql, j + 1))) {
      return pushNumber(sql, tokens, 'duration', start, j + 1)
    }
    throw lexError(sql, start)
  }
  if (isDigitCode(unit) || unit === 36) {
    throw lexError(sql, start)
  }
  return pushNumber(sql, tokens, 'number', start, j)
}

/** Splits a duration token value (`10m`, `0.5s`) into its number and unit letter. */
export function splitDuration(value: string): { value: number; unit: string } {
  return { value: Number(value.slice(0, -1)), unit: value.slice(-1).toLowerCase() }
}
