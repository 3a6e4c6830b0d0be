/**
 * The /rest/sql workload shared by the DuckDB and PostgreSQL benches, so both backends are
 * measured on the same statements and the same data.
 */
import { openStorage } from '../src/sql/catalog/open.js'

export const T0 = 1_700_000_000_000 // ms epoch of the first generated row
export const INSERT_ROWS_PER_STATEMENT = 10_000
export const INSERT_TABLES = 10
/**
 * Statements sent before the clock starts, to the adapter and to the floor alike: the first
 * ~40 statements of a fresh process run ~20% slower while V8 compiles the hot paths, and the
 * figure is meant to be the rate a running adapter sustains.
 */
export const WARMUP_STATEMENTS = 10
export const AGG_CHILDREN = 100
export const AGG_WHERE_FROM = T0 + 3_600_000
export const AGG_QUERY = `SELECT _wstart, avg(c) FROM agg.st WHERE ts >= ${AGG_WHERE_FROM} INTERVAL(1m) PARTITION BY tbname`
/** state windows over a CASE expression: c rises for 300 s above 100 and falls back each 600 s cycle */
export const STATE_CONDITION = 'c > 100'
export const STATE_QUERY =
  `SELECT tbname, _wstart, _wend, count(*), avg(c) FROM agg.st WHERE ts >= ${AGG_WHERE_FROM} ` +
  `PARTITION BY tbname STATE_WINDOW(CASE WHEN ${STATE_CONDITION} THEN 1 ELSE 0 END)`

/** The k-th 10,000-row INSERT: 1,000 rows into each of bench.w0 .. bench.w9. */
export function insertStatement(k: number): string {
  const perTable = INSERT_ROWS_PER_STATEMENT / INSERT_TABLES
  const parts: string[] = ['INSERT INTO']
  for (let t = 0; t < INSERT_TABLES; t++) {
    parts.push(`bench.w${t} VALUES`)
    for (let r = 0; r < perTable; r++) {
      parts.push(`(${T0 + k * perTable + r},${(r % 1000) / 10},${r})`)
    }
  }
  return parts.join(' ')
}

/** agg.st with AGG_CHILDREN children of `rowsPerChild` rows one second apart, via the storage API. */
export async function loadAggregateData(url: string, rowsPerChild: number): Promise<void> {
  const storage = await openStorage(url, { rootPassword: 'taosdata' })
  try {
    await storage.catalog.createDatabase('agg', { precision: 'ms' }, true)
    await storage.catalog.createStable(
      'agg',
      'st',
      [
        { name: 'ts', type: 'TIMESTAMP', length: 8 },
        { name: 'c', type: 'DOUBLE', length: 8 },
      ],
      [{ name: 'g', type: 'INT', length: 4 }],
      true,
    )
    for (let t = 0; t < AGG_CHILDREN; t++) {
      const child = await storage.catalog.createChildTable('agg', `d${t}`, 'st', { g: t % 10 }, true)
      const rows: unknown[][] = new Array(rowsPerChild)
      for (let r = 0; r < rowsPerChild; r++) {
        rows[r] = [BigInt(T0 + r * 1000), (r % 600) / 3 + t]
      }
      await storage.engine.writeRows([
        { db: 'agg', table: 'st', tid: child.tid, columns: ['ts', 'c'], rows },
      ])
    }
  } finally {
    await storage.close()
  }
}
