/**
 * The backend spellings the scalar functions need (src/sql/select/scalar-*.ts), grouped so the
 * shared Dialect grows by one member. Everything else those functions emit is portable SQL.
 */
export interface ScalarDialect {
  /** an integer type wide enough for any 64-bit value plus 2^64 (C-style wrapping of CAST) */
  readonly wideInt: string
  /** capture group `group` of the first match of `pattern` in `value`, NULL when it does not match */
  /** the length of a string in bytes (UTF-8) */
  byteLength(value: string): string
  regexGroup(value: string, pattern: string, group: number): string
  /** `value` with the first match of `pattern` replaced by `replacement` */
  regexReplace(value: string, pattern: string, replacement: string): string
  /** CRC-32 of the string's UTF-8 bytes as an integer (storage/crc32.ts), NULL for NULL */
  crc32(value: string): string
}
