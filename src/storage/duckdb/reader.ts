import { JSDuckDBValueConverter } from '@duckdb/node-api'
import type { DuckDBConnection } from '@duckdb/node-api'
import { StorageUnavailableError } from '../errors.js'
import type { NumericChunk, QueryOptions, RowChunk } from '../types.js'
import type { OpenReads } from './open-reads.js'
import { rollbackQuietly, type ConnectionPool } from './pool.js'
import { streamOn, watchAbort, whenAborted } from './stream.js'

/** a plain query, which writes nothing: anything else run on a read connection is committed (query) */
const SELECT_RE = /^\s*\(*\s*select\b/i

/**
 * The engine's read side: statements and streams on the read pool's connections, or on the
 * current transaction's connection (`txConn`) inside one. Each read is known to OpenReads until
 * its transaction has ended, so that a checkpoint that cannot wait may cancel it.
 */
export class PoolReader {
  constructor(
    private readonly pool: ConnectionPool,
    private readonly reads: OpenReads,
    private readonly txConn: () => DuckDBConnection | undefined,
  ) {}

  async query(sql: string, opts?: QueryOptions): Promise<unknown[][]> {
    // the pool's connections come inside a transaction that is rolled back after use: a statement
    // that is not a plain SELECT (the event store's UPDATE ... RETURNING) commits first
    return this.onReader(async (c) => {
      const stop = watchAbort(c, opts?.signal)
      try {
        const r = await whenAborted(c.run(sql), opts?.signal)
        return (await r.convertRows(JSDuckDBValueConverter)) as unknown[][]
      } finally {
        stop()
      }
    }, !SELECT_RE.test(sql))
  }

  /** `commit`: the statement may write (UPDATE ... RETURNING): committed before the call returns */
  private async onReader<T>(fn: (c: DuckDBConnection) => Promise<T>, commit: boolean): Promise<T> {
    const tx = this.txConn()
    if (tx) {
      return fn(tx)
    }
    const c = await this.pool.acquire()
    let work: Promise<T> | undefined
    // cancelled for a checkpoint: interrupted, and over once the statement has failed
    const id = this.reads.begin(async () => {
      c.interrupt()
      await work?.catch(() => undefined)
    })
    try {
      work = fn(c)
      const result = await work
      if (commit) {
        await c.run('COMMIT')
      }
      return result
    } finally {
      // the read's transaction ends after the answer is out (ConnectionPool): only then is it over for a checkpoint
      void this.pool.recycle(c, () => this.reads.end(id))
    }
  }

  async *stream(sql: string, opts: QueryOptions | undefined, numeric: boolean): AsyncIterable<RowChunk | NumericChunk> {
    const tx = this.txConn()
    if (tx) {
      yield* streamWith(tx, sql, opts, numeric)
      return
    }
    // prepared and executed in one transaction (the pool's connections come inside one): DuckDB
    // plans with the table statistics of the moment, and a commit between a prepare and an
    // execute of their own left the plan stale (rows sorted by garbage keys, filtered or joined
    // out; DuckDB issues 23704 and 24182)
    const c = await this.pool.acquire()
    // a checkpoint that cannot wait for this read ends it (OpenReads): the consumer gets an error
    const cancelled = new AbortController()
    let closing: Promise<void> | undefined
    const id = this.reads.begin(async () => {
      cancelled.abort(new StorageUnavailableError('query cancelled: the storage had to checkpoint (memory or write-ahead log full); retry'))
      c.interrupt()
      closing = rollbackQuietly(c)
      await closing
    })
    try {
      const signal = opts?.signal === undefined ? cancelled.signal : AbortSignal.any([opts.signal, cancelled.signal])
      yield* streamWith(c, sql, { ...opts, signal }, numeric)
    } finally {
      // the result and the read's transaction end after the consumer has its last chunk
      // (ConnectionPool.recycle); no cancel from then on, and one under way finishes first
      void this.pool.recycle(c, async () => {
        this.reads.end(id)
        await closing
      })
    }
  }
}

async function* streamWith(c: DuckDBConnection, sql: string, opts: QueryOptions | undefined, numeric: boolean): AsyncIterable<RowChunk | NumericChunk> {
  let stop = (): void => {}
  try {
    // inside the try: an already-aborted signal throws here
    stop = watchAbort(c, opts?.signal)
    yield* streamOn(c, sql, opts, numeric)
  } finally {
    stop()
  }
}
