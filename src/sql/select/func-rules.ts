/**
 * Where TDengine allows its multi-row and row-aligned functions, checked before planning:
 * multi-row selections (TOP, BOTTOM, SAMPLE, HISTOGRAM) and indefinite-row functions (CSUM, MAVG,
 * STATECOUNT, STATEDURATION, TAIL, UNIQUE) stand alone in the select list, never beside other
 * aggregates or inside another expression; the indefinite ones take no window and no GROUP BY.
 * PERCENTILE reads one table; TOP, BOTTOM, SAMPLE and HISTOGRAM take no FILL. Errors carry
 * TDengine's codes (9807, 9815, 9823).
 */
import { TD, TdError } from '../../td-error.js'
import type { Expr, SelectStmt } from './ast.js'
import { children } from './expr-walk.js'
import { isAggregateName } from './functions.js'
import type { Source } from './sources.js'

/** one or k rows per group, like an aggregate */
export const MULTI_ROWS = new Set(['top', 'bottom', 'sample', 'histogram'])
/** a row per input row (or a subset of them), never grouped */
export const INDEFINITE_ROWS = new Set(['csum', 'mavg', 'statecount', 'stateduration', 'tail', 'unique'])

const NOT_ALLOWED =
  'Some functions are allowed only in the SELECT list of a query. And, cannot be mixed with other non scalar functions or columns.'

function notAllowed(message = NOT_ALLOWED): TdError {
  return new TdError(TD.PAR_NOT_ALLOWED_FUNC, message)
}

function calls(e: Expr, out: (Expr & { kind: 'call' })[]): void {
  if (e.kind === 'call') {
    out.push(e)
  }
  children(e).forEach((c) => calls(c, out))
}

const special = (name: string): boolean => MULTI_ROWS.has(name) || INDEFINITE_ROWS.has(name)

export function checkFunctionPlacement(stmt: SelectStmt, src: Source | undefined): void {
  const elsewhere: (Expr & { kind: 'call' })[] = []
  for (const e of [stmt.where, stmt.having, ...stmt.partitionBy, ...stmt.groupBy, ...stmt.orderBy.map((o) => o.expr)]) {
    if (e !== undefined) {
      calls(e, elsewhere)
    }
  }
  if (elsewhere.some((c) => special(c.name))) {
    throw notAllowed()
  }
  const found: (Expr & { kind: 'call' })[] = []
  let aggregates = 0
  let diffs = 0
  for (const item of stmt.items) {
    const all: (Expr & { kind: 'call' })[] = []
    calls(item.expr, all)
    for (const c of all) {
      if (special(c.name)) {
        if (c !== item.expr) {
          // CSUM(x) + 1, TOP(x, 2) * 2, abs(mavg(x, 3))...
          throw notAllowed()
        }
        found.push(c)
      } else if (isAggregateName(c.name)) {
        aggregates++
      } else if (c.name === 'diff' || c.name === 'derivative') {
        diffs++
      }
      if (c.name === 'percentile') {
        checkSingleTable(stmt, src)
      }
    }
  }
  if (found.length === 0) {
    return
  }
  const multi = found.filter((c) => MULTI_ROWS.has(c.name))
  if (aggregates > 0 || multi.length > 1 || (multi.length === 1 && found.length > 1)) {
    throw notAllowed()
  }
  const indefinite = found.filter((c) => INDEFINITE_ROWS.has(c.name))
  if (indefinite.some((c) => c.name !== indefinite[0].name) || (diffs > 0 && found.length > 0)) {
    // one kind of row-producing function per statement (their rows would not line up)
    throw notAllowed()
  }
  const fill = stmt.window?.fill
  const unfillable = found.find((c) => c.name !== 'csum' && c.name !== 'mavg' && c.name !== 'statecount' && c.name !== 'stateduration')
  if (fill !== undefined && fill.mode !== 'none' && unfillable !== undefined) {
    throw new TdError(TD.PAR_FILL_NOT_ALLOWED_FUNC, `${unfillable.name} function is not supported in fill query`)
  }
  if (indefinite.length > 0 && (stmt.window !== undefined || stmt.groupBy.length > 0)) {
    throw notAllowed(`${indefinite[0].name} function is not supported in window query or group query`)
  }
}

function checkSingleTable(stmt: SelectStmt, src: Source | undefined): void {
  if (src !== undefined && src.kind !== 'child' && src.kind !== 'normal') {
    throw new TdError(TD.PAR_ONLY_SUPPORT_SINGLE_TABLE, 'percentile is only supported in single table query')
  }
  if (stmt.partitionBy.length > 0) {
    throw notAllowed('percentile function is not supported in partition query')
  }
}
