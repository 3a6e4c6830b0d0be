import { DuckDBTypeId, JSDuckDBValueConverter } from '@duckdb/node-api'
import type { DuckDBDataChunk } from '@duckdb/node-api'

/**
 * Types whose vector items already are what JSDuckDBValueConverter returns (number, bigint,
 * string, boolean): for them the converter is the identity, so it is skipped.
 */
const PLAIN_TYPES = new Set<DuckDBTypeId>([
  DuckDBTypeId.BOOLEAN,
  DuckDBTypeId.TINYINT,
  DuckDBTypeId.SMALLINT,
  DuckDBTypeId.INTEGER,
  DuckDBTypeId.BIGINT,
  DuckDBTypeId.UTINYINT,
  DuckDBTypeId.USMALLINT,
  DuckDBTypeId.UINTEGER,
  DuckDBTypeId.UBIGINT,
  DuckDBTypeId.FLOAT,
  DuckDBTypeId.DOUBLE,
  DuckDBTypeId.HUGEINT,
  DuckDBTypeId.VARCHAR,
])

/**
 * `chunk.convertRows(JSDuckDBValueConverter)`, column by column: the library's row-wise version
 * asks the native side for the column count and each vector's type once per row and calls the
 * converter per value, which dominated CPU time when streaming large results.
 */
export function chunkRows(chunk: DuckDBDataChunk): unknown[][] {
  const n = chunk.rowCount
  const width = chunk.columnCount
  const rows = new Array<unknown[]>(n)
  for (let r = 0; r < n; r++) {
    rows[r] = new Array<unknown>(width)
  }
  for (let c = 0; c < width; c++) {
    const vector = chunk.getColumnVector(c)
    const type = vector.type
    if (PLAIN_TYPES.has(type.typeId)) {
      for (let r = 0; r < n; r++) {
        rows[r][c] = vector.getItem(r) ?? null
      }
    } else {
      for (let r = 0; r < n; r++) {
        rows[r][c] = JSDuckDBValueConverter(vector.getItem(r), type, JSDuckDBValueConverter)
      }
    }
  }
  return rows
}

