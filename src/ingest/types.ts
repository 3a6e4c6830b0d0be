/**
 * The ingest contract: what the wire-format parsers hand the schemaless core (points through a
 * PointSource, or line protocol parsed by the workers as slices), what the core answers, and the
 * core's interface as routes, receivers and the monitor's writeToDB use it.
 */
import type { FieldType, Field, Point } from './point.js'
import type { RequestPrecision } from './schemaless/precision.js'

/** One rejected line (or JSON item, numbered from 1). */
export interface Rejection {
  line: number
  message: string
}

/**
 * Produces the points of one request. It may be called more than once per request (the core
 * re-runs it when the schema changed under its first pass), so it must be deterministic, e.g.
 * re-parse the same body. The point passed to `onPoint` may be reused after the callback returns
 * (the parsers' reuse contract). `onError` receives parse errors (an `IngestParseError` fits).
 */
export type PointSource = (
  onPoint: (p: Point, line: number) => void,
  onError: (e: Rejection) => void,
) => void | Promise<void>

export interface WriteOptions {
  /**
   * who writes: needs WRITE on the database (or, when it is missing and smlAutoCreateDB creates
   * it, CREATEDB; the writer then owns it). Refused with TdError 771 before anything is parsed.
   */
  user: string
  /** precision of the points' timestamps */
  precision: RequestPrecision
  /** days to live of child tables this request creates; used when > 0 */
  ttl?: number
  /** how messages name a point by its number (default `line <n>`; OpenTSDB JSON says `item <i>`) */
  where?: (n: number) => string
}

export interface WriteResult {
  /** points written (accepted lines) */
  written: number
  /** lines rejected: parse errors plus schema errors (type conflicts ...) */
  rejected: number
  /** the rejections in line order, at most MAX_REPORTED_ERRORS of them */
  errors: Rejection[]
}

/**
 * Why the lane left a body to the row path, having written nothing: `tables` when its database, a
 * super table or a child table does not exist yet (the row path creates them, so the next body of
 * the same series can take the lane); `body` for anything else (a string field, a new column, a
 * bad line, timestamps out of order or not newer than the stored ones, an engine without a column
 * append).
 */
export type LaneMiss = 'tables' | 'body'

export interface SchemalessOptions {
  /** smlAutoCreateDB: create a missing database (precision ns) instead of failing */
  autoCreateDb: boolean
  /** most super tables a schemaless write may bring a database to; 0 or absent: no limit */
  maxStablesPerDatabase?: number
  /** most tables (child and normal) a schemaless write may bring a database to; 0 or absent: no limit */
  maxTablesPerDatabase?: number
}

export interface Schemaless {
  /**
   * Writes the points into database `db` (created when missing and autoCreateDb). Throws TdError
   * 904 ("Database not exist") when the database is missing and may not be created, TdError for
   * an unusable database name, and the storage's own errors (transient trouble) as they come.
   */
  write(db: string, source: PointSource | Iterable<Point>, opts: WriteOptions): Promise<WriteResult>
  /**
   * The columnar lane (columnar.ts) for worker-parsed line protocol: the same result as `write`
   * would give, or, with nothing written, why the body must take `write` instead.
   */
  writeColumnar(db: string, slices: ReceivedSlice[], opts: WriteOptions): Promise<WriteResult | LaneMiss>
  /** whether `writeColumnar` can write at all: the storage engine appends columns (PostgreSQL's does not) */
  readonly columnar: boolean
}

// ---- line protocol parsed by the workers (lineproto/slice-*.ts), read by the columnar lane ----

/** One parsed slice of a body, as posted by a worker. Value layout: lineproto/slice-format.ts. */
export interface SliceMessage {
  job: number
  /** the last slice of the job */
  done: boolean
  /** the worker's dictionaries were emptied before this slice's new entries */
  reset: boolean
  /** new series: id, measurement, tags in the order sent */
  newSeries: Array<[number, string, Array<[string, string]>]>
  /** new field shapes: id, names, types */
  newShapes: Array<[number, string[], FieldType[]]>
  /** points in this slice */
  count: number
  series: Int32Array
  shapes: Int32Array
  lines: Int32Array
  /** TS_NONE | TS_NUMBER (value in tsNum) | TS_BIGINT (value in tsBig: beyond 2^53, e.g. ns) */
  tsKind: Uint8Array
  tsNum: Float64Array
  tsBig: BigInt64Array
  /** values of number and BOOL fields (1/0), in point and field order */
  nums: Float64Array
  /**
   * values of BIGINT and BIGINT UNSIGNED fields as 64-bit patterns, in point and field order (an
   * unsigned value from 2^63 up reads negative here: its field's type says how to read it). A
   * typed array, not bigints: an array of bigints is far slower to post
   */
  bigs: BigInt64Array
  /** values of VARCHAR and NCHAR fields */
  strs: string[]
  errors: Rejection[]
  /** set when the worker failed on this job (not a bad line: a bug or a crash) */
  failure?: string
}

export interface SeriesDef {
  measurement: string
  tags: Array<[string, string]>
  key: string
}

export interface ShapeDef {
  /** reused field objects, filled for each point */
  slots: Field[]
  kinds: Uint8Array
}

/** A slice with the dictionaries its ids refer to (captured when it arrived). */
export interface ReceivedSlice {
  message: SliceMessage
  series: SeriesDef[]
  shapes: ShapeDef[]
}
