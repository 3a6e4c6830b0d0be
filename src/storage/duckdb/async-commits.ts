import { DuckDBPendingResultState } from '@duckdb/node-api'
import type { DuckDBConnection, DuckDBInstance, DuckDBPreparedStatement } from '@duckdb/node-api'

/** A connection for column appends, with BEGIN prepared so that it can run synchronously. */
export interface Committer {
  conn: DuckDBConnection
  begin: DuckDBPreparedStatement
}

/**
 * Connections whose transactions commit on DuckDB's thread pool, for the column-append lane of
 * a file database.
 *
 * An appender that commits by itself does so inside its synchronous closeSync: the commit
 * (merging the rows into the table, writing the WAL, fsync) held the event loop for 1.8 ms per
 * 5000-row write at the median and 5.9 ms at p99, a third of the main thread's time under full
 * line-protocol ingest, and readiness probes waited behind it. Here a write takes an idle
 * connection, runs BEGIN synchronously (a prepared statement's tasks, ~0.05 ms: awaiting it
 * would wait for the busy event loop once more), appends and closes its appender inside the
 * transaction (no commit there), and runs COMMIT asynchronously. Several connections let the
 * next write append while earlier ones commit. DuckDB lets concurrent transactions append to
 * the same table; everything else that writes must `settle()` first so it sees those rows.
 */
export class AsyncCommits {
  private readonly idle: Committer[]
  private readonly inflight = new Set<Promise<void>>()
  private readonly waiters: (() => void)[] = []

  private constructor(committers: Committer[]) {
    this.idle = committers
  }

  static async open(instance: DuckDBInstance, connections: number): Promise<AsyncCommits> {
    const committers: Committer[] = []
    for (let i = 0; i < connections; i++) {
      const conn = await instance.connect()
      committers.push({ conn, begin: await conn.prepare('BEGIN TRANSACTION') })
    }
    return new AsyncCommits(committers)
  }

  /** An idle connection inside a new transaction; waits while every connection is committing. */
  async begin(): Promise<Committer> {
    while (this.idle.length === 0) {
      await new Promise<void>((resolve) => this.waiters.push(resolve))
    }
    const c = this.idle.pop() as Committer
    try {
      const pending = c.begin.start()
      while (pending.runTask() !== DuckDBPendingResultState.RESULT_READY) {
        // BEGIN has no work to spread over threads: this loop ends within a few tasks
      }
    } catch (err) {
      this.release(c)
      throw err
    }
    return c
  }

  /** Commits c's transaction on the thread pool (rolled back if COMMIT fails); c is idle again after. */
  commit(c: Committer): Promise<void> {
    const done = c.conn
      .run('COMMIT')
      .then(
        () => undefined,
        async (err: unknown) => {
          await rollbackQuietly(c.conn)
          throw err
        },
      )
      .finally(() => {
        this.inflight.delete(done)
        this.release(c)
      })
    this.inflight.add(done)
    return done
  }

  /** Rolls back c's transaction (an append failed) and makes c idle again. */
  async abort(c: Committer): Promise<void> {
    await rollbackQuietly(c.conn)
    this.release(c)
  }

  /** Resolves once no commit is in flight (whether they succeed is their writers' business). */
  async settle(): Promise<void> {
    while (this.inflight.size > 0) {
      await Promise.allSettled([...this.inflight])
    }
  }

  /** Closes the connections; call after settle(), with nothing else using them. */
  close(): void {
    for (const c of this.idle.splice(0)) {
      c.begin.destroySync()
      c.conn.closeSync()
    }
  }

  private release(c: Committer): void {
    this.idle.push(c)
    this.waiters.shift()?.()
  }
}

export async function rollbackQuietly(c: DuckDBConnection): Promise<void> {
  try {
    await c.run('ROLLBACK')
  } catch {
    // no transaction active (it may already have been rolled back by DuckDB)
  }
}
