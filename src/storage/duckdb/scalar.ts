import { duckdbCrc32 } from '../crc32.js'
import type { ScalarDialect } from '../scalar-dialect.js'

/** DuckDB spellings of the scalar functions' backend-specific parts. */
export const duckdbScalar: ScalarDialect = {
  wideInt: 'HUGEINT',
  byteLength(value: string): string {
    return `strlen(${value})`
  },
  regexGroup(value: string, pattern: string, group: number): string {
    // regexp_extract answers '' (not NULL) when nothing matches
    return `NULLIF(regexp_extract(${value}, ${pattern}, ${group}), '')`
  },
  regexReplace(value: string, pattern: string, replacement: string): string {
    return `regexp_replace(${value}, ${pattern}, ${replacement})`
  },
  crc32: duckdbCrc32,
}
