/**
 * AST of the TDengine SELECT statement (sql-dialect.md section 5). Produced by `parseSelect`,
 * consumed by `planSelect`. Identifiers are already normalised: unquoted names lower-cased,
 * back-quoted names kept exactly.
 */

/** A duration literal: `1m`, `500a`, `'1s'`; unit '' means "ticks in the database precision". */
export interface Duration {
  value: number
  /** b u a s m h d w n y, or '' for a bare integer */
  unit: string
}

export type Expr =
  | { kind: 'num'; text: string; isFloat: boolean }
  | { kind: 'str'; value: string }
  | { kind: 'bool'; value: boolean }
  | { kind: 'null' }
  | { kind: 'duration'; duration: Duration }
  /** column, tag or pseudo column (`tbname`, `_wstart`, `_rowts`, `_c0`...), optionally `t.col` */
  | { kind: 'col'; table?: string; name: string }
  /** `*` or `t.*` (select list and `count(*)` only) */
  | { kind: 'star'; table?: string }
  | { kind: 'call'; name: string; args: Expr[] }
  | { kind: 'unary'; op: '-' | '+' | 'NOT' | '~'; expr: Expr }
  | { kind: 'binary'; op: BinaryOp; left: Expr; right: Expr }
  | { kind: 'between'; expr: Expr; low: Expr; high: Expr; not: boolean }
  | { kind: 'in'; expr: Expr; list: Expr[]; not: boolean }
  | { kind: 'like'; op: 'LIKE' | 'MATCH' | 'NMATCH'; expr: Expr; pattern: Expr; not: boolean }
  | { kind: 'isNull'; expr: Expr; not: boolean }
  | { kind: 'case'; operand?: Expr; whens: { when: Expr; then: Expr }[]; else?: Expr }
  | { kind: 'cast'; expr: Expr; type: { name: string; length?: number } }
  /** JSON tag member `expr->'key'` (op '->') or key test `expr CONTAINS 'key'` */
  | { kind: 'json'; op: '->' | 'contains'; expr: Expr; key: string }

export type BinaryOp =
  | 'OR'
  | 'AND'
  | '='
  | '!='
  | '<'
  | '<='
  | '>'
  | '>='
  | '|'
  | '&'
  | '<<'
  | '>>'
  | '+'
  | '-'
  | '*'
  | '/'
  | '%'
  | '||'

export interface SelectItem {
  expr: Expr
  alias?: string
  /** default result column name: the source text, lower-cased outside quoted literals */
  text: string
}

export type FromItem =
  | { kind: 'table'; db?: string; name: string; alias?: string }
  | { kind: 'subquery'; select: SelectStmt; alias?: string }
  | JoinItem

/** `comma` is `FROM a, b` (conditions in WHERE); see join-source.ts for the others */
export type JoinType =
  | 'comma'
  | 'inner'
  | 'left'
  | 'right'
  | 'full'
  | 'left semi'
  | 'right semi'
  | 'left anti'
  | 'right anti'
  | 'left asof'
  | 'right asof'
  | 'left window'
  | 'right window'

export interface JoinItem {
  kind: 'join'
  type: JoinType
  left: FromItem
  right: FromItem
  on?: Expr
  /** ASOF and WINDOW joins: matches per row */
  jlimit?: number
  /** WINDOW joins: the window around each driving row's timestamp */
  windowOffset?: [Duration, Duration]
  alias?: undefined
}

export type FillMode = 'none' | 'null' | 'value' | 'prev' | 'next' | 'linear'

export interface IntervalWindow {
  kind: 'interval'
  interval: Duration
  offset?: Duration
  sliding?: Duration
  fill?: { mode: FillMode; values: Expr[] }
}

/** SESSION, STATE_WINDOW, EVENT_WINDOW and COUNT_WINDOW (windows cut from the rows themselves) */
export type RowWindow =
  | { kind: 'session'; col: Expr; tol: Duration }
  | { kind: 'state'; expr: Expr }
  | { kind: 'event'; start: Expr; end: Expr }
  | { kind: 'count'; count: number; sliding?: number }

export type InterpFillMode = 'null' | 'value' | 'prev' | 'next' | 'linear' | 'near'

/** INTERP's clauses: RANGE(start[, end]) [EVERY(dur)] FILL(mode[, values]) */
export interface InterpClause {
  range: Expr[]
  every?: Duration
  fill?: { mode: InterpFillMode; values: Expr[] }
}

export interface OrderItem {
  expr: Expr
  desc: boolean
  /** undefined = default (ASC NULLS LAST, DESC NULLS FIRST) */
  nullsFirst?: boolean
}

export interface LimitClause {
  limit: number
  offset: number
}

export interface SelectStmt {
  kind: 'select'
  distinct: boolean
  /** `SELECT TAGS ...`: one row per child table */
  tags?: boolean
  items: SelectItem[]
  from?: FromItem
  where?: Expr
  partitionBy: Expr[]
  window?: IntervalWindow
  rowWindow?: RowWindow
  interp?: InterpClause
  groupBy: Expr[]
  having?: Expr
  orderBy: OrderItem[]
  limit?: LimitClause
  slimit?: LimitClause
  /** `UNION [ALL]` members after this one; orderBy/limit/slimit then apply to the whole union */
  setOps?: { all: boolean; select: SelectStmt }[]
}
