import type { DuckDBConnection } from '@duckdb/node-api'
import type { WriteGroup } from '../write-groups.js'
import { appendAll } from './append-rows.js'
import type { Source } from './append-rows.js'
import { FLUSH_ROWS } from './appender.js'
import { duckdbDialect } from './dialect.js'
import { requireColumns, sourcesFor } from './tables.js'
import type { Newest, TableCache, TargetInfo } from './tables.js'

/** A write group with what writing it needs (RowWriter.prepareGroup). */
interface PreparedGroup {
  g: WriteGroup
  info: TargetInfo
  newest: Newest
  scan: KeyScan
}

interface KeyScan {
  /** every row is newer than its key's stored bound and than the key's previous row in the write */
  appendOnly: boolean
  /** the newest timestamp per key in this write */
  newest: Newest
  minTs?: bigint | number
  maxTs?: bigint | number
}

/**
 * One pass over a group's rows: can they be appended without any key check, and what are the
 * new per-key bounds. Out-of-order but distinct rows answer false too (the staged path is
 * correct for every write; this only decides when the cheap one is safe).
 */
function scanKeys(g: WriteGroup, stored: Newest): KeyScan {
  const newest: Newest = new Map()
  let appendOnly = true
  let minTs: bigint | number | undefined
  let maxTs: bigint | number | undefined
  for (const b of g.batches) {
    const key = b.tid ?? 0
    let last = newest.get(key) ?? stored.get(key)
    let high = newest.get(key)
    for (const row of b.rows) {
      const ts = row[0] as bigint | number
      if (last !== undefined && !(ts > last)) {
        appendOnly = false
      }
      last = ts
      if (high === undefined || ts > high) {
        high = ts
      }
      if (minTs === undefined || ts < minTs) {
        minTs = ts
      }
      if (maxTs === undefined || ts > maxTs) {
        maxTs = ts
      }
    }
    if (high !== undefined) {
      newest.set(key, high)
    }
  }
  return { appendOnly, newest, minTs, maxTs }
}

/**
 * writeRows' last-write-wins (see DuckDBEngine): groups whose rows are all newer than their
 * keys' bounds are appended straight into their table, the others go through staging.
 */
export class RowWriter {
  /** UPDATE statements run (staged writes): each pins DuckDB's checkpoint lock after its commit (OpenReads) */
  updates = 0

  constructor(
    private readonly tables: TableCache,
    private readonly directAppend: boolean,
  ) {}

  /** `first`: groups[0] already prepared (writeRows prepares it to choose the path) */
  async writeGroups(conn: DuckDBConnection, groups: WriteGroup[], first?: PreparedGroup): Promise<number> {
    let n = 0
    for (const [i, g] of groups.entries()) {
      n += await this.writePrepared(conn, i === 0 && first !== undefined ? first : await this.prepareGroup(conn, g))
    }
    return n
  }

  /** The target's layout (every column must exist), its newest-timestamp bounds and the group's key scan. */
  async prepareGroup(conn: DuckDBConnection, g: WriteGroup): Promise<PreparedGroup> {
    const info = await this.tables.targetInfo(conn, g.schema, g.table)
    requireColumns('writeRows', info, g.child ? ['_tid', ...g.columns] : g.columns, g.schema, g.table)
    const newest = await this.tables.newestOf(conn, g.schema, g.table, g.columns[0], g.child)
    return { g, info, newest, scan: scanKeys(g, newest) }
  }

  /**
   * A write to one table whose rows only append and fit one appender flush needs no explicit
   * transaction: that flush is one DuckDB transaction of its own, all or nothing, committed
   * before closeSync returns. Skipping BEGIN and COMMIT saves two round trips to the thread
   * pool.
   */
  appendsAlone(p: PreparedGroup): boolean {
    if (!this.directAppend || !p.scan.appendOnly) {
      return false
    }
    let rows = 0
    for (const b of p.g.batches) {
      rows += b.rows.length
    }
    // appendChunks flushes after every FLUSH_ROWS rows: more would be several transactions
    return rows <= FLUSH_ROWS
  }

  /** Appends or stages the group, then raises the table's newest-timestamp bounds. */
  async writePrepared(conn: DuckDBConnection, p: PreparedGroup): Promise<number> {
    const n = this.directAppend && p.scan.appendOnly
      ? await this.appendDirect(conn, p.g, p.info)
      : await this.writeStaged(conn, p.g, p.info, p.scan)
    for (const [key, ts] of p.scan.newest) {
      const known = p.newest.get(key)
      if (known === undefined || ts > known) {
        p.newest.set(key, ts)
      }
    }
    return n
  }

  private async appendDirect(conn: DuckDBConnection, g: WriteGroup, info: TargetInfo): Promise<number> {
    return appendAll(await conn.createAppender(info.table, g.schema), sourcesFor(info, g.columns, g.child), g.batches)
  }

  /**
   * Staging path: append into a TEMP table, keep the last row per key, update the keys that
   * exist (only the columns written) and insert the others.
   */
  private async writeStaged(conn: DuckDBConnection, g: WriteGroup, info: TargetInfo, scan: KeyScan): Promise<number> {
    const qi = duckdbDialect.quoteIdent
    for (const name of this.tables.staleStaging.splice(0)) {
      await conn.run(`DROP TABLE IF EXISTS temp.main.${name}`)
    }
    const cols = g.child ? ['_tid', ...g.columns] : [...g.columns]
    const target = `${qi(g.schema)}.${qi(info.table)}`
    const skey = `${g.schema}\u0000${g.table}\u0000${cols.join('\u0000')}`
    let stg = this.tables.staging.get(skey)
    if (!stg) {
      stg = `stg_${++this.tables.stagingSeq}`
      const defs = cols.map((c) => `${qi(c)} ${info.types[info.names.indexOf(c)]}`)
      await conn.run(`CREATE OR REPLACE TEMP TABLE ${stg} (_seq BIGINT, ${defs.join(', ')})`)
      this.tables.staging.set(skey, stg)
    }
    const sources: Source[] = [{ kind: 'seq' }, ...(g.child ? [{ kind: 'tid' } as const] : [])]
    g.columns.forEach((_, index) => sources.push({ kind: 'col', index }))
    const n = await appendAll(await conn.createAppender(stg, 'main', 'temp'), sources, g.batches)
    const keys = (g.child ? [cols[0], cols[1]] : [cols[0]]).map(qi)
    const tsKey = keys[keys.length - 1]
    const rest = cols.filter((_, i) => i >= keys.length).map(qi)
    const list = cols.map(qi).join(', ')
    const latest =
      `(SELECT ${list} FROM temp.main.${stg} ` +
      `QUALIFY row_number() OVER (PARTITION BY ${keys.join(', ')} ORDER BY _seq DESC) = 1) s`
    const match = keys.map((k) => `t.${k} = s.${k}`).join(' AND ')
    // the time range lets DuckDB skip row groups by their min/max instead of joining them all
    const range = scan.minTs === undefined ? '' : ` AND t.${tsKey} BETWEEN ${scan.minTs} AND ${scan.maxTs}`
    if (rest.length > 0) {
      this.updates++
      await conn.run(
        `UPDATE ${target} AS t SET ${rest.map((c) => `${c} = s.${c}`).join(', ')} FROM ${latest} WHERE ${match}${range}`,
      )
    }
    // a shared table's rows carry their super table's `_stid` (routes.ts)
    const stid = info.stid === undefined ? { names: '', values: '' } : { names: `${qi('_stid')}, `, values: `${info.stid}, ` }
    await conn.run(
      `INSERT INTO ${target} (${stid.names}${list}) SELECT ${stid.values}${list} FROM ${latest} ` +
        `WHERE NOT EXISTS (SELECT 1 FROM ${target} t WHERE ${match}${range})`,
    )
    // left empty for the next write; a rollback restores this empty state
    await conn.run(`DELETE FROM temp.main.${stg}`)
    return n
  }
}
