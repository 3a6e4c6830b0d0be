import pg from 'pg'
import type { CustomTypesConfig } from 'pg'

const OID_INT8 = 20
const OID_FLOAT4 = 700
const OID_NUMERIC = 1700

/** numeric holds unsigned bigint (exact integer -> bigint); fractional results (avg) -> number */
function parseNumeric(s: string): bigint | number {
  return /^-?\d+$/.test(s) ? BigInt(s) : Number(s)
}

const TEXT_PARSERS = new Map<number, (s: string) => unknown>([
  [OID_INT8, (s) => BigInt(s)],
  [OID_NUMERIC, parseNumeric],
  // REAL is stored as float32: hand back the float32 value itself, as DuckDB does, not the
  // shortest decimal PostgreSQL prints for it
  [OID_FLOAT4, (s) => Math.fround(Number.parseFloat(s))],
])

/**
 * Engine contract values: BIGINT and NUMERIC(20,0) (unsigned bigint) -> bigint, SMALLINT/INTEGER
 * -> number, REAL/DOUBLE -> number, text -> string, boolean -> boolean.
 */
export const pgTypes: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    const p = format === 'binary' ? undefined : TEXT_PARSERS.get(oid)
    return p ?? pg.types.getTypeParser(oid, format)
  }) as CustomTypesConfig['getTypeParser'],
}
