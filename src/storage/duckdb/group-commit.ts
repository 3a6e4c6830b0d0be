import type { Mutex } from '../../mutex.js'
import { StorageUnavailableError } from '../errors.js'
import type { ColumnBatch } from '../types.js'
import type { DuckDBConnection } from '@duckdb/node-api'
import { appendColumnBatch } from './append-columns.js'
import { discardAppender, FLUSH_ROWS } from './appender.js'
import { duckdbDialect } from './dialect.js'
import type { Newest, TableCache, TargetInfo } from './tables.js'

/**
 * A group's bounds: members are taken in arrival order while the group stays within both (a
 * larger member goes alone). They bound one commit's latency and the transaction's local storage.
 */
export const GROUP_MAX_ROWS = 131_072
export const GROUP_MAX_BYTES = 32 * 2 ** 20

/** One caller's appendColumns, queued until a group takes it. */
export interface GroupMember {
  batches: ColumnBatch[]
  rows: number
  bytes: number
  resolve: (n: number | undefined) => void
  reject: (err: unknown) => void
}

/** A member's batch with its table's layout and newest-timestamp bounds (DuckDBEngine.planColumns). */
export interface ColumnTarget {
  b: ColumnBatch
  schema: string
  /** the physical table appended to: its name, columns and `_stid` when shared */
  info: TargetInfo
  newest: Newest
}

/**
 * The bounds of the members a group has accepted so far, per table (keyed by the table's Newest
 * map): a later member is checked against them as if the earlier ones had committed alone.
 */
export class GroupBounds {
  private readonly raised = new Map<Newest, Map<number, bigint>>()

  /** `under`: bounds this one adds to (a member's own batches over its group's) */
  constructor(private readonly under?: GroupBounds) {}

  /** the newest timestamp of `tid`, counting the group's accepted members */
  get(newest: Newest, tid: number): bigint | number | undefined {
    return this.raised.get(newest)?.get(tid) ?? (this.under !== undefined ? this.under.get(newest, tid) : newest.get(tid))
  }

  raise(targets: ColumnTarget[]): void {
    for (const { b, newest } of targets) {
      let m = this.raised.get(newest)
      if (m === undefined) {
        m = new Map()
        this.raised.set(newest, m)
      }
      for (let k = 0; k < b.tids.length; k++) {
        m.set(b.tids[k], b.last[k])
      }
    }
  }
}

function sizeOf(batches: ColumnBatch[]): { rows: number; bytes: number } {
  let rows = 0
  let bytes = 0
  for (const b of batches) {
    rows += b.count
    bytes += b.ts.byteLength + b.tids.byteLength * 2
    for (const v of b.values) {
      bytes += v.byteLength
    }
  }
  return { rows, bytes }
}

/**
 * Group commit for column appends: a call queues; one drain at a time waits for the write lock
 * and takes everything queued by then (up to the bounds) as one group. A lone call waits for no
 * company: its drain runs as soon as the lock is free. Whatever else waits for the lock
 * (checkpoints, row writes, DDL) gets its turn between groups, since a further drain queues
 * behind it.
 */
export class ColumnGroups {
  private readonly queue: GroupMember[] = []
  private scheduled = false
  /** groups written and the calls they took (members / groups: how much commits are shared) */
  readonly stats = { groups: 0, members: 0 }

  constructor(
    private readonly lock: Mutex,
    /** under the lock: writes the group and settles every member (never throws) */
    private readonly write: (members: GroupMember[]) => Promise<void>,
  ) {}

  submit(batches: ColumnBatch[]): Promise<number | undefined> {
    return new Promise((resolve, reject) => {
      this.queue.push({ batches, ...sizeOf(batches), resolve, reject })
      if (!this.scheduled) {
        this.scheduled = true
        // one event-loop turn first: a request whose bytes have arrived meanwhile (remote write at
        // concurrency 2) is parsed and joins this group, sharing its commit (bench/README.md)
        setImmediate(() => this.schedule())
      }
    })
  }

  private schedule(): void {
    void this.lock.run(() => this.drain())
  }

  private async drain(): Promise<void> {
    const group = this.take()
    this.stats.groups++
    this.stats.members += group.length
    if (this.queue.length > 0) {
      // the rest after whatever else waits for the lock now
      this.schedule()
    } else {
      this.scheduled = false
    }
    try {
      await this.write(group)
    } catch (err) {
      // write settles every member itself; this is a bug's last resort
      for (const m of group) {
        m.reject(err)
      }
    }
  }

  private take(): GroupMember[] {
    let rows = 0
    let bytes = 0
    let n = 0
    for (const m of this.queue) {
      if (n > 0 && (rows + m.rows > GROUP_MAX_ROWS || bytes + m.bytes > GROUP_MAX_BYTES)) {
        break
      }
      rows += m.rows
      bytes += m.bytes
      n++
    }
    return this.queue.splice(0, n)
  }
}

/**
 * Can `batches` be appended, every child's rows newer than its key's bound (counting the group's
 * earlier members and this member's earlier batches)? Their targets if so; undefined when a
 * table lacks a column or a row is a rewrite or older (the caller then takes the rows path).
 */
async function planColumns(tables: TableCache, conn: DuckDBConnection, batches: ColumnBatch[], bounds: GroupBounds | undefined): Promise<ColumnTarget[] | undefined> {
  const targets: ColumnTarget[] = []
  // (a member of one batch, first in its group, is checked against the stored bounds alone)
  const own = batches.length > 1 ? new GroupBounds(bounds) : bounds
  for (const b of batches) {
    const schema = duckdbDialect.schemaName(b.db)
    const info = await tables.targetInfo(conn, schema, b.table)
    if (!info.names.includes('_tid') || b.columns.some((c) => !info.names.includes(c))) {
      return undefined
    }
    const newest = await tables.newestOf(conn, schema, b.table, b.columns[0], true)
    for (let k = 0; k < b.tids.length; k++) {
      const stored = own !== undefined ? own.get(newest, b.tids[k]) : newest.get(b.tids[k])
      if (stored !== undefined && !(b.first[k] > stored)) {
        // a rewrite or an older row: the rows path stages and overwrites
        return undefined
      }
    }
    const t: ColumnTarget = { b, schema, info, newest }
    if (batches.length > 1) {
      own?.raise([t])
    }
    targets.push(t)
  }
  return targets
}

/** Appends the targets on `conn` (inside the caller's transaction): the rows written. */
async function appendTargets(conn: DuckDBConnection, targets: ColumnTarget[]): Promise<number> {
  let written = 0
  for (const t of targets) {
    written += await appendColumnBatch(await conn.createAppender(t.info.table, t.schema), t.info.names, t.b, true, t.info.stid)
  }
  return written
}

/** one table, few enough rows for one appender flush */
function isOneFlush(planned: { targets: ColumnTarget[] }[]): boolean {
  const first = planned[0].targets[0]
  let rows = 0
  for (const p of planned) {
    for (const t of p.targets) {
      if (t.schema !== first.schema || t.info.table !== first.info.table) {
        return false
      }
      rows += t.b.count
    }
  }
  return rows <= FLUSH_ROWS
}

/** Every member's rows through one appender (isOneFlush), flushed into the caller's transaction: each member's count. */
async function appendOnce(conn: DuckDBConnection, planned: { targets: ColumnTarget[] }[]): Promise<number[]> {
  const first = planned[0].targets[0]
  const appender = await conn.createAppender(first.info.table, first.schema)
  try {
    const counts: number[] = []
    for (const p of planned) {
      let n = 0
      for (const t of p.targets) {
        n += await appendColumnBatch(appender, t.info.names, t.b, false, t.info.stid)
      }
      counts.push(n)
    }
    appender.closeSync()
    return counts
  } catch (err) {
    discardAppender(appender)
    throw err
  }
}

/** After the commit: the targets' tables know their new newest timestamps. */
function raiseNewest(targets: ColumnTarget[]): void {
  for (const { b, newest } of targets) {
    for (let k = 0; k < b.tids.length; k++) {
      newest.set(b.tids[k], b.last[k])
    }
  }
}

/** What writing a group needs of the engine (the caller holds the write lock). */
export interface GroupHost {
  closed: () => boolean
  tables: TableCache
  conn: DuckDBConnection
  /** before the write: a checkpoint may be due, the write refused (DuckDBEngine.admitWrite) */
  admit: (conn: DuckDBConnection) => Promise<void>
  /** fn in one transaction; rolled back, cached layouts and bounds dropped, on failure */
  committed: <T>(fn: (conn: DuckDBConnection) => Promise<T>) => Promise<T>
  /** a failure noted (a full pool makes a checkpoint due): the error to answer with */
  failed: (err: unknown) => unknown
}

/**
 * Under the write lock: the appendColumns calls queued meanwhile, in one transaction (ColumnGroups).
 * Each member is checked as if the earlier ones had committed alone; a member whose rows are not
 * all newer answers undefined at once (it wrote nothing). Each answer comes after the commit. When
 * the group fails, each member is tried alone, so one bad batch fails only its own caller.
 */
export async function writeColumnGroup(host: GroupHost, members: GroupMember[]): Promise<void> {
  if (host.closed()) {
    for (const m of members) {
      m.reject(new StorageUnavailableError('storage engine is closed'))
    }
    return
  }
  const conn = host.conn
  try {
    await host.admit(conn)
  } catch (err) {
    for (const m of members) {
      m.reject(host.failed(err))
    }
    return
  }
  // what the accepted members raised, for the members after them
  let bounds: GroupBounds | undefined
  const planned: { m: GroupMember; targets: ColumnTarget[] }[] = []
  for (const [i, m] of members.entries()) {
    try {
      const targets = await planColumns(host.tables, conn, m.batches, bounds)
      if (targets === undefined) {
        m.resolve(undefined)
        continue
      }
      if (i < members.length - 1) {
        bounds ??= new GroupBounds()
        bounds.raise(targets)
      }
      planned.push({ m, targets })
    } catch (err) {
      m.reject(host.failed(err))
    }
  }
  if (planned.length === 0) {
    return
  }
  try {
    // always in BEGIN ... COMMIT: an appender closed alone commits inside closeSync, the WAL write
    // and its fsync on the main thread (1-3 ms a body here, more on network volumes; probes and
    // queries wait behind it, bench/README.md); COMMIT runs on DuckDB's threads. A group of one
    // table and one flush shares one appender
    const all = async (c: DuckDBConnection): Promise<number[]> => {
      const out: number[] = []
      for (const p of planned) {
        out.push(await appendTargets(c, p.targets))
      }
      return out
    }
    const counts = await host.committed(isOneFlush(planned) ? (c) => appendOnce(c, planned) : all)
    planned.forEach((p) => raiseNewest(p.targets))
    planned.forEach((p, i) => p.m.resolve(counts[i]))
    return
  } catch (err) {
    if (planned.length === 1) {
      planned[0].m.reject(host.failed(err))
      return
    }
  }
  for (const { m } of planned) {
    try {
      // planned again: the failed transaction dropped the cached bounds (committed)
      const targets = await planColumns(host.tables, conn, m.batches, undefined)
      if (targets === undefined) {
        m.resolve(undefined)
        continue
      }
      const n = await host.committed((c) => appendTargets(c, targets))
      raiseNewest(targets)
      m.resolve(n)
    } catch (err) {
      m.reject(host.failed(err))
    }
  }
}
