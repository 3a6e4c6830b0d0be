/**
 * Physical layout (identical on every backend; only the SQL text differs, produced by `Dialect`):
 *  - catalog tables live in their own schema (`Dialect.catalogSchema`);
 *  - TDengine database `db` -> backend schema `Dialect.schemaName(db)`;
 *  - super table `st` -> data table `st` with columns (`_tid` INTEGER, `ts` BIGINT, data cols...),
 *    keyed by (`_tid`, `ts`), and tag table `st$tags` with (`_tid` INTEGER PRIMARY KEY,
 *    `tbname` VARCHAR, tag cols...). A child table is the rows of its super table with its `_tid`.
 *    Where the engine has `routes` (DuckDB), a new super table's `st` and `st$tags` are instead
 *    views over the database's shared tables of its shape (`$d<n>`, `$t<n>`: `_stid`, then the
 *    same columns), and `_tid`s are unique across them (routes.ts, catalog/shared-ddl.ts).
 *  - normal table `t` -> data table `t` with (`ts` BIGINT, data cols...) keyed by `ts`.
 *  - timestamps are BIGINT ticks in the database precision (ms/us/ns). The first data column of
 *    every table is the primary timestamp; physical columns keep the user's names (`ts`, `_ts`...),
 *    only `_tid` is added. The key above is (`_tid`, <first column>) / (<first column>): a
 *    PRIMARY KEY on PostgreSQL; on DuckDB a logical key the engine keeps unique itself
 *    (`Dialect.dataTableKey`), because DuckDB's index made every append much slower.
 *  - writing the same (table, ts) again overwrites the row (last write wins); columns not named
 *    in a partial write keep their old values.
 */
import type { ColumnDef } from './td-types.js'
import type { ScalarDialect } from './scalar-dialect.js'

/** How backend SQL text is spelled. Shared code never writes backend-specific SQL itself. */
export interface Dialect {
  readonly name: 'duckdb' | 'postgres'
  readonly catalogSchema: string
  quoteIdent(name: string): string
  quoteString(value: string): string
  /** backend schema of a TDengine database */
  schemaName(db: string): string
  /** physical column type of a TDengine type */
  columnType(col: ColumnDef): string
  /** floor division usable for window bucketing, e.g. `floor((ts - o) / i)` on bigint */
  floorDiv(a: string, b: string): string
  /** the integer quotient of a non-negative bigint by a positive one (no sign handling) */
  quotient(a: string, b: string): string
  /** regex match (POSIX-ish, unanchored) */
  regexMatch(value: string, pattern: string): string
  /** cast a physical value to text */
  castText(expr: string): string
  /** aggregates whose spelling differs: first/last value by ordering key */
  /** value at the min/max key, skipping rows where `value` is NULL (FIRST/LAST semantics) */
  argMin(value: string, key: string): string
  argMax(value: string, key: string): string
  /** value at the max key even when that value is NULL (LAST_ROW); falls back to argMax when absent */
  argMaxNull?(value: string, key: string): string
  /** the window aggregate `fn(key) OVER ...`'s row's value: the DOUBLE `value` at the max/min non-NULL key of the frame (TWA's neighbours) */
  valueAtKeyOver(value: string, key: string, fn: 'max' | 'min', over: string): string
  stddevPop(expr: string): string
  /** the continuous (interpolated) quantile of `expr` at `fraction` (0..1), an aggregate */
  quantile(expr: string, fraction: string): string
  /** the most frequent non-NULL value of `expr`, an aggregate */
  mode(expr: string): string
  /** a DOUBLE expression as text with six decimals (C's `%.6f`) */
  fixed6(expr: string): string
  /**
   * JSON tags are stored as their JSON text. The member `key` of the document `doc`: `jsonGet`
   * its JSON text, `jsonKind` 'string' | 'number' | 'boolean' | 'null', `jsonText` the scalar as
   * text (strings unquoted); NULL when the member (or the document) is absent.
   */
  jsonGet(doc: string, key: string): string
  jsonKind(doc: string, key: string): string
  jsonText(doc: string, key: string): string
  /**
   * The key clause of a data table's CREATE TABLE (leading comma included), or '' where the
   * backend enforces last-write-wins without a unique index (DuckDB: see its engine).
   */
  dataTableKey(keyColumns: string[]): string
  /** the constraint after a tag table's `_tid INTEGER` (' PRIMARY KEY'), or '' where the catalog alone keeps it unique */
  tagTableKey(): string
  /** what the scalar functions spell per backend */
  readonly scalar: ScalarDialect
  /** statements the catalog runs at startup (after creating its schema), e.g. helper functions */
  setupSql?(): string[]
  /** DOUBLE `a op b` with C's IEEE result (inf, 0) where the backend's operator would fail; `/` by zero is NULL */
  floatArith?(op: '+' | '-' | '*' | '/', a: string, b: string): string
}
