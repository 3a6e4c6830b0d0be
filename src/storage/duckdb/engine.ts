import { AsyncLocalStorage } from 'node:async_hooks'
import { statSync } from 'node:fs'
import {
  DuckDBAppender,
  DuckDBConnection,
  DuckDBDataChunk,
  DuckDBInstance,
  DuckDBTypeId,
  JSDuckDBValueConverter,
} from '@duckdb/node-api'
import type { DuckDBType, DuckDBValue } from '@duckdb/node-api'
import type { ColumnBatch, Dialect, Engine, NumericChunk, QueryOptions, RowBatch, RowChunk } from '../types.js'
import { concatNumeric, numericChunk } from './numeric-chunk.js'
import { duckdbDialect } from './dialect.js'
import { groupBatches, type WriteGroup } from '../write-groups.js'
import { yieldToEventLoop } from '../../event-loop.js'
import { Mutex } from '../../mutex.js'
import bindings from '@duckdb/node-bindings'

export interface DuckDBEngineOptions {
  /** read connections kept open (writes use one dedicated connection); default 4 */
  readConnections?: number
  /**
   * Append rows that are all newer than their table's newest row straight into the table
   * (default true). false sends every write through staging + update/insert; kept for tests.
   */
  directAppend?: boolean
  /** WAL size (bytes) from which the engine checkpoints a file database; default 16 MiB (tests: smaller) */
  checkpointWalBytes?: number
}

/**
 * DuckDB checkpoints by itself when a commit finds the WAL past `checkpoint_threshold` (16 MiB),
 * inside that commit. A one-flush append commits in the appender's closeSync on the main thread,
 * so a checkpoint there blocked the event loop for 60-70 ms every few seconds of ingest (probes
 * and queries waited). The engine turns that off and checkpoints on its own, asynchronously, on
 * the write connection between writes.
 */
const CHECKPOINT_WAL_BYTES = 16 * 1024 * 1024
/** DuckDB's own threshold, out of the way of the engine's (not infinite: a fallback should ours stop) */
const DUCKDB_CHECKPOINT_THRESHOLD = '1GiB'
/**
 * A plain CHECKPOINT gives up when it cannot take DuckDB's checkpoint lock at once (open reads
 * did not stop it in DuckDB 1.5; a write on another connection would); past this many times
 * the engine's threshold the engine uses FORCE CHECKPOINT, which waits for the lock instead
 */
const FORCE_CHECKPOINT_FACTOR = 4

/** Bounded pool of read connections; callers wait when all are busy. */
class ConnectionPool {
  private readonly idle: DuckDBConnection[] = []
  private readonly waiters: ((c: DuckDBConnection) => void)[] = []
  private created = 0

  constructor(
    private readonly instance: DuckDBInstance,
    private readonly max: number,
  ) {}

  async acquire(): Promise<DuckDBConnection> {
    const c = this.idle.pop()
    if (c) {
      return c
    }
    if (this.created < this.max) {
      this.created++
      try {
        return await this.instance.connect()
      } catch (err) {
        this.created--
        throw err
      }
    }
    return new Promise((resolve) => this.waiters.push(resolve))
  }

  release(c: DuckDBConnection): void {
    const w = this.waiters.shift()
    if (w) {
      w(c)
    } else {
      this.idle.push(c)
    }
  }

  stats(): { total: number; idle: number; waiting: number } {
    return { total: this.created, idle: this.idle.length, waiting: this.waiters.length }
  }

  closeAll(): void {
    for (const c of this.idle.splice(0)) {
      c.closeSync()
    }
  }
}

const DDL_RE = /^\s*(create|drop|alter)\b/i

type Coerce = (v: unknown) => DuckDBValue

const toNumber = (v: unknown): number => (typeof v === 'number' ? v : Number(v))
const toBigint = (v: unknown): bigint => (typeof v === 'bigint' ? v : BigInt(v as number))
const toBool = (v: unknown): boolean => (typeof v === 'boolean' ? v : Number(v) !== 0)

/**
 * A fixed-width column filled in a typed array and copied into the chunk's vector in one call:
 * the library's per-value `setItem` path cost several times the copy (measured in appendChunks).
 */
interface FixedColumn {
  make: (n: number) => Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array | Float32Array | Float64Array | BigInt64Array | BigUint64Array
  set: (a: ArrayLike<unknown> & { [i: number]: unknown }, i: number, v: unknown) => void
}

const setNumber: FixedColumn['set'] = (a, i, v) => {
  ;(a as Float64Array)[i] = toNumber(v)
}
const setBigint: FixedColumn['set'] = (a, i, v) => {
  ;(a as BigInt64Array)[i] = toBigint(v)
}

const FIXED: Partial<Record<DuckDBTypeId, FixedColumn>> = {
  [DuckDBTypeId.BOOLEAN]: { make: (n) => new Uint8Array(n), set: (a, i, v) => ((a as Uint8Array)[i] = toBool(v) ? 1 : 0) },
  [DuckDBTypeId.TINYINT]: { make: (n) => new Int8Array(n), set: setNumber },
  [DuckDBTypeId.SMALLINT]: { make: (n) => new Int16Array(n), set: setNumber },
  [DuckDBTypeId.INTEGER]: { make: (n) => new Int32Array(n), set: setNumber },
  [DuckDBTypeId.UTINYINT]: { make: (n) => new Uint8Array(n), set: setNumber },
  [DuckDBTypeId.USMALLINT]: { make: (n) => new Uint16Array(n), set: setNumber },
  [DuckDBTypeId.UINTEGER]: { make: (n) => new Uint32Array(n), set: setNumber },
  [DuckDBTypeId.FLOAT]: { make: (n) => new Float32Array(n), set: setNumber },
  [DuckDBTypeId.DOUBLE]: { make: (n) => new Float64Array(n), set: setNumber },
  [DuckDBTypeId.BIGINT]: { make: (n) => new BigInt64Array(n), set: setBigint },
  [DuckDBTypeId.UBIGINT]: { make: (n) => new BigUint64Array(n), set: setBigint },
}

/** How one non-null JS value becomes the DuckDB value of a column of the given type (other types). */
function coercerFor(typeId: DuckDBTypeId): Coerce {
  switch (typeId) {
    case DuckDBTypeId.HUGEINT:
      return toBigint
    case DuckDBTypeId.VARCHAR:
      return (v) => (typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v))
    default:
      throw new Error(`writeRows: unsupported physical column type id ${typeId}`)
  }
}

/** Where an appended column's values come from. */
type Source = { kind: 'tid' } | { kind: 'seq' } | { kind: 'null' } | { kind: 'col'; index: number }

/** Rows per appended data chunk: DuckDB's vector size. */
const CHUNK_ROWS = 2048

/**
 * Rows between explicit flushes of the appender into the table. A flush runs on the main thread
 * and costs about 0.35 ms however few rows it carries, plus ~0.1 us per row: flushing every
 * 1024-row chunk spent more time there than in the appending itself (1.1M vs 2.3M rows/s in a
 * direct DuckDB measurement), while one flush per 16,384 rows blocks the event loop about 2 ms
 * (DuckDB's own automatic flush, at 204,800 rows, would block ~20 ms).
 */
const FLUSH_ROWS = 16_384

/** One column of the chunk being filled: a typed array (fixed width) or values (the rest). */
interface ColumnFill {
  fixed: FixedColumn | undefined
  data: ReturnType<FixedColumn['make']> | DuckDBValue[]
  coerce: Coerce | undefined
  /** row indexes of NULLs in the current chunk (fixed-width columns) */
  nulls: number[]
}

/**
 * Appends every row of the batches column-wise, one data chunk of CHUNK_ROWS rows at a time,
 * giving the event loop a turn between chunks. Fixed-width columns go into the chunk's vectors
 * as whole buffers. The caller's close flushes what is left.
 */
async function appendChunks(appender: DuckDBAppender, sources: Source[], batches: RowBatch[]): Promise<number> {
  const types: DuckDBType[] = sources.map((_, i) => appender.columnType(i))
  const width = sources.length
  const fills: ColumnFill[] = types.map((t) => {
    const fixed = FIXED[t.typeId]
    return fixed
      ? { fixed, data: fixed.make(CHUNK_ROWS), coerce: undefined, nulls: [] }
      : { fixed: undefined, data: new Array<DuckDBValue>(CHUNK_ROWS), coerce: coercerFor(t.typeId), nulls: [] }
  })
  let fill = 0
  let seq = 0
  let chunks = 0
  const appendChunk = (): void => {
    if (fill === 0) {
      return
    }
    const chunk = DuckDBDataChunk.create(types, fill)
    for (let j = 0; j < width; j++) {
      const f = fills[j]
      if (f.fixed === undefined) {
        const values = f.data as DuckDBValue[]
        chunk.setColumnValues(j, fill === CHUNK_ROWS ? values : values.slice(0, fill))
        continue
      }
      const data = f.data as Exclude<ColumnFill['data'], DuckDBValue[]>
      const vector = bindings.data_chunk_get_vector(chunk.chunk, j)
      bindings.copy_data_to_vector(vector, 0, data.buffer as ArrayBuffer, data.byteOffset, fill * data.BYTES_PER_ELEMENT)
      if (f.nulls.length > 0) {
        const mask = validityMask(fill, true)
        for (const r of f.nulls) {
          mask[r >> 3] &= ~(1 << (r & 7))
        }
        copyValidity(vector, mask)
        f.nulls = []
      }
    }
    appender.appendDataChunk(chunk)
    chunks++
    if (chunks % (FLUSH_ROWS / CHUNK_ROWS) === 0) {
      appender.flushSync()
    }
    fill = 0
  }
  let n = 0
  for (const b of batches) {
    const tid = b.tid ?? 0
    for (const row of b.rows) {
      for (let j = 0; j < width; j++) {
        const src = sources[j]
        let v: unknown
        if (src.kind === 'col') {
          v = row[src.index]
        } else if (src.kind === 'tid') {
          v = tid
        } else if (src.kind === 'seq') {
          v = seq
        } else {
          v = null
        }
        const f = fills[j]
        if (f.fixed !== undefined) {
          if (v === null || v === undefined) {
            f.nulls.push(fill)
            // a reused buffer may hold an older value here; the validity bit hides it
          } else {
            f.fixed.set(f.data as Float64Array, fill, v)
          }
        } else {
          ;(f.data as DuckDBValue[])[fill] = v === null || v === undefined ? null : (f.coerce as Coerce)(v)
        }
      }
      seq++
      if (++fill === CHUNK_ROWS) {
        appendChunk()
        await yieldToEventLoop()
      }
    }
    n += b.rows.length
  }
  appendChunk()
  if (chunks > 1) {
    await yieldToEventLoop()
  }
  return n
}

interface TargetInfo {
  /** physical column names in table order */
  names: string[]
  /** physical type declarations in table order, e.g. `BIGINT` */
  types: string[]
}

function requireColumns(caller: string, info: TargetInfo, columns: string[], schema: string, table: string): void {
  for (const c of columns) {
    if (!info.names.includes(c)) {
      throw new Error(`${caller}: column ${c} not in ${schema}.${table}`)
    }
  }
}

/** Where each of the target's columns comes from: `_tid` of a child's batch, a given column, or NULL. */
function sourcesFor(info: TargetInfo, columns: string[], child: boolean): Source[] {
  return info.names.map((name) => {
    if (child && name === '_tid') {
      return { kind: 'tid' }
    }
    const index = columns.indexOf(name)
    return index < 0 ? { kind: 'null' } : { kind: 'col', index }
  })
}


/** A transaction context: the connection that statements inside `transaction(fn)` must use. */
interface TxContext {
  conn: DuckDBConnection
}

/** Primary timestamp per key (`_tid`, or 0 for a normal table): an upper bound of what is stored. */
type Newest = Map<number, bigint | number>

/**
 * Embedded DuckDB behind the `Engine` contract.
 *
 * Reads run on a small pool of connections. Every write (exec, writeRows, transaction) runs on
 * one dedicated connection under a mutex: DuckDB allows a single writer per row anyway and
 * concurrent writers would just fail with transaction conflicts. Inside `transaction(fn)`, calls
 * on this engine (not only on `tx`) are routed to the transaction's connection via
 * AsyncLocalStorage, so code that forgets to use `tx` neither deadlocks nor escapes the
 * transaction.
 *
 * Data tables have no PRIMARY KEY (see the dialect's `dataTableKey`); this engine keeps
 * (`_tid`, ts) unique. It remembers, per data table and key, an upper bound of the newest
 * timestamp stored (loaded with one GROUP BY on the first write after start or DDL). Rows that
 * are strictly newer and strictly increasing per key cannot collide with anything and are
 * appended directly; any other write goes through staging, where existing keys are updated and
 * new ones inserted. The bound is only ever raised between loads, so it stays an upper bound
 * even when a transaction rolls back; rows reach data tables only through `writeRows`.
 */
export class DuckDBEngine implements Engine {
  readonly dialect: Dialect = duckdbDialect
  private readonly pool: ConnectionPool
  private readonly writeLock = new Mutex()
  private readonly txStore = new AsyncLocalStorage<TxContext>()
  private closed = false
  /** bumped by DDL on the write connection; invalidates cached table layouts and staging tables */
  private schemaEpoch = 0
  private cacheEpoch = 0
  private readonly targets = new Map<string, TargetInfo>()
  private readonly newest = new Map<string, Newest>()
  private readonly staging = new Map<string, string>()
  /** forgotten staging tables, dropped at the next staged write (on the write connection) */
  private staleStaging: string[] = []
  private stagingSeq = 0

  /** the running checkpoint (see CHECKPOINT_WAL_BYTES), if any */
  private checkpointing: Promise<void> | undefined
  private readonly checkpoints = { done: 0, failed: 0 }

  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly writeConn: DuckDBConnection,
    readConnections: number,
    private readonly directAppend: boolean,
    /** the WAL of a file database (undefined in memory) */
    private readonly walPath: string | undefined,
    private readonly checkpointWalBytes: number,
  ) {
    this.pool = new ConnectionPool(instance, readConnections)
  }

  static async open(path: string, opts: DuckDBEngineOptions = {}): Promise<DuckDBEngine> {
    const inMemory = path === ':memory:' || path === ''
    const instance = await DuckDBInstance.create(path, inMemory ? {} : { checkpoint_threshold: DUCKDB_CHECKPOINT_THRESHOLD })
    const writeConn = await instance.connect()
    return new DuckDBEngine(
      instance,
      writeConn,
      Math.max(1, opts.readConnections ?? 4),
      opts.directAppend ?? true,
      inMemory ? undefined : `${path}.wal`,
      opts.checkpointWalBytes ?? CHECKPOINT_WAL_BYTES,
    )
  }

  /**
   * Starts a checkpoint on the write connection, after the writes queued before it, once the
   * WAL has grown past the threshold. One that fails is tried again after a later write.
   * Writers do not wait for it.
   */
  private checkpointIfDue(): void {
    if (this.walPath === undefined || this.checkpointing !== undefined || this.closed) {
      return
    }
    const size = this.walBytes()
    if (size < this.checkpointWalBytes) {
      return
    }
    const sql = size >= FORCE_CHECKPOINT_FACTOR * this.checkpointWalBytes ? 'FORCE CHECKPOINT' : 'CHECKPOINT'
    this.checkpointing = this.writeLock
      .run(async () => {
        if (!this.closed) {
          await this.writeConn.run(sql)
          this.checkpoints.done++
        }
      })
      .catch(() => {
        // the checkpoint lock was taken: a later write tries again (FORCE once the WAL is large)
        this.checkpoints.failed++
      })
      .finally(() => {
        this.checkpointing = undefined
      })
  }

  private assertOpen(): void {
    if (this.closed) {
      throw new Error('storage engine is closed')
    }
  }

  private noteDdl(sql: string): void {
    if (DDL_RE.test(sql)) {
      this.schemaEpoch++
    }
  }

  /** Runs fn on the write connection: inside the current transaction, or under the write lock. */
  private async onWriter<T>(fn: (c: DuckDBConnection) => Promise<T>): Promise<T> {
    this.assertOpen()
    const tx = this.txStore.getStore()
    if (tx) {
      return fn(tx.conn)
    }
    return this.writeLock.run(() => fn(this.writeConn))
  }

  private async onReader<T>(fn: (c: DuckDBConnection) => Promise<T>): Promise<T> {
    this.assertOpen()
    const tx = this.txStore.getStore()
    if (tx) {
      return fn(tx.conn)
    }
    const c = await this.pool.acquire()
    try {
      return await fn(c)
    } finally {
      this.pool.release(c)
    }
  }

  async exec(sql: string, opts?: QueryOptions): Promise<number> {
    const n = await this.onWriter((c) => execOn(c, sql, opts, () => this.noteDdl(sql)))
    if (!this.txStore.getStore()) {
      this.checkpointIfDue()
    }
    return n
  }

  async query(sql: string, opts?: QueryOptions): Promise<unknown[][]> {
    return this.onReader(async (c) => {
      const stop = watchAbort(c, opts?.signal)
      try {
        const r = await c.run(sql)
        return (await r.convertRows(JSDuckDBValueConverter)) as unknown[][]
      } finally {
        stop()
      }
    })
  }

  stream(sql: string, opts?: QueryOptions): AsyncIterable<RowChunk> {
    return this.streamChunks(sql, opts, false) as AsyncIterable<RowChunk>
  }

  streamNumeric(sql: string, opts?: QueryOptions): AsyncIterable<RowChunk | NumericChunk> {
    return this.streamChunks(sql, opts, true)
  }

  private async *streamChunks(sql: string, opts: QueryOptions | undefined, numeric: boolean): AsyncIterable<RowChunk | NumericChunk> {
    this.assertOpen()
    const tx = this.txStore.getStore()
    const c = tx ? tx.conn : await this.pool.acquire()
    let stop = (): void => {}
    try {
      // inside the try: an already-aborted signal throws here and must still release c
      stop = watchAbort(c, opts?.signal)
      yield* streamOn(c, sql, opts, numeric)
    } finally {
      stop()
      if (!tx) {
        this.pool.release(c)
      }
    }
  }

  async transaction<T>(fn: (tx: Engine) => Promise<T>): Promise<T> {
    this.assertOpen()
    const outer = this.txStore.getStore()
    if (outer) {
      // DuckDB has no savepoints: a nested transaction joins the outer one
      return fn(this)
    }
    const result = await this.writeLock.run(() => this.committed((conn) => this.txStore.run({ conn }, () => fn(this))))
    this.checkpointIfDue()
    return result
  }

  /**
   * Runs fn in one transaction on the write connection (the caller holds the write lock). On
   * failure it rolls back and drops the cached layouts: a failed DDL may have left them stale,
   * and staging tables created inside the transaction no longer exist.
   */
  private async committed<T>(fn: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
    const conn = this.writeConn
    await conn.run('BEGIN TRANSACTION')
    try {
      const result = await fn(conn)
      await conn.run('COMMIT')
      return result
    } catch (err) {
      await rollbackQuietly(conn)
      this.schemaEpoch++
      throw err
    }
  }

  async writeRows(batches: RowBatch[]): Promise<number> {
    this.assertOpen()
    const groups = groupBatches(batches, (db) => this.dialect.schemaName(db))
    if (groups.length === 0) {
      return 0
    }
    const tx = this.txStore.getStore()
    if (tx) {
      return this.writeGroups(tx.conn, groups)
    }
    const n = await this.writeLock.run(async () => {
      const conn = this.writeConn
      const first = await this.prepareGroup(conn, groups[0])
      if (groups.length === 1 && this.appendsAlone(first)) {
        return this.writePrepared(conn, first)
      }
      return this.committed((c) => this.writeGroups(c, groups, first))
    })
    this.checkpointIfDue()
    return n
  }

  async appendColumns(batches: ColumnBatch[]): Promise<number | undefined> {
    this.assertOpen()
    if (this.txStore.getStore() !== undefined || !this.directAppend) {
      return undefined
    }
    const live = batches.filter((b) => b.count > 0)
    if (live.length === 0) {
      return 0
    }
    const n = await this.writeLock.run(async () => {
      const conn = this.writeConn
      const targets: { b: ColumnBatch; schema: string; names: string[]; newest: Newest }[] = []
      for (const b of live) {
        const schema = this.dialect.schemaName(b.db)
        const info = await this.targetInfo(conn, schema, b.table)
        if (!info.names.includes('_tid') || b.columns.some((c) => !info.names.includes(c))) {
          return undefined
        }
        const newest = await this.newestOf(conn, schema, b.table, b.columns[0], true)
        for (let k = 0; k < b.tids.length; k++) {
          const stored = newest.get(b.tids[k])
          if (stored !== undefined && !(b.first[k] > stored)) {
            // a rewrite or an older row: the rows path stages and overwrites
            return undefined
          }
        }
        targets.push({ b, schema, names: info.names, newest })
      }
      const appendEach = async (c: DuckDBConnection): Promise<number> => {
        let written = 0
        for (const t of targets) {
          written += await appendColumnBatch(await c.createAppender(t.b.table, t.schema), t.names, t.b)
        }
        return written
      }
      const rows = live.reduce((s, b) => s + b.count, 0)
      // one appender flush is a transaction of its own (see appendsAlone)
      const written = targets.length === 1 && rows <= FLUSH_ROWS ? await appendEach(conn) : await this.committed(appendEach)
      for (const { b, newest } of targets) {
        for (let k = 0; k < b.tids.length; k++) {
          newest.set(b.tids[k], b.last[k])
        }
      }
      return written
    })
    if (n !== undefined) {
      this.checkpointIfDue()
    }
    return n
  }

  /**
   * Through an appender: the catalog and tag rows of 1000 new child tables took ~45 ms as 500-row
   * INSERT ... VALUES statements (DuckDB binds every literal); the first write of 1000 new series
   * got ~40 ms faster this way.
   */
  async insertRows(schema: string, table: string, columns: string[], rows: unknown[][]): Promise<number> {
    if (rows.length === 0) {
      return 0
    }
    return this.onWriter(async (conn) => {
      const info = await this.targetInfo(conn, schema, table)
      requireColumns('insertRows', info, columns, schema, table)
      const sources = sourcesFor(info, columns, false)
      // a data table's newest-timestamp bounds would not know these rows: read them again
      this.newest.delete(`${schema}\u0000${table}`)
      const append = async (c: DuckDBConnection): Promise<number> =>
        appendAll(await c.createAppender(table, schema), sources, [{ db: '', table, columns, rows }])
      // outside a transaction, one appender flush is one transaction of its own (see appendsAlone)
      return this.txStore.getStore() !== undefined || rows.length <= FLUSH_ROWS ? append(conn) : this.committed(append)
    })
  }

  /** `first`: groups[0] already prepared (writeRows prepares it to choose the path) */
  private async writeGroups(conn: DuckDBConnection, groups: WriteGroup[], first?: PreparedGroup): Promise<number> {
    let n = 0
    for (const [i, g] of groups.entries()) {
      n += await this.writePrepared(conn, i === 0 && first !== undefined ? first : await this.prepareGroup(conn, g))
    }
    return n
  }

  /** The target's layout (every column must exist), its newest-timestamp bounds and the group's key scan. */
  private async prepareGroup(conn: DuckDBConnection, g: WriteGroup): Promise<PreparedGroup> {
    const info = await this.targetInfo(conn, g.schema, g.table)
    requireColumns('writeRows', info, g.child ? ['_tid', ...g.columns] : g.columns, g.schema, g.table)
    const newest = await this.newestOf(conn, g.schema, g.table, g.columns[0], g.child)
    return { g, info, newest, scan: scanKeys(g, newest) }
  }

  /**
   * A write to one table whose rows only append and fit one appender flush needs no explicit
   * transaction: that flush is one DuckDB transaction of its own, all or nothing, committed
   * before closeSync returns. Skipping BEGIN and COMMIT saves two round trips to the thread
   * pool: 10,000-row INSERTs reached 0.56-0.58 of raw DuckDB's rate instead of 0.48-0.50, and
   * 5000-line line-protocol writes one at a time ~10% more points/s.
   */
  private appendsAlone(p: PreparedGroup): boolean {
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
  private async writePrepared(conn: DuckDBConnection, p: PreparedGroup): Promise<number> {
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

  private async targetInfo(conn: DuckDBConnection, schema: string, table: string): Promise<TargetInfo> {
    this.syncCaches()
    const key = `${schema}\u0000${table}`
    let info = this.targets.get(key)
    if (!info) {
      const q = this.dialect.quoteString
      const r = await conn.run(
        `SELECT column_name, data_type FROM duckdb_columns() WHERE database_name = current_database() AND schema_name = ${q(schema)} AND table_name = ${q(table)} ORDER BY column_index`,
      )
      const rows = (await r.convertRows(JSDuckDBValueConverter)) as [string, string][]
      if (rows.length === 0) {
        throw new Error(`writeRows: table ${schema}.${table} does not exist`)
      }
      info = { names: rows.map((x) => x[0]), types: rows.map((x) => x[1]) }
      this.targets.set(key, info)
    }
    return info
  }

  /** The newest-timestamp bounds of a table (per `_tid` for a super table's), read from the table on first use. */
  private async newestOf(conn: DuckDBConnection, schema: string, table: string, tsColumn: string, child: boolean): Promise<Newest> {
    const key = `${schema}\u0000${table}`
    let newest = this.newest.get(key)
    if (!newest) {
      const qi = this.dialect.quoteIdent
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

  private async appendDirect(conn: DuckDBConnection, g: WriteGroup, info: TargetInfo): Promise<number> {
    return appendAll(await conn.createAppender(g.table, g.schema), sourcesFor(info, g.columns, g.child), g.batches)
  }

  /**
   * Staging path: append into a TEMP table, keep the last row per key, update the keys that
   * exist (only the columns written) and insert the others.
   */
  private async writeStaged(conn: DuckDBConnection, g: WriteGroup, info: TargetInfo, scan: KeyScan): Promise<number> {
    const qi = this.dialect.quoteIdent
    for (const name of this.staleStaging.splice(0)) {
      await conn.run(`DROP TABLE IF EXISTS temp.main.${name}`)
    }
    const cols = g.child ? ['_tid', ...g.columns] : [...g.columns]
    const target = `${qi(g.schema)}.${qi(g.table)}`
    const skey = `${g.schema}\u0000${g.table}\u0000${cols.join('\u0000')}`
    let stg = this.staging.get(skey)
    if (!stg) {
      stg = `stg_${++this.stagingSeq}`
      const defs = cols.map((c) => `${qi(c)} ${info.types[info.names.indexOf(c)]}`)
      await conn.run(`CREATE OR REPLACE TEMP TABLE ${stg} (_seq BIGINT, ${defs.join(', ')})`)
      this.staging.set(skey, stg)
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
      await conn.run(
        `UPDATE ${target} AS t SET ${rest.map((c) => `${c} = s.${c}`).join(', ')} FROM ${latest} WHERE ${match}${range}`,
      )
    }
    await conn.run(
      `INSERT INTO ${target} (${list}) SELECT ${list} FROM ${latest} ` +
        `WHERE NOT EXISTS (SELECT 1 FROM ${target} t WHERE ${match}${range})`,
    )
    // left empty for the next write; a rollback restores this empty state
    await conn.run(`DELETE FROM temp.main.${stg}`)
    return n
  }

  async healthy(): Promise<boolean> {
    if (this.closed) {
      return false
    }
    try {
      await this.query('SELECT 1')
      return true
    } catch {
      return false
    }
  }

  /** the WAL's size in bytes (0 in memory, or when there is none) */
  private walBytes(): number {
    if (this.walPath === undefined) {
      return 0
    }
    try {
      return statSync(this.walPath).size
    } catch {
      return 0
    }
  }

  /** the WAL and the engine's checkpoints since start (/metrics); undefined in memory */
  checkpointStats(): { walBytes: number; done: number; failed: number } | undefined {
    return this.walPath === undefined ? undefined : { walBytes: this.walBytes(), ...this.checkpoints }
  }

  /** the read-connection pool (writes have one connection of their own) */
  poolStats(): { total: number; idle: number; waiting: number } {
    return this.pool.stats()
  }

  async close(): Promise<void> {
    if (this.closed) {
      return
    }
    await this.writeLock.run(async () => {
      this.closed = true
      try {
        await this.writeConn.run('CHECKPOINT')
      } catch {
        // in-memory databases and read-only files have nothing to checkpoint
      }
      this.writeConn.closeSync()
      this.pool.closeAll()
      this.instance.closeSync()
    })
  }
}

async function execOn(
  c: DuckDBConnection,
  sql: string,
  opts: QueryOptions | undefined,
  after: () => void,
): Promise<number> {
  const stop = watchAbort(c, opts?.signal)
  try {
    const r = await c.run(sql)
    return r.rowsChanged
  } finally {
    stop()
    after()
  }
}

/**
 * The result in chunks of about `opts.chunkRows` rows. With `numeric`, DuckDB chunks whose
 * columns are all numeric come as NumericChunk (several merged up to the target), the others
 * as rows, in result order.
 */
async function* streamOn(c: DuckDBConnection, sql: string, opts: QueryOptions | undefined, numeric: boolean): AsyncGenerator<RowChunk | NumericChunk> {
  const target = Math.max(1, opts?.chunkRows ?? 4096)
  const result = await c.stream(sql)
  let buf: unknown[][] = []
  let columns: NumericChunk[] = []
  let columnRows = 0
  for (;;) {
    if (opts?.signal?.aborted) {
      throw opts.signal.reason instanceof Error ? opts.signal.reason : new Error('query aborted')
    }
    const chunk = await result.fetchChunk()
    if (!chunk || chunk.rowCount === 0) {
      break
    }
    const asColumns = numeric && buf.length === 0 ? numericChunk(chunk) : undefined
    if (asColumns !== undefined) {
      columns.push(asColumns)
      columnRows += asColumns.rowCount
      if (columnRows >= target) {
        yield concatNumeric(columns)
        columns = []
        columnRows = 0
      }
      continue
    }
    if (columns.length > 0) {
      yield concatNumeric(columns)
      columns = []
      columnRows = 0
    }
    const rows = chunkRows(chunk)
    if (buf.length === 0 && rows.length >= target) {
      // common case: DuckDB's own chunk (2048 rows) already fills a chunk
      for (let i = 0; i < rows.length; i += target) {
        yield i === 0 && rows.length <= target ? rows : rows.slice(i, i + target)
      }
      continue
    }
    for (const r of rows) {
      buf.push(r)
      if (buf.length >= target) {
        yield buf
        buf = []
      }
    }
  }
  if (columns.length > 0) {
    yield concatNumeric(columns)
  }
  if (buf.length > 0) {
    yield buf
  }
}

/**
 * Types whose vector items already are what JSDuckDBValueConverter returns (number, bigint,
 * string, boolean): for them the converter is the identity, so it is skipped.
 */
const PLAIN_TYPES = new Set<DuckDBTypeId>([
  DuckDBTypeId.BOOLEAN,
  DuckDBTypeId.TINYINT,
  DuckDBTypeId.SMALLINT,
  DuckDBTypeId.INTEGER,
  DuckDBTypeId.BIGINT,
  DuckDBTypeId.UTINYINT,
  DuckDBTypeId.USMALLINT,
  DuckDBTypeId.UINTEGER,
  DuckDBTypeId.UBIGINT,
  DuckDBTypeId.FLOAT,
  DuckDBTypeId.DOUBLE,
  DuckDBTypeId.HUGEINT,
  DuckDBTypeId.VARCHAR,
])

/**
 * `chunk.convertRows(JSDuckDBValueConverter)`, column by column: the library's row-wise version
 * asks the native side for the column count and each vector's type once per row and calls the
 * converter per value, which dominated CPU time when streaming large results.
 */
export function chunkRows(chunk: DuckDBDataChunk): unknown[][] {
  const n = chunk.rowCount
  const width = chunk.columnCount
  const rows = new Array<unknown[]>(n)
  for (let r = 0; r < n; r++) {
    rows[r] = new Array<unknown>(width)
  }
  for (let c = 0; c < width; c++) {
    const vector = chunk.getColumnVector(c)
    const type = vector.type
    if (PLAIN_TYPES.has(type.typeId)) {
      for (let r = 0; r < n; r++) {
        rows[r][c] = vector.getItem(r) ?? null
      }
    } else {
      for (let r = 0; r < n; r++) {
        rows[r][c] = JSDuckDBValueConverter(vector.getItem(r), type, JSDuckDBValueConverter)
      }
    }
  }
  return rows
}

/** Interrupts the running statement when the signal fires; returns the unsubscribe function. */
function watchAbort(c: DuckDBConnection, signal?: AbortSignal): () => void {
  if (!signal) {
    return () => {}
  }
  if (signal.aborted) {
    throw signal.reason instanceof Error ? signal.reason : new Error('query aborted')
  }
  const onAbort = (): void => c.interrupt()
  signal.addEventListener('abort', onAbort, { once: true })
  return () => signal.removeEventListener('abort', onAbort)
}

/** Where a physical column's values come from in a ColumnBatch. */
type ColumnSource = { kind: 'tid' } | { kind: 'ts' } | { kind: 'null' } | { kind: 'value'; index: number }

/**
 * Appends a ColumnBatch through `appender` (its table's columns are `names`) a chunk at a time,
 * each column copied from its typed array into the chunk's vector in one call; then closes it.
 */
async function appendColumnBatch(appender: DuckDBAppender, names: string[], b: ColumnBatch): Promise<number> {
  try {
    const width = appender.columnCount
    const types: DuckDBType[] = []
    const sources: ColumnSource[] = []
    for (let j = 0; j < width; j++) {
      const type = appender.columnType(j)
      const name = names[j]
      types.push(type)
      const fixed = FIXED[type.typeId]
      if (name === '_tid') {
        sources.push({ kind: 'tid' })
        continue
      }
      const at = b.columns.indexOf(name)
      if (at < 0) {
        sources.push({ kind: 'null' })
        continue
      }
      const data = at === 0 ? b.ts : b.values[at - 1]
      if (fixed === undefined || fixed.make(0).constructor !== data.constructor) {
        // the dialect gives each lane type its physical type: a mismatch is a bug, not bad input
        throw new Error(`appendColumns: column ${name} is ${type.toString()}, not what ${data.constructor.name} holds`)
      }
      sources.push(at === 0 ? { kind: 'ts' } : { kind: 'value', index: at - 1 })
    }
    const tidBuf = new Int32Array(CHUNK_ROWS)
    let child = 0
    let chunks = 0
    for (let start = 0; start < b.count; start += CHUNK_ROWS) {
      const n = Math.min(CHUNK_ROWS, b.count - start)
      const chunk = DuckDBDataChunk.create(types, n)
      for (let j = 0; j < width; j++) {
        const src = sources[j]
        const vector = bindings.data_chunk_get_vector(chunk.chunk, j)
        if (src.kind === 'null') {
          copyValidity(vector, validityMask(n, false))
          continue
        }
        let data: ColumnBatch['values'][number] | Int32Array
        let offset = start
        if (src.kind === 'tid') {
          for (let r = 0; r < n; r++) {
            while (start + r >= b.starts[child + 1]) {
              child++
            }
            tidBuf[r] = b.tids[child]
          }
          data = tidBuf
          offset = 0
        } else {
          data = src.kind === 'ts' ? b.ts : b.values[src.index]
        }
        const size = data.BYTES_PER_ELEMENT
        bindings.copy_data_to_vector(vector, 0, data.buffer as ArrayBuffer, data.byteOffset + offset * size, n * size)
        const valid = src.kind === 'value' ? b.valid[src.index] : undefined
        if (valid !== undefined) {
          setValidity(vector, n, (r) => valid[start + r] === 1)
        }
      }
      appender.appendDataChunk(chunk)
      chunks++
      if (chunks % (FLUSH_ROWS / CHUNK_ROWS) === 0) {
        appender.flushSync()
      }
      if (start + n < b.count) {
        await yieldToEventLoop()
      }
    }
    appender.closeSync()
    return b.count
  } catch (err) {
    discardAppender(appender)
    throw err
  }
}

type Vector = ReturnType<typeof bindings.data_chunk_get_vector>

/** A validity mask for n rows (one bit per row in little-endian 64-bit words, 1 = valid), all valid or none. */
function validityMask(n: number, valid: boolean): Uint8Array {
  return new Uint8Array(Math.ceil(n / 64) * 8).fill(valid ? 0xff : 0)
}

function copyValidity(vector: Vector, mask: Uint8Array): void {
  bindings.vector_ensure_validity_writable(vector)
  bindings.copy_data_to_vector_validity(vector, 0, mask.buffer as ArrayBuffer, 0, mask.byteLength)
}

/** Writes the validity of a vector's first n rows. */
function setValidity(vector: Vector, n: number, valid: (r: number) => boolean): void {
  const mask = validityMask(n, false)
  for (let r = 0; r < n; r++) {
    if (valid(r)) {
      mask[r >> 3] |= 1 << (r & 7)
    }
  }
  copyValidity(vector, mask)
}

/** appendChunks, then close; on failure the appender's rows are discarded (see discardAppender). */
async function appendAll(appender: DuckDBAppender, sources: Source[], batches: RowBatch[]): Promise<number> {
  try {
    const n = await appendChunks(appender, sources, batches)
    appender.closeSync()
    return n
  } catch (err) {
    discardAppender(appender)
    throw err
  }
}

/**
 * Drops an appender's buffered rows after a failure. Without clear(), the native destructor
 * (run later by the garbage collector) flushes the leftover rows again and aborts whatever
 * transaction is running on the connection at that moment.
 */
function discardAppender(a: DuckDBAppender): void {
  try {
    a.clear()
  } catch {
    // nothing buffered
  }
  try {
    a.closeSync()
  } catch {
    // the original error is what the caller reports
  }
}

async function rollbackQuietly(c: DuckDBConnection): Promise<void> {
  try {
    await c.run('ROLLBACK')
  } catch {
    // no transaction active (it may already have been rolled back by DuckDB)
  }
}

/** A write group with what writing it needs (DuckDBEngine.prepareGroup). */
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

export async function openDuckDBEngine(path: string, opts: DuckDBEngineOptions = {}): Promise<DuckDBEngine> {
  return DuckDBEngine.open(path, opts)
}
