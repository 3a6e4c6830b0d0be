import type { PlainTuples } from './plain-tuples.js'
import type { DbPrivilege, TdType } from '../storage/td-types.js'
import type { Expr, SelectStmt } from './select/ast.js'
import type { Span, ValueExpr } from './value-expr.js'

/**
 * AST of every non-SELECT statement (sql-dialect.md sections 2-4, 7); SELECT trees come from
 * src/sql/select. Names are normalised by the lexer (unquoted lower-cased, back-quoted exact).
 * Spans are source offsets [start, end) used for TDengine's `syntax error near '...'` texts.
 */

/** `[db.]name` */
export interface TableRef {
  db?: string
  name: string
  span: Span
}

/** A column or tag definition as written: `name TYPE[(n)]`. */
export interface ColumnSpec {
  name: string
  type: TdType
  /** declared length for VARCHAR/NCHAR; undefined for fixed-size types */
  length?: number
  span: Span
}

export interface ChildUsing {
  stable: TableRef
  /** explicit tag name list `USING st (a, b) TAGS (...)` */
  tagNames?: string[]
  tagValues: ValueExpr[]
}

export type CreateTableClause =
  | {
      kind: 'normal'
      table: TableRef
      ifNotExists: boolean
      columns: ColumnSpec[]
      comment?: string
      ttl?: number
    }
  | {
      kind: 'child'
      table: TableRef
      ifNotExists: boolean
      using: ChildUsing
      comment?: string
      ttl?: number
    }

export interface InsertTarget {
  table: TableRef
  using?: ChildUsing
  /** explicit column list (may include `tbname` and tag names for the supertable syntax) */
  columns?: { name: string; span: Span }[]
  /** the leading tuples of plain literals, as the lexer found them (see PlainTuples) */
  plain?: PlainTuples
  /** the tuples after those */
  rows: ValueExpr[][]
  /** `INSERT INTO tb [(cols)] SELECT ...`: the rows come from this query (rows/plain are empty) */
  select?: SelectStmt
}

export type AlterAction =
  | { kind: 'addColumn'; column: ColumnSpec }
  | { kind: 'dropColumn'; name: string }
  | { kind: 'modifyColumn'; column: ColumnSpec }
  | { kind: 'addTag'; column: ColumnSpec }
  | { kind: 'dropTag'; name: string }
  | { kind: 'modifyTag'; column: ColumnSpec }
  | { kind: 'renameColumn'; from: string; to: string }
  | { kind: 'renameTag'; from: string; to: string }
  | { kind: 'setTag'; values: { name: string; value: ValueExpr }[] }
  /** COMMENT 'x', TTL n, KEEP k: accepted, stored nowhere that matters to clients */
  | { kind: 'options'; options: Record<string, string | number> }

export type ShowObject =
  | 'dnodes'
  | 'mnodes'
  | 'qnodes'
  | 'snodes'
  | 'cluster'
  | 'variables'
  | 'localVariables'
  | 'connections'
  | 'queries'
  | 'apps'
  | 'grants'
  | 'licences'
  | 'streams'
  | 'topics'
  | 'consumers'
  | 'subscriptions'
  | 'transactions'
  | 'functions'
  | 'indexes'
  | 'vnodes'
  | 'scores'

export type ShowStmt =
  | { what: 'databases' }
  | { what: 'stables'; db?: string; like?: string }
  | { what: 'tables'; db?: string; like?: string; tableKind?: 'normal' | 'child' }
  | { what: 'users' }
  | { what: 'userPrivileges' }
  | { what: 'vgroups'; db?: string }
  | { what: 'createDatabase'; name: string }
  | { what: 'createTable'; table: TableRef; stable: boolean }
  | { what: 'tags'; table: TableRef }
  | { what: 'tableTags'; table: TableRef }
  | { what: 'alive'; cluster: boolean }
  | { what: 'other'; object: ShowObject }

export type Statement =
  | { type: 'select'; select: SelectStmt }
  | { type: 'createDatabase'; name: string; ifNotExists: boolean; options: Record<string, string | number> }
  | { type: 'dropDatabase'; name: string; ifExists: boolean }
  | { type: 'alterDatabase'; name: string; options: Record<string, string | number> }
  | { type: 'useDatabase'; name: string }
  | { type: 'databaseMaintenance'; op: 'flush' | 'compact' | 'trim'; name: string }
  | {
      type: 'createStable'
      table: TableRef
      ifNotExists: boolean
      columns: ColumnSpec[]
      tags: ColumnSpec[]
      comment?: string
    }
  | { type: 'createTables'; tables: CreateTableClause[] }
  | { type: 'dropTables'; tables: { table: TableRef; ifExists: boolean }[] }
  | { type: 'dropStable'; table: TableRef; ifExists: boolean }
  | { type: 'alterTable'; target: 'stable' | 'table'; table: TableRef; action: AlterAction }
  | { type: 'insert'; targets: InsertTarget[] }
  | { type: 'createUser'; name: string; password: string; sysinfo?: boolean; createdb?: boolean }
  | {
      type: 'alterUser'
      name: string
      change: { pass?: string; enable?: boolean; sysinfo?: boolean; createdb?: boolean }
    }
  | { type: 'dropUser'; name: string }
  /** db '*' stands for every database (`ON *.*`) */
  | { type: 'grant' | 'revoke'; privileges: DbPrivilege[]; db: string; user: string }
  | { type: 'show'; show: ShowStmt }
  | { type: 'describe'; table: TableRef }
  | { type: 'delete'; table: TableRef; where?: Expr }
  /** KILL QUERY 'kill_id' (performance_schema.perf_queries.kill_id) */
  | { type: 'killQuery'; id: string }
