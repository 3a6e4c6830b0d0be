import type { Dialect } from '../dialect.js'
import type { ColumnDef } from '../td-types.js'
import { duckdbScalar } from './scalar.js'

/**
 * DuckDB spelling of the shared physical layout.
 *
 * Schema names get a `td_` prefix so a TDengine database called `main`, `temp` or
 * `information_schema` never collides with DuckDB's own schemas; the catalog schema has no
 * underscore after `td` so no database name can map onto it.
 */
export const duckdbDialect: Dialect = {
  name: 'duckdb',
  scalar: duckdbScalar,
  catalogSchema: 'tdcatalog',
  quoteIdent(name: string): string {
    return `"${name.replaceAll('"', '""')}"`
  },
  quoteString(value: string): string {
    // DuckDB string literals have no backslash escapes; only the quote is doubled.
    return `'${value.replaceAll("'", "''")}'`
  },
  schemaName(db: string): string {
    return `td_${db}`
  },
  columnType(col: ColumnDef): string {
    return duckdbColumnType(col)
  },
  quotient(a: string, b: string): string {
    return `((${a}) // (${b}))`
  },
  floorDiv(a: string, b: string): string {
    // `//` truncates toward zero and fdiv() goes through DOUBLE (loses ns ticks above 2^53).
    // Exact floor for a positive divisor (window lengths); measured cheaper in DuckDB than the
    // double-modulo form `(a - ((a % b + b) % b)) // b`.
    return `(CASE WHEN (${a}) >= 0 THEN (${a}) // (${b}) ELSE -((-(${a}) - 1) // (${b})) - 1 END)`
  },
  regexMatch(value: string, pattern: string): string {
    return `regexp_matches(${value}, ${pattern})`
  },
  castText(expr: string): string {
    return `CAST(${expr} AS VARCHAR)`
  },
  argMin(value: string, key: string): string {
    return `arg_min(${value}, ${key})`
  },
  argMax(value: string, key: string): string {
    return `arg_max(${value}, ${key})`
  },
  argMaxNull(value: string, key: string): string {
    return `arg_max_null(${value}, ${key})`
  },
  valueAtKeyOver(value: string, key: string, fn: 'max' | 'min', over: string): string {
    return `arg_${fn}(${value}, ${key}) ${over}`
  },
  stddevPop(expr: string): string {
    return `stddev_pop(${expr})`
  },
  jsonGet(doc: string, key: string): string {
    return `CAST(json_extract(${doc}, ${jsonPath(key)}) AS VARCHAR)`
  },
  jsonKind(doc: string, key: string): string {
    const t = `json_type(${doc}, ${jsonPath(key)})`
    return `(CASE ${t} WHEN 'VARCHAR' THEN 'string' WHEN 'BOOLEAN' THEN 'boolean' WHEN 'NULL' THEN 'null' WHEN 'BIGINT' THEN 'number' WHEN 'UBIGINT' THEN 'number' WHEN 'DOUBLE' THEN 'number' END)`
  },
  jsonText(doc: string, key: string): string {
    return `json_extract_string(${doc}, ${jsonPath(key)})`
  },
  quantile(expr: string, fraction: string): string {
    return `quantile_cont(${expr}, ${fraction})`
  },
  mode(expr: string): string {
    return `mode(${expr})`
  },
  fixed6(expr: string): string {
    return `printf('%.6f', ${expr})`
  },
  dataTableKey(): string {
    // no PRIMARY KEY: DuckDB's ART index made appends much slower and its flush blocks the
    // event loop; the engine keeps (_tid, ts) unique itself (see write-rows.ts)
    return ''
  },
  tagTableKey(): string {
    // the catalog allocates tids under its mutex in the only process; an ART index would cost
    // about 260 KB of memory per super table even with one child
    return ''
  },
}

function duckdbColumnType(col: ColumnDef): string {
  switch (col.type) {
    case 'BOOL':
      return 'BOOLEAN'
    case 'TINYINT':
      return 'TINYINT'
    case 'SMALLINT':
      return 'SMALLINT'
    case 'INT':
      return 'INTEGER'
    case 'BIGINT':
      return 'BIGINT'
    case 'TINYINT UNSIGNED':
      return 'UTINYINT'
    case 'SMALLINT UNSIGNED':
      return 'USMALLINT'
    case 'INT UNSIGNED':
      return 'UINTEGER'
    case 'BIGINT UNSIGNED':
      return 'UBIGINT'
    case 'FLOAT':
      return 'FLOAT'
    case 'DOUBLE':
      return 'DOUBLE'
    // lengths are enforced by the SQL layer; the catalog keeps the declared length
    case 'VARCHAR':
    case 'NCHAR':
    case 'JSON':
      return 'VARCHAR'
    case 'TIMESTAMP':
      return 'BIGINT'
  }
}

/** a JSONPath naming one top-level member, as a string literal */
function jsonPath(key: string): string {
  return `'${`$."${key.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`.replaceAll("'", "''")}'`
}
