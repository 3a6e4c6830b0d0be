import { AsyncLocalStorage } from 'node:async_hooks'
import { DuckDBInstance } from '@duckdb/node-api'
import type { DuckDBConnection, DuckDBPreparedStatement } from '@duckdb/node-api'
import type { ColumnBatch, Engine, NumericChunk, QueryOptions, RowBatch, RowChunk } from '../types.js'
import type { Dialect } from '../dialect.js'
import { isDatabaseInvalidated, StorageUnavailableError } from '../errors.js'
import { groupBatches } from '../write-groups.js'
import { Mutex } from '../../mutex.js'
import { ColumnGroups, writeColumnGroup } from './group-commit.js'
import { appendAll } from './append-rows.js'
import { FLUSH_ROWS } from './appender.js'
import { CHECKPOINT_WAL_BYTES, Checkpointer, DUCKDB_CHECKPOINT_THRESHOLD, POOL_CHECKPOINT_FRACTION } from './checkpoint.js'
import { OpenReads } from './open-reads.js'
import { overdueWalBytes, PoolWatch } from './pool-watch.js'
import { duckdbDialect } from './dialect.js'
import { ConnectionPool, rollbackQuietly } from './pool.js'
import { PoolReader } from './reader.js'
import { watchAbort, whenAborted } from './stream.js'
import { TableRoutes } from '../routes.js'
import { requireColumns, sourcesFor, TableCache } from './tables.js'
import { RowWriter } from './write-rows.js'

interface DuckDBEngineOptions {
  /** read connections kept open (writes use one dedicated connection); default 4 */
  readConnections?: number
  /**
   * Append rows that are all newer than their table's newest row straight into the table
   * (default true). false sends every write through staging + update/insert; kept for tests.
   */
  directAppend?: boolean
  /** DuckDB memory_limit in bytes (the adapter's storage share of its memory budget); default DuckDB's own */
  memoryLimitBytes?: number
  /** WAL size (bytes) from which the engine checkpoints a file database; default 16 MiB (tests: smaller) */
  checkpointWalBytes?: number
  /** a checkpoint failed (it is tried again after a later write): for the log */
  onBackgroundFailure?: (what: string, err: unknown) => void
  /** writes quiet this long checkpoint a WAL of 1 MiB or more; default CHECKPOINT_IDLE_MS (tests: shorter) */
  checkpointIdleMs?: number
}

/** DuckDB's memory_limit text ("89.0 MiB", "1.2 GiB") in bytes */
function parseSize(text: string): number {
  const m = /^([\d.]+)\s*([KMGT]?i?B)/.exec(text)
  if (m === null) {
    return 0
  }
  const unit = m[2].replace('i', '')
  const power = { B: 0, KB: 1, MB: 2, GB: 3, TB: 4 }[unit] ?? 0
  return Math.round(Number(m[1]) * (m[2].includes('i') ? 1024 : 1000) ** power)
}

const DDL_RE = /^\s*(create|drop|alter)\b/i
/** memory_limit for the moment releaseMemory evicts DuckDB's unpinned blocks */
const RELEASE_MEMORY_LIMIT = '64MB'

/** A transaction context: the connection that statements inside `transaction(fn)` must use. */
interface TxContext {
  conn: DuckDBConnection
  /** a statement of the transaction changed the catalog or updated rows (see OpenReads) */
  pins: boolean
}

/**
 * Statements after whose commit DuckDB keeps a checkpoint lock while older reads run (OpenReads):
 * every statement but those known to only read, insert or delete.
 */
const UNPINNED_RE = /^\s*(select|with|insert|delete|set|reset|pragma|checkpoint|begin|commit|rollback|call|copy|explain|describe|show|summarize)\b/i
const pins = (sql: string): boolean => !UNPINNED_RE.test(sql)

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
  /** super tables stored as views over shared tables (routes.ts); the catalog keeps them */
  readonly routes = new TableRoutes()
  private readonly tables = new TableCache(this.routes)
  private readonly rows: RowWriter
  private readonly checkpointer: Checkpointer
  private readonly fileBacked: boolean
  /** reads open on the pool's connections (a checkpoint waits for those that would make it fail) */
  private readonly reads = new OpenReads()
  private readonly poolWatch: PoolWatch
  /** queries and streams on the read pool, or on the transaction's connection */
  private readonly reader: PoolReader
  /** BEGIN and COMMIT prepared on the write connection (committed) */
  private txStatements: Promise<[DuckDBPreparedStatement, DuckDBPreparedStatement]> | undefined
  /** appendColumns calls waiting for the write lock, committed together */
  private readonly columnGroups = new ColumnGroups(this.writeLock, (members) =>
    writeColumnGroup({
      closed: () => this.closed,
      tables: this.tables,
      conn: this.writeConn,
      admit: () => this.admitWrite(),
      committed: (fn) => this.committed(fn),
      failed: (err) => this.noteWriteFailure(err),
    }, members),
  )

  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly writeConn: DuckDBConnection,
    readConnections: number,
    private readonly directAppend: boolean,
    /** the WAL of a file database (undefined in memory) */
    walPath: string | undefined,
    checkpointWalBytes: number,
    /** the memory_limit setting the engine runs with, or undefined for DuckDB's default */
    private readonly memoryLimit: string | undefined,
    /** memory_limit in bytes */
    limitBytes: number,
    onBackgroundFailure: ((what: string, err: unknown) => void) | undefined,
    checkpointIdleMs: number | undefined,
  ) {
    this.fileBacked = walPath !== undefined
    this.pool = new ConnectionPool(instance, readConnections)
    this.reader = new PoolReader(this.pool, this.reads, () => this.txStore.getStore()?.conn)
    this.rows = new RowWriter(this.tables, directAppend)
    const overdue = overdueWalBytes(checkpointWalBytes, limitBytes)
    this.checkpointer = new Checkpointer(this.writeLock, writeConn, walPath, { due: checkpointWalBytes, overdue }, () => this.closed, this.reads, limitBytes, onBackgroundFailure, checkpointIdleMs)
    this.poolWatch = new PoolWatch(limitBytes, overdue, () => instance.connect())
  }

  static async open(path: string, opts: DuckDBEngineOptions = {}): Promise<DuckDBEngine> {
    const inMemory = path === ':memory:' || path === ''
    const memoryLimit = opts.memoryLimitBytes !== undefined && opts.memoryLimitBytes > 0 ? `${Math.max(1, Math.floor(opts.memoryLimitBytes / 2 ** 20))}MiB` : undefined
    const settings: Record<string, string> = {
      ...(inMemory ? {} : { checkpoint_threshold: DUCKDB_CHECKPOINT_THRESHOLD }),
      ...(memoryLimit !== undefined ? { memory_limit: memoryLimit } : {}),
      // jemalloc keeps the pages DuckDB frees until its own threads allocate again: ~100 MiB after
      // a burst, idle, with 13 MiB in the buffer pool (measured in a 400 MiB cgroup). Its
      // background thread gives them back within seconds, so memory at rest falls without a gate pause
      allocator_background_threads: 'true',
    }
    const instance = await DuckDBInstance.create(path, settings)
    const writeConn = await instance.connect()
    const limit = (await (await writeConn.run("SELECT current_setting('memory_limit')")).getRows())[0][0]
    const tables = (await (await writeConn.run('SELECT count(*) FROM duckdb_tables()')).getRows())[0][0]
    const engine = new DuckDBEngine(
      instance,
      writeConn,
      Math.max(1, opts.readConnections ?? 4),
      opts.directAppend ?? true,
      inMemory ? undefined : `${path}.wal`,
      opts.checkpointWalBytes ?? CHECKPOINT_WAL_BYTES,
      memoryLimit,
      parseSize(String(limit)),
      opts.onBackgroundFailure,
      opts.checkpointIdleMs,
    )
    engine.checkpointer.setTableCount(Number(tables))
    return engine
  }

  /**
   * Gives back what DuckDB keeps after a burst of queries: its buffer pool and its allocator's
   * cache (RSS of 1 GB with 164 MB of table data, measured). A moment's low memory_limit evicts
   * every unpinned block and flushes the allocator; the limit is then restored. File databases
   * only: in memory the data itself would have to spill to disk.
   */
  async releaseMemory(): Promise<void> {
    if (!this.fileBacked || this.closed) {
      return
    }
    await this.onWriter(async (c) => {
      try {
        await c.run(`SET memory_limit = '${this.releaseLimit()}'`)
      } catch (err) {
        // what is pinned by running work cannot go: DuckDB evicts the rest, then refuses the limit
        if (!/could not free up enough memory/.test(String(err))) {
          throw err
        }
      } finally {
        // back to the engine's own limit (re-setting the value read from current_setting would
        // round it)
        await c.run(this.memoryLimit === undefined ? 'RESET memory_limit' : `SET memory_limit = '${this.memoryLimit}'`)
      }
    })
  }

  /** DuckDB's buffer pool use and limit (/metrics); undefined when the engine is closed or the pool is too full to ask */
  async memoryStats(): Promise<{ usedBytes: number; limitBytes: number } | undefined> {
    if (this.closed) {
      return undefined
    }
    try {
      const [[used, limit]] = await this.query(
        "SELECT (SELECT sum(memory_usage_bytes) FROM duckdb_memory())::DOUBLE, (SELECT value FROM duckdb_settings() WHERE name = 'memory_limit')",
      )
      return { usedBytes: Number(used), limitBytes: parseSize(String(limit)) }
    } catch {
      return undefined
    }
  }

  /** 64MB, or an eighth of a smaller configured limit (a limit of 64MB would evict nothing) */
  private releaseLimit(): string {
    const mib = this.memoryLimit === undefined ? Infinity : Number.parseInt(this.memoryLimit, 10)
    return mib / 8 < 64 ? `${Math.max(4, Math.floor(mib / 8))}MiB` : RELEASE_MEMORY_LIMIT
  }

  private assertOpen(): void {
    if (this.closed) {
      // shutting down: a request that reaches storage now may retry elsewhere (503)
      throw new StorageUnavailableError('storage engine is closed')
    }
  }

  private noteDdl(sql: string): void {
    if (DDL_RE.test(sql)) {
      this.tables.schemaChanged()
      this.checkpointer.noteCreated()
    }
  }

  /**
   * Before a write, under the write lock: DuckDB's pool filling up makes a checkpoint due (it makes
   * the rows appended since the last one evictable), and past POOL_SHED_FRACTION the write is
   * refused with a 503 (PoolWatch). File databases only: in memory the rows are the pool.
   */
  private async admitWrite(): Promise<void> {
    if (!this.fileBacked) {
      return
    }
    const fraction = await this.poolWatch.fraction()
    this.checkpointer.notePool(fraction)
    if (fraction >= POOL_CHECKPOINT_FRACTION) {
      // queued behind this write (it waits for the write lock)
      this.checkpointer.checkpointIfDue()
    }
    this.poolWatch.admit(fraction, this.checkpointer.checkpointStats()?.walBytes ?? 0)
  }

  /** A write that failed for want of pool memory makes a checkpoint due at once (see Checkpointer.memoryFull). */
  private writeFailed(err: unknown): never {
    throw this.noteWriteFailure(err)
  }

  /** writeFailed without the throw: err, noted */
  private noteWriteFailure(err: unknown): unknown {
    if (/(failed to|could not) (allocate|pin) /.test(String(err))) {
      this.checkpointer.memoryFull()
      this.checkpointer.checkpointIfDue()
    }
    return err
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

  async exec(sql: string, opts?: QueryOptions): Promise<number> {
    const tx = this.txStore.getStore()
    // noted under the write lock, before a checkpoint queued behind this statement looks
    const n = await this.onWriter((c) => execOn(c, sql, opts, () => {
      this.noteDdl(sql)
      this.notePins(tx, pins(sql))
    }))
    if (!tx) {
      this.checkpointer.checkpointIfDue()
    }
    return n
  }

  /**
   * A statement that may pin DuckDB's checkpoint lock (see OpenReads) ran: outside a transaction
   * it has committed (or failed, which pins nothing but costs nothing to assume); inside one, its
   * commit will.
   */
  private notePins(tx: TxContext | undefined, pinning: boolean): void {
    if (!pinning) {
      return
    }
    if (tx) {
      tx.pins = true
    } else {
      this.reads.pinAll()
    }
  }

  async query(sql: string, opts?: QueryOptions): Promise<unknown[][]> {
    this.assertOpen()
    return this.reader.query(sql, opts)
  }

  stream(sql: string, opts?: QueryOptions): AsyncIterable<RowChunk> {
    return this.streamChunks(sql, opts, false) as AsyncIterable<RowChunk>
  }

  streamNumeric(sql: string, opts?: QueryOptions): AsyncIterable<RowChunk | NumericChunk> {
    return this.streamChunks(sql, opts, true)
  }

  private async *streamChunks(sql: string, opts: QueryOptions | undefined, numeric: boolean): AsyncIterable<RowChunk | NumericChunk> {
    this.assertOpen()
    yield* this.reader.stream(sql, opts, numeric)
  }

  async transaction<T>(fn: (tx: Engine) => Promise<T>): Promise<T> {
    this.assertOpen()
    const outer = this.txStore.getStore()
    if (outer) {
      // DuckDB has no savepoints: a nested transaction joins the outer one
      return fn(this)
    }
    const ctx: TxContext = { conn: this.writeConn, pins: false }
    const result = await this.writeLock.run(() => this.committed(() => this.txStore.run(ctx, () => fn(this)))
      .finally(() => this.notePins(undefined, ctx.pins)))
    this.checkpointer.checkpointIfDue()
    return result
  }

  /**
   * Runs fn in one transaction on the write connection (the caller holds the write lock). On
   * failure it rolls back and drops the cached layouts: a failed DDL may have left them stale,
   * and staging tables created inside the transaction no longer exist.
   */
  private async committed<T>(fn: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
    const conn = this.writeConn
    // prepared once: a remote-write body commits ~500 times a second (bench/README.md)
    this.txStatements ??= Promise.all([conn.prepare('BEGIN TRANSACTION'), conn.prepare('COMMIT')]).catch((err: unknown) => {
      this.txStatements = undefined
      throw err
    })
    const [begin, commit] = await this.txStatements
    await begin.run()
    try {
      const result = await fn(conn)
      await commit.run()
      return result
    } catch (err) {
      await rollbackQuietly(conn)
      this.tables.schemaChanged()
      throw err
    }
  }

  async writeRows(batches: RowBatch[]): Promise<number> {
    this.assertOpen()
    const groups = groupBatches(batches, (db) => this.dialect.schemaName(db))
    if (groups.length === 0) {
      return 0
    }
    this.checkpointer.noteTables(groups.map((g) => `${g.schema}.${g.table}`))
    const tx = this.txStore.getStore()
    const updates = this.rows.updates
    if (tx) {
      return this.rows.writeGroups(tx.conn, groups).finally(() => this.notePins(tx, this.rows.updates !== updates))
    }
    const n = await this.writeLock.run(async () => {
      const conn = this.writeConn
      await this.admitWrite()
      const first = await this.rows.prepareGroup(conn, groups[0])
      if (groups.length === 1 && this.rows.appendsAlone(first)) {
        return this.rows.writePrepared(conn, first)
      }
      return this.committed((c) => this.rows.writeGroups(c, groups, first))
        .finally(() => this.notePins(undefined, this.rows.updates !== updates))
    }).catch((err: unknown) => this.writeFailed(err))
    this.checkpointer.checkpointIfDue()
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
    this.checkpointer.noteTables(live.map((b) => `${this.dialect.schemaName(b.db)}.${b.table}`))
    const n = await this.columnGroups.submit(live)
    if (n !== undefined) {
      this.checkpointer.checkpointIfDue()
    }
    return n
  }

  /**
   * Through an appender: as INSERT ... VALUES statements, whose every literal DuckDB binds, the
   * catalog and tag rows of many new child tables were slow.
   */
  async insertRows(schema: string, table: string, columns: string[], rows: unknown[][]): Promise<number> {
    if (rows.length === 0) {
      return 0
    }
    this.checkpointer.noteTables([`${schema}.${table}`])
    return this.onWriter(async (conn) => {
      const info = await this.tables.targetInfo(conn, schema, table)
      requireColumns('insertRows', info, columns, schema, table)
      const sources = sourcesFor(info, columns, false)
      // a data table's newest-timestamp bounds would not know these rows: read them again
      this.tables.forgetNewest(schema, table)
      const append = async (c: DuckDBConnection): Promise<number> =>
        appendAll(await c.createAppender(info.table, schema), sources, [{ db: '', table, columns, rows }])
      // outside a transaction, one appender flush is one transaction of its own (see RowWriter.appendsAlone)
      return this.txStore.getStore() !== undefined || rows.length <= FLUSH_ROWS ? append(conn) : this.committed(append)
    })
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

  /**
   * DuckDB's reason when it has invalidated the database after a fatal error (it then refuses
   * every statement until the file is opened again: only a restart helps), else undefined.
   */
  async fatalError(): Promise<string | undefined> {
    if (this.closed) {
      return undefined
    }
    try {
      await this.query('SELECT 1')
      return undefined
    } catch (err) {
      return isDatabaseInvalidated(err) ? (err as Error).message : undefined
    }
  }

  /** the WAL and the engine's checkpoints since start (/metrics); undefined in memory */
  checkpointStats(): { walBytes: number; done: number; failed: number; readsCancelled: number } | undefined {
    return this.checkpointer.checkpointStats()
  }

  /** appendColumns group commit: groups written and the calls they took */
  groupCommitStats(): { groups: number; members: number } {
    return { ...this.columnGroups.stats }
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
      await this.poolWatch.close()
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
    const r = await whenAborted(c.run(sql), opts?.signal)
    return r.rowsChanged
  } finally {
    stop()
    after()
  }
}

export async function openDuckDBEngine(path: string, opts: DuckDBEngineOptions = {}): Promise<DuckDBEngine> {
  return DuckDBEngine.open(path, opts)
}
