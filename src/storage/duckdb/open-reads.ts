/**
 * The read transactions open on the engine's pool connections, and which of them hold back a
 * checkpoint.
 *
 * DuckDB (1.5) gives a transaction that updates rows or changes the catalog (UPDATE, CREATE,
 * ALTER, DROP) a shared checkpoint lock, and keeps that transaction, lock included, after its
 * commit until every transaction begun before the commit has ended. A plain CHECKPOINT then
 * fails ("there are other write transactions active") and FORCE CHECKPOINT waits, as long as a
 * read that was open at that commit runs: a /rest/sql stream of a large table read by a slow
 * client, or a stream its consumer left unfinished (until the engine rolls its transaction back). Reads are numbered as they start; a pinning commit marks
 * every read open at that moment, and the checkpointer waits for those to end (or cancels them).
 */

interface OpenRead {
  /** ends the read's DuckDB transaction at once (its consumer gets an error) */
  cancel: () => Promise<void>
}

export class OpenReads {
  private seq = 0
  private readonly open = new Map<number, OpenRead>()
  /** reads numbered up to this one were open at a pinning commit */
  private horizon = 0
  private waiters: (() => void)[] = []

  /** A read starts (before its statement is sent): its number, for end(). */
  begin(cancel: () => Promise<void>): number {
    const id = ++this.seq
    this.open.set(id, { cancel })
    return id
  }

  /** The read's transaction is over (finished, failed, closed or cancelled); idempotent. */
  end(id: number): void {
    if (this.open.delete(id) && this.waiters.length > 0 && !this.pinned()) {
      for (const w of this.waiters.splice(0)) {
        w()
      }
    }
  }

  /** A commit that may hold DuckDB's checkpoint lock: every read open now holds back the next checkpoint. */
  pinAll(): void {
    this.horizon = this.seq
  }

  /** some read open at a pinning commit is still running */
  pinned(): boolean {
    for (const id of this.open.keys()) {
      if (id <= this.horizon) {
        return true
      }
    }
    return false
  }

  /** how many reads are open (for the log) */
  get size(): number {
    return this.open.size
  }

  /** Resolves once pinned() is false. */
  async whenUnpinned(): Promise<void> {
    if (!this.pinned()) {
      return
    }
    await new Promise<void>((resolve) => this.waiters.push(resolve))
  }

  /** Cancels every read that holds back the checkpoint; how many were cancelled. */
  async cancelPinning(): Promise<number> {
    const pinning = [...this.open.entries()].filter(([id]) => id <= this.horizon)
    await Promise.all(pinning.map(async ([id, r]) => {
      try {
        await r.cancel()
      } finally {
        this.end(id)
      }
    }))
    return pinning.length
  }
}
