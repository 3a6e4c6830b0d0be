/**
 * Names of schemaless writes: database names as taosAdapter takes them, super tables
 * (smlDot2Underline), and child tables (sql-dialect 9.3 rule 3), named as TDengine's
 * `buildChildTableName` does it: sort the tags by key, MD5 `stable,k1=v1,k2=v2,...` (UTF-8 bytes),
 * name the table `t_` + 32 lower-case hex digits. With no tags the super table gets the single
 * NCHAR tag `_tag_null` (NULL) and the MD5 covers the super table name alone.
 *
 * childTableName's `stable` must already be the stored name (after the dot->underscore
 * replacement of smlDot2Underline); the explicit child-name tag and the delimiter rules (9.3
 * rules 1-2) are the core's choice and do not reach it.
 */
import { createHash } from 'node:crypto'
import { ownedString } from '../owned-string.js'
import { TD, TdError } from '../td-error.js'

/** Tag a super table gets when its points carry no tags at all. */
export const TAG_NULL_NAME = '_tag_null'

/**
 * TDengine's `compareKv`: strncasecmp over the common prefix of the UTF-8 key bytes (ASCII
 * case-folding), then the shorter key first.
 */
export function compareTagKeys(a: string, b: string): number {
  if (isAscii(a) && isAscii(b)) {
    const n = Math.min(a.length, b.length)
    for (let i = 0; i < n; i++) {
      const d = lowerAscii(a.charCodeAt(i)) - lowerAscii(b.charCodeAt(i))
      if (d !== 0) {
        return d
      }
    }
    return a.length - b.length
  }
  const x = Buffer.from(a, 'utf8')
  const y = Buffer.from(b, 'utf8')
  const n = Math.min(x.length, y.length)
  for (let i = 0; i < n; i++) {
    const d = lowerAscii(x[i]) - lowerAscii(y[i])
    if (d !== 0) {
      return d
    }
  }
  return x.length - y.length
}

/** A sorted copy (the input keeps the order the client sent). */
export function sortTags(tags: ReadonlyArray<readonly [string, string]>): Array<[string, string]> {
  return tags.map((t): [string, string] => [t[0], t[1]]).sort((p, q) => compareTagKeys(p[0], q[0]))
}

/** `t_` + md5 hex of `stable,k1=v1,...` with the tags sorted by `compareTagKeys`. */
export function childTableName(stable: string, tags: ReadonlyArray<readonly [string, string]>): string {
  let text = stable
  for (const [k, v] of sortTags(tags)) {
    text += ',' + k + '=' + v
  }
  // flat, not a concatenation: the name is a key of the catalog's and the caches' maps
  return ownedString('t_' + createHash('md5').update(text, 'utf8').digest('hex'))
}

function lowerAscii(c: number): number {
  return c >= 65 && c <= 90 ? c + 32 : c
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) > 127) {
      return false
    }
  }
  return true
}

/** smlDot2Underline (TDengine 3.x default): dots in a measurement become `_` (`meters.current` -> `meters_current`). */
export function stableNameOf(measurement: string): string {
  return measurement.includes('.') ? measurement.replaceAll('.', '_') : measurement
}

/** Longest database name (TDengine's limit). */
const MAX_DB_NAME_BYTES = 64

/** Database names as taosAdapter uses them: unquoted in `use <db>`, so case-folded identifiers. */
export function normaliseDbName(raw: string): string {
  const db = raw.toLowerCase()
  if (!/^[a-z_][a-z0-9_]*$/.test(db) || db.length > MAX_DB_NAME_BYTES) {
    throw new TdError(
      TD.MND_INVALID_DB,
      `Invalid database name "${raw}": letters, digits and _ only, not starting with a digit, at most ${MAX_DB_NAME_BYTES} characters`,
    )
  }
  return db
}
