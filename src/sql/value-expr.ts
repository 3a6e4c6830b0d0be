/** Literal values as the parsers build them, with their source spans (INSERT VALUES, TAGS, SET TAG). */

/** source offsets [start, end), for TDengine's `syntax error near '...'` texts */
export interface Span {
  start: number
  end: number
}

/** `+ 1s` / `- 5m` applied to a time value */
export interface TimeDelta {
  sign: 1 | -1
  value: number
  unit: string
}

/**
 * A value in INSERT VALUES, TAGS (...) and SET TAG. Numbers keep their text (sign folded in) so
 * BIGINT and unsigned values convert exactly. `now`/`today` may carry `+/- duration` deltas, and
 * so may strings and numbers meant as timestamps (`'2022-01-01' + 1d`).
 */
export type ValueExpr =
  | { kind: 'null'; span: Span }
  | { kind: 'bool'; value: boolean; span: Span }
  | { kind: 'number'; text: string; span: Span; deltas?: TimeDelta[] }
  | { kind: 'string'; value: string; span: Span; deltas?: TimeDelta[] }
  | { kind: 'now'; span: Span; deltas?: TimeDelta[] }
  | { kind: 'today'; span: Span; deltas?: TimeDelta[] }
