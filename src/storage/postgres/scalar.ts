import { postgresCrc32 } from '../crc32.js'
import type { ScalarDialect } from '../scalar-dialect.js'

/** PostgreSQL spellings of the scalar functions' backend-specific parts. */
export const postgresScalar: ScalarDialect = {
  wideInt: 'NUMERIC',
  byteLength(value: string): string {
    return `octet_length(${value})`
  },
  regexGroup(value: string, pattern: string, group: number): string {
    return `NULLIF((regexp_match(${value}, ${pattern}))[${group}], '')`
  },
  regexReplace(value: string, pattern: string, replacement: string): string {
    return `regexp_replace(${value}, ${pattern}, ${replacement})`
  },
  crc32(value: string): string {
    return postgresCrc32('"db_adapter_catalog"', value)
  },
}
