/**
 * The one check every name goes through before it reaches the catalog and storage: SQL DDL
 * (databases, tables, columns, tags, children created by INSERT ... USING) and the schemaless core
 * (measurements, fields, tags). A name storage cannot hold as it was given poisoned a database:
 * a lone UTF-16 surrogate was stored as something else, so the catalog's name and the stored one
 * differed and every later write to it failed.
 */

/** TDengine's limits in UTF-8 bytes (sql-dialect 1.3) */
export const MAX_DB_NAME_BYTES = 64
export const MAX_TABLE_NAME_BYTES = 192
export const MAX_COLUMN_NAME_BYTES = 64

// eslint-disable-next-line no-control-regex
const CONTROL_CHAR = /[\u0000-\u001f\u007f]/
// a UTF-16 half without its other half (only a JSON `\ud800` escape can make one)
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/
// what a UTF-8 decoder puts where the bytes were not UTF-8
const REPLACEMENT = '\ufffd'

/**
 * What is wrong with `name` as an identifier of at most `maxBytes` UTF-8 bytes, as a phrase that
 * follows the name in a message ("contains a control character"), or undefined when it is fine.
 */
export function identifierProblem(name: string, maxBytes: number): string | undefined {
  if (name.length === 0) {
    return 'is empty'
  }
  if (CONTROL_CHAR.test(name)) {
    return 'contains a control character'
  }
  if (LONE_SURROGATE.test(name)) {
    return 'is not valid Unicode: it holds half of a surrogate pair'
  }
  if (name.includes(REPLACEMENT)) {
    return 'is not valid UTF-8: it holds bytes decoded as U+FFFD'
  }
  // UTF-8 takes 1 to 3 bytes per UTF-16 unit, so only names in between are measured
  if (name.length > maxBytes || (name.length * 3 > maxBytes && Buffer.byteLength(name, 'utf8') > maxBytes)) {
    return `is longer than ${maxBytes} bytes`
  }
  return undefined
}
