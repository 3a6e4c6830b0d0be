import { closingQuote, codeAt, isDigitCode, isIdentPartCode, isIdentStartCode, isSpaceCode, unescape } from './sql-chars.js'
import type { ValueExpr } from './value-expr.js'

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
export function scanPlainTuples(sql: string, from: number): { tuples: PlainTuples; end: number } | undefined {
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
