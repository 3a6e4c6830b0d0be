import type { SqlContext } from '../result.js'
import type { Precision } from '../../storage/td-types.js'
import type { Expr } from './ast.js'
import type { TypeInfo } from './type-info.js'
import type { SqlWriter } from './sql-writer.js'
import type { WindowSpec } from './window.js'

/** A name in scope: its backend SQL and type; `ts` marks the primary timestamp. */
export interface Ref {
  sql: string
  type: TypeInfo
  ts: boolean
  /** a bare name that several joined tables have: naming it without a qualifier is 9732 */
  ambiguous?: true
}

/** Where an expression is compiled: the names in scope and what the query around it allows. */
export interface CompileCtx {
  sql: SqlWriter
  /** the statement's session (database(), user()) */
  session: SqlContext
  scope: Map<string, Ref>
  qualifiers: Set<string>
  precision: Precision
  now: bigint
  tsName: string | undefined
  level: 'where' | 'main'
  inAgg: boolean
  /** `end`: a row window's end (its last ts), else the end is `w` + the interval */
  window?: { spec: WindowSpec; w: string; end?: string }
  /**
   * `oneGroup`: no GROUP BY and no window, where a plain column answers 9740 rather than 9738;
   * `rowOrder`: a multi-row aggregate's (HISTOGRAM) row number within its group, to order by
   */
  agg?: { keys: Map<string, string>; companion?: Companion; oneGroup?: boolean; rowOrder?: string }
  /** row-aligned functions: their window spec and the conditions a row must meet to be output */
  series?: { over: string; valid: string[]; part: string[]; ts: string }
  /** super-table WHERE: child name -> `_tid`, so `tbname = 'x'` filters on the key column */
  tid?: { raw: string; of: (name: string) => number | undefined }
  /**
   * pre-aggregation: an aggregate's SQL becomes a column of the per-child query; returns its
   * reference. `lastRow`: LAST_ROW's argument, the value on the child's newest row
   */
  hoist?: (aggregateSql: string, lastRow?: string) => string
}

/** An expression in backend SQL and its TDengine type. */
export interface Compiled {
  sql: string
  type: TypeInfo
}

/** the single selection function whose row plain columns are taken from */
export interface Companion {
  fn: 'first' | 'last' | 'last_row' | 'min' | 'max'
  arg: Expr
}
