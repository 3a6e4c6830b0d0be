import { createHash } from 'node:crypto'
import type { Dialect } from '../dialect.js'
import type { ColumnDef } from '../td-types.js'
import { postgresCrc32Setup } from '../crc32.js'
import { floatArith, floatArithSetup } from './float-arith.js'
import { postgresScalar } from './scalar.js'

/** PostgreSQL folds nothing inside quotes but truncates identifiers to 63 bytes (NAMEDATALEN - 1). */
export const PG_MAX_IDENT_BYTES = 63

/** The PostgreSQL dialect plus hooks the shared catalog may call when present. */
export interface PostgresDialect extends Dialect {
  readonly name: 'postgres'
  /** last non-null `value` by greatest `key`, but a NULL value on the greatest key wins (LAST_ROW) */
  argMaxNull(value: string, key: string): string
  /**
   * Statements to run right after a data table (super table or normal table) is created, in the
   * same transaction: turns it into a TimescaleDB hypertable on its BIGINT tick column when the
   * extension is installed in the database, and does nothing otherwise (decided by the server,
   * so the statements are the same everywhere). `chunkTicks` is the chunk interval in the
   * database precision (e.g. the db DURATION converted to ticks); default 10 days in ms.
   */
  afterCreateDataTable(schema: string, table: string, tsCol: string, chunkTicks?: bigint | number): string[]
}

/**
 * Identifiers longer than PostgreSQL's 63-byte limit would be silently truncated and could then
 * collide (TDengine table names may be 192 characters). Long names are shortened
 * deterministically: a prefix plus a hash of the full name, so every statement that spells a
 * name through `quoteIdent` agrees on the physical name.
 */
export function physicalIdent(name: string): string {
  if (Buffer.byteLength(name, 'utf8') <= PG_MAX_IDENT_BYTES) {
    return name
  }
  const hash = createHash('sha256').update(name, 'utf8').digest('hex').slice(0, 16)
  // keep a readable prefix; cut on a character boundary
  let prefix = ''
  for (const ch of name) {
    if (Buffer.byteLength(prefix + ch, 'utf8') > PG_MAX_IDENT_BYTES - hash.length - 1) {
      break
    }
    prefix += ch
  }
  return `${prefix}_${hash}`
}

function quoteIdent(name: string): string {
  return `"${physicalIdent(name).replaceAll('"', '""')}"`
}

function quoteString(value: string): string {
  // standard_conforming_strings is on (the default since PostgreSQL 9.1): backslashes are
  // literal and only the quote is doubled. NUL cannot be stored in text at all.
  return `'${value.replaceAll("'", "''")}'`
}

function postgresColumnType(col: ColumnDef): string {
  switch (col.type) {
    case 'BOOL':
      return 'BOOLEAN'
    // PostgreSQL has no 1-byte integer; ranges are enforced by the SQL layer
    case 'TINYINT':
    case 'SMALLINT':
    case 'TINYINT UNSIGNED':
      return 'SMALLINT'
    case 'INT':
    case 'SMALLINT UNSIGNED':
      return 'INTEGER'
    case 'BIGINT':
    case 'INT UNSIGNED':
      return 'BIGINT'
    // 0 .. 2^64-1 needs 20 digits; comes back as a JS bigint (see the type parsers in engine.ts)
    case 'BIGINT UNSIGNED':
      return 'NUMERIC(20,0)'
    case 'FLOAT':
      return 'REAL'
    case 'DOUBLE':
      return 'DOUBLE PRECISION'
    // lengths are enforced by the SQL layer and kept in the catalog, so widening is free;
    // JSON tags are stored as their JSON text, like on DuckDB
    case 'VARCHAR':
    case 'NCHAR':
    case 'JSON':
      return 'TEXT'
    case 'TIMESTAMP':
      return 'BIGINT'
  }
}

const DO_TAG = '$db_adapter_ht$'

export const postgresDialect: PostgresDialect = {
  name: 'postgres',
  scalar: postgresScalar,
  catalogSchema: 'db_adapter_catalog',
  setupSql(): string[] {
    const schema = quoteIdent('db_adapter_catalog')
    return [...floatArithSetup(schema), postgresCrc32Setup(schema)]
  },
  floatArith(op, a, b): string {
    return floatArith(quoteIdent('db_adapter_catalog'), op, a, b)
  },
  quoteIdent,
  quoteString,
  schemaName(db: string): string {
    // a prefix keeps databases called `public`, `information_schema` or `pg_*` (reserved for
    // system schemas) usable, and no db can map onto the catalog schema
    return `td_${db}`
  },
  columnType: postgresColumnType,
  quotient(a: string, b: string): string {
    return `((${a}) / (${b}))`
  },
  floorDiv(a: string, b: string): string {
    // integer `/` truncates toward zero; exact floor for a positive divisor on bigint ticks
    // (never through double precision, which loses ns ticks above 2^53)
    return `(CASE WHEN (${a}) >= 0 THEN (${a}) / (${b}) ELSE -((-(${a}) - 1) / (${b})) - 1 END)`
  },
  regexMatch(value: string, pattern: string): string {
    return `((${value}) ~ (${pattern}))`
  },
  castText(expr: string): string {
    return `CAST(${expr} AS TEXT)`
  },
  // PostgreSQL has no arg_min/arg_max: the first element of an ordered array_agg is exact for
  // every type; rows with a NULL value or key are skipped like DuckDB's arg_min/arg_max.
  argMin(value: string, key: string): string {
    return `((array_agg(${value} ORDER BY ${key} ASC) FILTER (WHERE (${value}) IS NOT NULL AND (${key}) IS NOT NULL))[1])`
  },
  argMax(value: string, key: string): string {
    return `((array_agg(${value} ORDER BY ${key} DESC) FILTER (WHERE (${value}) IS NOT NULL AND (${key}) IS NOT NULL))[1])`
  },
  argMaxNull(value: string, key: string): string {
    return `((array_agg(${value} ORDER BY ${key} DESC) FILTER (WHERE (${key}) IS NOT NULL))[1])`
  },
  valueAtKeyOver(value: string, key: string, fn: 'max' | 'min', over: string): string {
    // no arg_max window aggregate here: the extreme [key, value] pair (numeric keeps ns ticks exact)
    const pair = `ARRAY[CAST(${key} AS numeric), CAST(${value} AS numeric)]`
    return `CAST((${fn}(${pair}) FILTER (WHERE (${key}) IS NOT NULL) ${over})[2] AS double precision)`
  },
  stddevPop(expr: string): string {
    return `stddev_pop(${expr})`
  },
  jsonGet(doc: string, key: string): string {
    return `CAST(CAST(${doc} AS jsonb) -> ${quoteString(key)} AS TEXT)`
  },
  jsonKind(doc: string, key: string): string {
    return `jsonb_typeof(CAST(${doc} AS jsonb) -> ${quoteString(key)})`
  },
  jsonText(doc: string, key: string): string {
    return `(CAST(${doc} AS jsonb) ->> ${quoteString(key)})`
  },
  quantile(expr: string, fraction: string): string {
    return `percentile_cont(${fraction}) WITHIN GROUP (ORDER BY ${expr})`
  },
  mode(expr: string): string {
    return `mode() WITHIN GROUP (ORDER BY ${expr})`
  },
  fixed6(expr: string): string {
    // numeric rounding keeps the scale, so 2.5 prints as 2.500000 like C's %.6f
    return `CAST(round(CAST(${expr} AS numeric), 6) AS TEXT)`
  },
  dataTableKey(keyColumns: string[]): string {
    // COPY + ON CONFLICT upserts need the unique index; replicas write concurrently
    return `, PRIMARY KEY (${keyColumns.join(', ')})`
  },
  tagTableKey(): string {
    // replicas create children concurrently: the index is the last guard against a duplicate tid
    return ' PRIMARY KEY'
  },
  afterCreateDataTable(schema: string, table: string, tsCol: string, chunkTicks?: bigint | number): string[] {
    const rel = `${quoteIdent(schema)}.${quoteIdent(table)}`
    const interval = BigInt(chunkTicks ?? 864_000_000)
    if (interval <= 0n) {
      throw new Error(`afterCreateDataTable: chunkTicks must be positive, got ${interval}`)
    }
    const body =
      `BEGIN IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'timescaledb') THEN ` +
      `PERFORM create_hypertable(${quoteString(rel)}::regclass, ${quoteString(physicalIdent(tsCol))}::name, ` +
      `chunk_time_interval => ${interval.toString()}::bigint, if_not_exists => TRUE); END IF; END`
    if (body.includes(DO_TAG)) {
      throw new Error(`afterCreateDataTable: names must not contain ${DO_TAG}`)
    }
    return [`DO ${DO_TAG} ${body} ${DO_TAG}`]
  },
}
