import type { ValueExpr } from './ast.js'
import { TD, TdError } from '../td-error.js'

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
export const DURATION_UNITS = 'buasmhdwny'

const OPERATORS2 = ['!=', '<>', '<=', '>=', '||', '<<', '>>', '->']
const OPERATORS1 = '=<>+-*/%&|~'
const PUNCT = '(),.;'
// interned one-character strings, indexed by char code (no allocation per punctuation token)
const PUNCT_BY_CODE: (string | undefined)[] = []
for (const p of PUNCT) {
  PUNCT_BY_CODE[p.charCodeAt(0)] = p
}

// character classes by UTF-16 code (charCodeAt avoids a string per character on hot paths)
function isIdentStartCode(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c > 127
}

function isDigitCode(c: number): boolean {
  return c >= 48 && c <= 57
}

function isIdentPartCode(c: number): boolean {
  return isIdentStartCode(c) || isDigitCode(c) || c === 36
}

function isHexCode(c: number): boolean {
  return isDigitCode(c) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70)
}

function isSpaceCode(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13)
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

// plain functions, not closures: closures per literal cost measurable time on 10,000-row INSERTs
function codeAt(sql: string, k: number): number {
  return k < sql.length ? sql.charCodeAt(k) : 0
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

/**
 * Tuples of plain literals after INSERT ... VALUES, as the lexer found them: where each value
 * starts and ends, nothing else. Values are read from the text only when the INSERT knows the
 * column types (insert.ts reads plain numbers straight into numbers); `toValueExprs` builds what
 * parseValue would have built, for every other use.
 */
export class PlainTuples {
  constructor(
    readonly sql: string,
    /** start and end offset of every value, tuple after tuple */
    readonly starts: number[],
    readonly ends: number[],
    /** index into starts of each tuple's first value, plus one past the last */
    readonly tupleStarts: number[],
  ) {}

  get count(): number {
    return this.tupleStarts.length - 1
  }

  toValueExprs(): ValueExpr[][] {
    const rows: ValueExpr[][] = new Array<ValueExpr[]>(this.count)
    for (let r = 0; r < rows.length; r++) {
      const row: ValueExpr[] = []
      for (let k = this.tupleStarts[r]; k < this.tupleStarts[r + 1]; k++) {
        row.push(plainValueExpr(this.sql, this.starts[k], this.ends[k]))
      }
      rows[r] = row
    }
    return rows
  }
}

/**
 * The fast path of 10,000-row INSERTs: finds the tuples after VALUES straight in the text,
 * without a token (or any object) per value and per comma (tokens were most of the INSERT's CPU
 * and garbage). Only plain literals qualify: decimal numbers with an adjacent sign, quoted
 * strings, NULL, TRUE, FALSE and a bare NOW, each followed by `,` or `)`; the scan stops before
 * the first tuple that holds anything else, and ordinary lexing (and its errors) takes over from
 * there. Returns undefined when not even the first tuple qualifies.
 */
function scanPlainTuples(sql: string, from: number): { tuples: PlainTuples; end: number } | undefined {
  const starts: number[] = []
  const ends: number[] = []
  const tupleStarts: number[] = [0]
  let i = skipSpaces(sql, from)
  let end = from
  const done = (): { tuples: PlainTuples; end: number } | undefined => {
    if (tupleStarts.length === 1) {
      return undefined
    }
    const n = tupleStarts[tupleStarts.length - 1]
    starts.length = n
    ends.length = n
    return { tuples: new PlainTuples(sql, starts, ends, tupleStarts), end }
  }
  while (codeAt(sql, i) === 40 /* ( */) {
    let j = i + 1
    for (;;) {
      j = skipSpaces(sql, j)
      const valueEnd = unsignedDecimalEnd(sql, j) ?? plainValueEnd(sql, j)
      if (valueEnd < 0) {
        return done()
      }
      starts.push(j)
      ends.push(valueEnd)
      j = skipSpaces(sql, valueEnd)
      const sep = codeAt(sql, j)
      if (sep === 44 /* , */) {
        j++
        continue
      }
      if (sep === 41 /* ) */) {
        j++
        break
      }
      return done()
    }
    tupleStarts.push(starts.length)
    // tuples may be separated by a comma (the parser accepts one after each tuple)
    end = j
    i = skipSpaces(sql, j)
    if (codeAt(sql, i) === 44 /* , */) {
      end = i + 1
      i = skipSpaces(sql, i + 1)
    }
  }
  return done()
}

function skipSpaces(sql: string, i: number): number {
  while (i < sql.length && isSpaceCode(sql.charCodeAt(i))) {
    i++
  }
  return i
}

/**
 * The common literal of bulk inserts, read in one tight loop: digits with at most one inner
 * `.`, directly followed by `,` `)` or a space. Undefined for anything else, which
 * plainValueEnd then reads (it accepts all of these too, with the same end).
 */
function unsignedDecimalEnd(sql: string, i: number): number | undefined {
  const n = sql.length
  let j = i
  let dot = false
  for (; j < n; j++) {
    const c = sql.charCodeAt(j)
    if (c >= 48 && c <= 57) {
      continue
    }
    if (c === 46 /* . */ && !dot && j > i && j + 1 < n && isDigitCode(sql.charCodeAt(j + 1))) {
      dot = true
      continue
    }
    break
  }
  if (j === i || j >= n) {
    return undefined
  }
  const after = sql.charCodeAt(j)
  return after === 44 /* , */ || after === 41 /* ) */ || after === 32 ? j : undefined
}

/** End of the plain literal at `i` (see scanPlainTuples), or -1 when it is not plain. */
function plainValueEnd(sql: string, i: number): number {
  const code = codeAt(sql, i)
  if (code === 39 /* ' */ || code === 34 /* " */) {
    const j = closingQuote(sql, i)
    return j < 0 ? -1 : j + 1
  }
  if (code === 45 /* - */ || code === 43 /* + */) {
    return plainNumberEnd(sql, i + 1)
  }
  if (isDigitCode(code) || (code === 46 /* . */ && isDigitCode(codeAt(sql, i + 1)))) {
    return plainNumberEnd(sql, i)
  }
  if (isIdentStartCode(code)) {
    let j = i + 1
    while (j < sql.length && isIdentPartCode(sql.charCodeAt(j))) {
      j++
    }
    if (j - i > 5) {
      return -1
    }
    switch (sql.slice(i, j).toUpperCase()) {
      case 'NULL':
      case 'TRUE':
      case 'FALSE':
        return j
      case 'NOW': {
        // NOW() and NOW + 1s take the ordinary path
        const next = codeAt(sql, skipSpaces(sql, j))
        return next === 44 /* , */ || next === 41 /* ) */ ? j : -1
      }
    }
  }
  return -1
}

/** The plain literal at [start, end) (plainValueEnd said so) as parseValue builds it. */
export function plainValueExpr(sql: string, start: number, end: number): ValueExpr {
  const code = sql.charCodeAt(start)
  const span = { start, end }
  if (code === 39 /* ' */ || code === 34 /* " */) {
    return { kind: 'string', value: unescape(sql.slice(start + 1, end - 1), code === 39 ? "'" : '"'), span }
  }
  if (code === 45 /* - */) {
    return { kind: 'number', text: '-' + numberText(sql, start + 1, end), span }
  }
  if (code === 43 /* + */) {
    return { kind: 'number', text: numberText(sql, start + 1, end), span }
  }
  if (isDigitCode(code) || code === 46 /* . */) {
    return { kind: 'number', text: numberText(sql, start, end), span }
  }
  switch (sql.slice(start, end).toUpperCase()) {
    case 'NULL':
      return { kind: 'null', span }
    case 'TRUE':
      return { kind: 'bool', value: true, span }
    case 'FALSE':
      return { kind: 'bool', value: false, span }
    default:
      return { kind: 'now', span }
  }
}

/**
 * End of the decimal literal at `i` as readNumber reads it (digits, fraction, exponent), or -1
 * for anything readNumber treats otherwise: hex, durations, a letter or digit run-on.
 */
function plainNumberEnd(sql: string, i: number): number {
  let j = i
  if (!isDigitCode(codeAt(sql, j)) && !(codeAt(sql, j) === 46 && isDigitCode(codeAt(sql, j + 1)))) {
    return -1
  }
  if (codeAt(sql, j) === 48 /* 0 */ && (codeAt(sql, j + 1) | 32) === 120 /* x */) {
    return -1
  }
  while (isDigitCode(codeAt(sql, j))) {
    j++
  }
  if (codeAt(sql, j) === 46 /* . */) {
    if (isDigitCode(codeAt(sql, j + 1))) {
      j++
      while (isDigitCode(codeAt(sql, j))) {
        j++
      }
    } else if (!isIdentStartCode(codeAt(sql, j + 1))) {
      j++
    } else {
      return -1
    }
  }
  const e = codeAt(sql, j)
  if ((e === 101 || e === 69) /* e E */ && (isDigitCode(codeAt(sql, j + 1)) || ((codeAt(sql, j + 1) === 43 || codeAt(sql, j + 1) === 45) && isDigitCode(codeAt(sql, j + 2))))) {
    j += 2
    while (isDigitCode(codeAt(sql, j))) {
      j++
    }
  }
  const after = codeAt(sql, j)
  if (isIdentPartCode(after) || after === 46 /* . */) {
    return -1
  }
  return j
}

/** The number token's value: lower-cased when it has an upper-case exponent (as pushNumber does). */
function numberText(sql: string, start: number, end: number): string {
  const raw = sql.slice(start, end)
  return raw.includes('E') ? raw.toLowerCase() : raw
}

/**
 * Index of the quote closing the string literal that opens at `i`, or -1 when it is not closed:
 * a backslash escapes the next character, a doubled quote is one quote.
 */
function closingQuote(sql: string, i: number): number {
  const quote = sql.charCodeAt(i)
  let j = i + 1
  for (;;) {
    if (j >= sql.length) {
      return -1
    }
    const c = sql.charCodeAt(j)
    if (c === 92 /* \ */) {
      j += 2
      continue
    }
    if (c === quote) {
      if (sql.charCodeAt(j + 1) === quote) {
        j += 2
        continue
      }
      return j
    }
    j++
  }
}

/** Splits a duration token value (`10m`, `0.5s`) into its number and unit letter. */
export function splitDuration(value: string): { value: number; unit: string } {
  return { value: Number(value.slice(0, -1)), unit: value.slice(-1).toLowerCase() }
}
