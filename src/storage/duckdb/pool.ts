import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api'

/**
 * Ends the connection's transaction, and with it any result still open (DuckDB closes a
 * connection's previous result when it runs the next statement). No transaction (DuckDB ended a
 * failed one) is not an error.
 */
export async function rollbackQuietly(c: DuckDBConnection): Promise<void> {
  try {
    await c.run('ROLLBACK')
  } catch {
    // no transaction active; the result is closed either way
  }
}

/**
 * Bounded pool of read connections; callers wait when all are busy.
 *
 * A connection is handed out inside a transaction begun for it (BEGIN TRANSACTION run before,
 * nothing read yet): a read's prepare and execute then see one snapshot (see PoolReader.stream,
 * reader.ts) without a BEGIN on the request's path. DuckDB takes a transaction's snapshot at
 * its first table access, not at BEGIN, so a connection that waited idle still sees every commit
 * made meanwhile, and an idle one holds back no checkpoint. `recycle` ends the user's transaction
 * (ROLLBACK: a read writes nothing) and begins the next one after the answer is out: each read
 * saves two round trips to DuckDB's threads, ~0.3 ms warm and more after the machine idled.
 */
export class ConnectionPool {
  private readonly idle: DuckDBConnection[] = []
  private readonly waiters: ((c: DuckDBConnection) => void)[] = []
  private created = 0
  private closed = false

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
        const fresh = await this.instance.connect()
        await fresh.run('BEGIN TRANSACTION')
        return fresh
      } catch (err) {
        this.created--
        throw err
      }
    }
    return new Promise((resolve) => this.waiters.push(resolve))
  }

  /**
   * Ends the connection's transaction (and with it any result still open), then `after` (the
   * caller's bookkeeping that must follow the end), then begins the next transaction and gives
   * the connection back. Resolves when it is back; never rejects.
   */
  async recycle(c: DuckDBConnection, after?: () => void | Promise<void>): Promise<void> {
    await rollbackQuietly(c)
    try {
      await after?.()
    } catch {
      // bookkeeping only
    }
    try {
      if (this.closed) {
        throw new Error('pool closed')
      }
      await c.run('BEGIN TRANSACTION')
    } catch {
      // a connection that cannot begin is dropped; a later acquire makes another
      this.created--
      try {
        c.closeSync()
      } catch {
        // already closed with its instance
      }
      this.wakeWaiter()
      return
    }
    this.release(c)
  }

  private release(c: DuckDBConnection): void {
    const w = this.waiters.shift()
    if (w) {
      w(c)
    } else {
      this.idle.push(c)
    }
  }

  /** a waiter left without a connection after one was dropped gets a new one */
  private wakeWaiter(): void {
    const w = this.waiters.shift()
    if (w === undefined || this.closed) {
      return
    }
    this.acquire().then(w, () => this.waiters.unshift(w))
  }

  stats(): { total: number; idle: number; waiting: number } {
    return { total: this.created, idle: this.idle.length, waiting: this.waiters.length }
  }

  closeAll(): void {
    this.closed = true
    for (const c of this.idle.splice(0)) {
      c.closeSync()
    }
  }
}
