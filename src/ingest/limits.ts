/**
 * TDengine's limits on what one schemaless line may create (sql-dialect 1.1 and 1.3). Parsers
 * check the counts as they read a line, so a line 100,000 tags wide is refused after 129 of them
 * instead of being parsed, keyed and hashed whole; the schemaless core checks them again against
 * what a super table already has.
 */

/** tags of a super table */
export const MAX_TAGS = 128
/** columns of a super table, the timestamp and the tags included */
export const MAX_COLUMNS = 4096
/** fields one line may have: the timestamp and at least one tag take two of MAX_COLUMNS */
export const MAX_LINE_FIELDS = MAX_COLUMNS - 2
export { MAX_COLUMN_NAME_BYTES, MAX_TABLE_NAME_BYTES } from '../identifier.js'

export function tooManyTags(): string {
  return `more than ${MAX_TAGS} tags (a super table has at most ${MAX_TAGS})`
}

export function tooManyFields(): string {
  return `more than ${MAX_LINE_FIELDS} fields (a super table has at most ${MAX_COLUMNS} columns, its timestamp and tags included)`
}
