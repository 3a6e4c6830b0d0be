import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api'

/** Bounded pool of read connections; callers wait when all are busy. */
export class ConnectionPool {
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
