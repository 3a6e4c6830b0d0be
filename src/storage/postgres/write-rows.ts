import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { PoolClient } from 'pg'
import { from as copyFrom } from 'pg-copy-streams'
import type { WriteGroup } from '../write-groups.js'
import { sqlState } from './connection-errors.js'
import { copyLine } from './copy-text.js'
import { postgresDialect } from './dialect.js'

/**
 * The group's rows as COPY lines, keeping only the last row per key: PostgreSQL refuses to
 * update one row twice in a single INSERT ... ON CONFLICT, and a plain COPY would fail on the
 * duplicate anyway. Returns the number of input rows too (what writeRows reports).
 */
function groupLines(g: WriteGroup): { lines: string[]; input: number } {
  if (!mayHaveDuplicates(g)) {
    // common case (each batch in time order, one batch per table): no key bookkeeping
    const lines: string[] = []
    for (const b of g.batches) {
      const prefix = g.child ? String(b.tid) : undefined
      for (const row of b.rows) {
        lines.push(copyLine(row, prefix))
      }
    }
    return { lines, input: lines.length }
  }
  let input = 0
  const lines: string[] = []
  const index = new Map<string, number>()
  for (const b of g.batches) {
    const prefix = g.child ? String(b.tid) : undefined
    for (const row of b.rows) {
      input++
      const ts = row[0]
      const key = prefix === undefined ? String(ts) : `${prefix}|${String(ts)}`
      const line = copyLine(row, prefix)
      const at = index.get(key)
      if (at === undefined) {
        index.set(key, lines.length)
        lines.push(line)
      } else {
        // last write wins; the position of the first occurrence is as good as any
        lines[at] = line
      }
    }
  }
  return { lines, input }
}

/** false when every batch has strictly increasing timestamps and no table appears twice */
function mayHaveDuplicates(g: WriteGroup): boolean {
  const tables = new Set<number | undefined>()
  for (const b of g.batches) {
    if (tables.has(b.tid)) {
      return true
    }
    tables.add(b.tid)
    let prev: unknown
    for (const row of b.rows) {
      const ts = row[0]
      if ((typeof ts !== 'bigint' && typeof ts !== 'number') || (prev !== undefined && !((prev as bigint) < ts))) {
        return true
      }
      prev = ts
    }
  }
  return false
}

/** COPY input in ~64 KiB pieces: one string per row would cost a stream write each. */
function* chunkLines(lines: string[]): Generator<string> {
  let buf = ''
  for (const l of lines) {
    buf += l
    if (buf.length >= 65_536) {
      yield buf
      buf = ''
    }
  }
  if (buf.length > 0) {
    yield buf
  }
}

/**
 * writeRows' groups COPYed with overwrite semantics: straight into the target while keys are
 * new, through a staging table and INSERT ... ON CONFLICT once one already exists.
 */
export class CopyWriter {
  private readonly recentConflicts = new Map<string, number>()
  private stagingSeq = 0

  constructor(private readonly optimisticCopy: boolean) {}

  /** Inside a transaction on `c`: every group COPYed, with overwrite semantics. */
  async writeGroups(c: PoolClient, groups: WriteGroup[]): Promise<number> {
    const qi = postgresDialect.quoteIdent
    let n = 0
    for (const g of groups) {
      const { lines, input } = groupLines(g)
      n += input
      const cols = g.child ? ['_tid', ...g.columns] : [...g.columns]
      const target = `${qi(g.schema)}.${qi(g.table)}`
      const colList = cols.map(qi).join(', ')
      const conflictKey = `${g.schema}.${g.table}`
      const last = this.recentConflicts.get(conflictKey)
      if (this.optimisticCopy && (last === undefined || Date.now() - last > 10_000)) {
        // Fast path: new keys are the common case. An overwrite of an existing key violates the
        // primary key; only then is this group redone through staging + ON CONFLICT.
        await c.query('SAVEPOINT dba_copy')
        try {
          await pipeline(Readable.from(chunkLines(lines)), c.query(copyFrom(`COPY ${target} (${colList}) FROM STDIN`)))
          await c.query('RELEASE SAVEPOINT dba_copy')
          continue
        } catch (err) {
          if (sqlState(err) !== '23505') {
            throw err
          }
          await c.query('ROLLBACK TO SAVEPOINT dba_copy')
          this.recentConflicts.set(conflictKey, Date.now())
        }
      }
      const keys = g.child ? [cols[0], cols[1]] : [cols[0]]
      const rest = cols.filter((x) => !keys.includes(x))
      const stg = `dba_stg_${++this.stagingSeq}`
      // same column types as the target, whatever DDL another replica ran meanwhile
      await c.query(`CREATE TEMP TABLE ${stg} ON COMMIT DROP AS SELECT ${colList} FROM ${target} WITH NO DATA`)
      await pipeline(Readable.from(chunkLines(lines)), c.query(copyFrom(`COPY ${stg} (${colList}) FROM STDIN`)))
      const conflict = rest.length
        ? `DO UPDATE SET ${rest.map((x) => `${qi(x)} = EXCLUDED.${qi(x)}`).join(', ')}`
        : 'DO NOTHING'
      await c.query(
        `INSERT INTO ${target} (${colList}) SELECT ${colList} FROM ${stg} ON CONFLICT (${keys.map(qi).join(', ')}) ${conflict}`,
      )
      await c.query(`DROP TABLE ${stg}`)
    }
    return n
  }
}
