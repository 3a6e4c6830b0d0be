/**
 * Super table and child table names of schemaless writes (sql-dialect 9.3), used until the shared
 * src/ingest/naming.ts is available; then the core imports that instead.
 *
 *  - smlDot2Underline: dots in a measurement become `_` (`meters.current` -> `meters_current`);
 *  - child name: tags sorted by key (case-insensitive compare of the common prefix, the shorter
 *    key first when that ties), md5 over `stable,k1=v1,k2=v2...`, `t_` + 32 lower-case hex digits.
 */
import { createHash } from 'node:crypto'

export function stableName(measurement: string): string {
  return measurement.includes('.') ? measurement.replaceAll('.', '_') : measurement
}

function compareKeys(a: string, b: string): number {
  const n = Math.min(a.length, b.length)
  const x = a.slice(0, n).toLowerCase()
  const y = b.slice(0, n).toLowerCase()
  if (x < y) {
    return -1
  }
  if (x > y) {
    return 1
  }
  return a.length - b.length
}

export function childTableName(stable: string, tags: ReadonlyArray<readonly [string, string]>): string {
  const sorted = tags.length > 1 ? [...tags].sort((p, q) => compareKeys(p[0], q[0])) : tags
  let s = stable
  for (const [k, v] of sorted) {
    s += `,${k}=${v}`
  }
  return `t_${createHash('md5').update(s).digest('hex')}`
}
