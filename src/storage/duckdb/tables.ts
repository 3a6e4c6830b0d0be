import { JSDuckDBValueConverter } from '@duckdb/node-api'
import type { DuckDBConnection } from '@duckdb/node-api'
import type { TableRoutes } from '../routes.js'
import type { Source } from './append-rows.js'
import { duckdbDialect } from './dialect.js'

export interface TargetInfo {
  /** the physical table written: the table itself, or the shared table behind its view (routes.ts) */
  table: string
  /** the shared table's `_stid` value for the view's rows; undefined for a table of its own */
  stid?: number
  /** physical column names in table order */
  names: string[]
  /** physical type declarations in table order, e.g. `BIGINT` */
  types: string[]
}

export function requireColumns(caller: string, info: TargetInfo, columns: string[], schema: string, table: string): void {
  for (const c of columns) {
    if (!info.names.includes(c)) {
      throw new Error(`${caller}: column ${c} not in ${schema}.${table}`)
    }
  }
}

/** Where each of the target's columns comes from: `_tid` of a child's batch, `_stid` of a shared table, a given column, or NULL. */
export function sourcesFor(info: TargetInfo, columns: string[], child: boolean): Source[] {
  return info.names.map((name) => {
    if (child && name === '_tid') {
      return { kind: 'tid' }
    }
    if (name === '_stid' && info.stid !== undefined) {
      return { kind: 'const', value: info.stid }
    }
    const index = columns.indexOf(name)
    return index < 0 ? { kind: 'null' } : { kind: 'col', index }
  })
}

/** Primary timestamp per key (`_tid`, or 0 for a normal table): an upper bound of what is stored. */
export type Newest = Map<number, bigint | number>

/**
 * What the engine knows about the tables it writes, read on first use and dropped after DDL
 * (or a failed transaction): their layouts, their newest-timestamp bounds (see DuckDBEngine)
 * and the staging tables typed after them.
 */
export class TableCache {
  /** bumped by DDL on the write connection; invalidates cached table layouts and staging tables */
  private schemaEpoch = 0
  private cacheEpoch = 0
  private readonly targets = new Map<string, TargetInfo>()
  private readonly newest = new Map<string, Newest>()
  /** staging table per target and column list (RowWriter.writeStaged) */
  readonly staging = new Map<string, string>()
  /** forgotten staging tables, dropped at the next staged write (on the write connection) */
  readonly staleStaging: string[] = []
  stagingSeq = 0

  constructor(private readonly routes: TableRoutes) {}

  /** The cached layouts may be stale: read them again on next use. */
  schemaChanged(): void {
    this.schemaEpoch++
  }

  /** Rows reached the table by another way than writeRows: read its bounds again on next use. */
  forgetNewest(schema: string, table: string): void {
    this.newest.delete(`${schema}\u0000${table}`)
  }

  private syncCaches(): void {
    if (this.cacheEpoch !== this.schemaEpoch) {
      this.cacheEpoch = this.schemaEpoch
      this.targets.clear()
      // a dropped and re-created table starts empty: its old bound would force staging forever
      this.newest.clear()
      // staging tables are typed after their target, which may have changed
      this.staleStaging.push(...this.staging.values())
      this.staging.clear()
    }
  }

  async targetInfo(conn: DuckDBConnection, schema: string, table: string): Promise<TargetInfo> {
    this.syncCaches()
    const key = `${schema}\u0000${table}`
    let info = this.targets.get(key)
    if (!info) {
      // a LIMIT 0 read of the table itself: duckdb_columns() materialised every column of every
      // table on each call, which cost ~125 KiB of RSS per super table (bench/README.md)
      const qi = duckdbDialect.quoteIdent
      const route = this.routes.get(schema, table)
      const physical = route?.table ?? table
      let r
      try {
        r = await conn.run(`SELECT * FROM ${qi(schema)}.${qi(physical)} LIMIT 0`)
      } catch (err) {
        // a catalog error does not abort DuckDB's transaction, so the caller may go on
        if (err instanceof Error && err.message.startsWith('Catalog Error')) {
          throw new Error(`writeRows: table ${schema}.${table} does not exist`, { cause: err })
        }
        throw err
      }
      info = { table: physical, names: r.columnNames(), types: r.columnTypes().map((t) => t.toString()) }
      if (route !== undefined) {
        info.stid = route.stid
      }
      this.targets.set(key, info)
    }
    return info
  }

  /** The newest-timestamp bounds of a table (per `_tid` for a super table's), read from the table on first use. */
  async newestOf(conn: DuckDBConnection, schema: string, table: string, tsColumn: string, child: boolean): Promise<Newest> {
    const key = `${schema}\u0000${table}`
    let newest = this.newest.get(key)
    if (!newest) {
      const qi = duckdbDialect.quoteIdent
      const ts = qi(tsColumn)
      const target = `${qi(schema)}.${qi(table)}`
      const r = await conn.run(
        child
          ? `SELECT _tid, max(${ts}) FROM ${target} GROUP BY _tid`
          : `SELECT 0, max(${ts}) FROM ${target} HAVING count(*) > 0`,
      )
      newest = new Map()
      for (const [tid, max] of (await r.convertRows(JSDuckDBValueConverter)) as [number, bigint][]) {
        newest.set(tid, max)
      }
      this.newest.set(key, newest)
    }
    return newest
  }

}
