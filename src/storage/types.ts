/**
 * The contract between the SQL layer / ingestion paths and the storage backends: the Engine,
 * the rows and columns it writes and the chunks it streams back.
 */
import type { Dialect } from './dialect.js'
import type { TableRoutes } from './routes.js'

/**
 * Rows for the bulk write path. `columns` are data column names (the first is the primary
 * timestamp); each row holds values in that order, already converted to storage form
 * (timestamps as bigint ticks, integers as number|bigint, strings, booleans, null).
 */
export interface RowBatch {
  db: string
  /** super table name for children, table name for normal tables */
  table: string
  /** `_tid` of the child table; undefined for normal tables */
  tid?: number
  columns: string[]
  rows: unknown[][]
}

/**
 * Rows of one super table's existing children as typed columns, grouped by child: child k owns
 * rows [starts[k], starts[k + 1]) and within a child the timestamps strictly increase. Value
 * arrays have the element type of their column's physical type (DOUBLE Float64Array, BOOL
 * Uint8Array of 0/1, BIGINT BigInt64Array, BIGINT UNSIGNED BigUint64Array); `valid[j]`, when
 * set, marks the rows that have a value (1) in column j, the others are NULL.
 */
export interface ColumnBatch {
  db: string
  /** the super table */
  table: string
  /** the timestamp column, then the value columns */
  columns: string[]
  count: number
  tids: Int32Array
  starts: Int32Array
  ts: BigInt64Array
  values: Array<Float64Array | Uint8Array | BigInt64Array | BigUint64Array>
  valid: Array<Uint8Array | undefined>
  /**
   * Per child, its first and last timestamp (`ts` at starts[k] and starts[k + 1] - 1), as the
   * producer already has them: reading them out of `ts` boxes a new bigint each time.
   */
  first: bigint[]
  last: bigint[]
}

/** One result chunk: rows of physical values, in the column order of the query. */
export type RowChunk = unknown[][]

/**
 * A result chunk whose columns are all numeric, as columns (Engine.streamNumeric): no JS value
 * per cell. Values are exact: BOOLEAN as 1/0, integers only within +-(2^53 - 1) (a chunk with
 * larger ones comes as rows).
 */
export interface NumericChunk {
  readonly rowCount: number
  readonly columns: NumericVector[]
}

export interface NumericVector {
  values: Float64Array
  /** 1 = NULL (its value is 0); absent when the column has none */
  nulls: Uint8Array | undefined
  /** the backend column is an integer or BOOLEAN type (not FLOAT/DOUBLE) */
  integral: boolean
}

export interface QueryOptions {
  signal?: AbortSignal
  /** rows per chunk when streaming */
  chunkRows?: number
}

/**
 * The backend: runs SQL text from the dialect, streams results, and has a fast bulk path.
 * Values come back as JS values: BIGINT/UBIGINT as bigint, other integers as number, floats as
 * number, strings, booleans, null.
 */
export interface Engine {
  readonly dialect: Dialect
  /**
   * Present when the backend can store super tables as views over shared physical tables
   * (routes.ts): the catalog then creates them so and keeps these routes; writes follow them.
   */
  readonly routes?: TableRoutes
  /** Run one statement; returns affected rows when the backend knows them (else 0). */
  exec(sql: string, opts?: QueryOptions): Promise<number>
  /** Small results, fully materialised (catalog reads, DESCRIBE...); a statement that writes (UPDATE ... RETURNING) is committed before it returns. */
  query(sql: string, opts?: QueryOptions): Promise<unknown[][]>
  /** Large results of a query (never a statement that writes), streamed in chunks with bounded memory. */
  stream(sql: string, opts?: QueryOptions): AsyncIterable<RowChunk>
  /**
   * `stream`, except that chunks whose columns are all numeric may come as NumericChunk (for
   * consumers that encode numbers anyway). Optional: backends without it stream rows.
   */
  streamNumeric?(sql: string, opts?: QueryOptions): AsyncIterable<RowChunk | NumericChunk>
  /** Run `fn` in one transaction on one connection; rolled back when it throws. */
  transaction<T>(fn: (tx: Engine) => Promise<T>): Promise<T>
  /**
   * Fast path for many rows (DuckDB appender, PostgreSQL COPY) with overwrite semantics on the
   * primary key; all batches are committed together or not at all. Returns rows written.
   */
  writeRows(batches: RowBatch[]): Promise<number>
  /**
   * The columnar fast path of ingest (optional; see ColumnBatch): appends the batches in one
   * transaction when every child's rows are newer than what it stores, and answers undefined,
   * having written nothing, when they are not (the caller then writes rows, which overwrite).
   */
  appendColumns?(batches: ColumnBatch[]): Promise<number | undefined>
  /**
   * Gives memory the backend keeps for itself (buffer pool, allocator cache) back to the system;
   * the memory gate calls it when it pauses. Optional: PostgreSQL's memory is another process's.
   */
  releaseMemory?(): Promise<void>
  /**
   * Inserts plain rows into the physical table `schema`.`table` (the named columns; the others
   * get NULL), inside the transaction when called on one, as one statement would. No overwrite
   * semantics: a duplicate primary key fails the call. Optional: callers without it send INSERT
   * statements. For catalog and tag rows, which DuckDB binds slowly as long VALUES lists.
   */
  insertRows?(schema: string, table: string, columns: string[], rows: unknown[][]): Promise<number>
  close(): Promise<void>
  /** true when the backend is reachable now (for readiness and 503 decisions) */
  healthy(): Promise<boolean>
  /**
   * Why the backend can do no more work until the process restarts (an embedded database
   * invalidated after a fatal error), else undefined. Liveness fails on it.
   */
  fatalError?(): Promise<string | undefined>
}
