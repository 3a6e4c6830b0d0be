/**
 * @module
 * Remote-read regex matchers in RE2 syntax, as Prometheus compiles them (Go's regexp, anchored:
 * `^(?:re)$`), through re2js, a port of RE2 to JavaScript. JavaScript's RegExp reads the same
 * text differently (`(?i)`, `\z`, `[[:alpha:]]`, `\Q..\E` are errors or mean something else,
 * `.` and `\s` match other characters), and it backtracks: a matcher such as `(a+)+b`, sent by
 * any Grafana user, would hold the event loop for minutes. RE2 matches in linear time.
 */
import { RE2JS } from 're2js'

/** A pattern RE2 rejects; the message is RE2's. */
export class Re2SyntaxError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'Re2SyntaxError'
  }
}

export interface AnchoredRe2 {
  /** true when the whole of `input` matches */
  test(input: string): boolean
}

export function compileRe2Anchored(pattern: string): AnchoredRe2 {
  let re: RE2JS
  try {
    // the pattern alone first: wrapped, `a)|(b` would compile as `(?:a)|(b)` and lose the anchors
    re = RE2JS.compile(pattern)
  } catch (err) {
    throw new Re2SyntaxError(err instanceof Error ? err.message : String(err), { cause: err })
  }
  return { test: (input) => re.matches(input) }
}
