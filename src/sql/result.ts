import type { NumericChunk } from '../storage/types.js'
import type { Precision, TdType } from '../storage/td-types.js'

/** Column of a result set as it appears in REST `column_meta`: [name, type, length]. */
export interface ColumnMeta {
  name: string
  type: TdType | 'NULL'
  length: number
}

/**
 * What executing one statement yields.
 *  - `exec`: statements without a result set (INSERT, DDL, USE ...).
 *  - `rows`: a result set. Row values are JS values in column order: BOOL boolean; integer types
 *    number (BIGINT/BIGINT UNSIGNED as bigint); FLOAT/DOUBLE number; VARCHAR/NCHAR string;
 *    TIMESTAMP bigint ticks in `precision`; JSON a parsed object (or scalar for `->`); NULL null.
 *    `rows` streams chunks so large results keep bounded memory.
 *    `numeric`, when present, is the same result where chunks of an all-numeric result may come
 *    as columns (BOOL 1/0, integer and TIMESTAMP values as exact numbers); a consumer iterates
 *    `rows` or `numeric`, not both.
 */
export type SqlResult =
  | { kind: 'exec'; affectedRows: number }
  | {
      kind: 'rows'
      columns: ColumnMeta[]
      precision: Precision
      rows: AsyncIterable<unknown[][]>
      numeric?: AsyncIterable<unknown[][] | NumericChunk>
    }

/** Who runs the statement and against which default database (the `/rest/sql/{db}` segment). */
export interface SqlContext {
  user: string
  defaultDb?: string
  signal?: AbortSignal
  /** the client connection, for performance_schema (absent for internal callers) */
  client?: SqlClient
}

/** A client connection as performance_schema names it. */
export interface SqlClient {
  /** stable for the connection's life, unique in the process */
  connId: number
  /** `address:port` */
  endpoint: string
  /** the client's name (User-Agent) */
  app?: string
  /** registers a callback run once when the connection closes */
  onClose?(cb: () => void): void
}

/** Runs one TDengine-dialect statement. Throws `TdError` for database errors. */
export interface SqlExecutor {
  execute(sql: string, ctx: SqlContext): Promise<SqlResult>
  /** Classify before running, for the memory gate: result-set statements are queries. */
  classify(sql: string): 'query' | 'write'
}
