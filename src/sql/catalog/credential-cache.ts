import { createHmac, randomBytes } from 'node:crypto'
import { FairQueue } from '../../fair-queue.js'

/**
 * Credentials verified a moment ago, so a client that logs in with every request costs one scrypt
 * per minute, not one per request. Entries are keyed by an HMAC of user and password under a key
 * drawn at start (neither the password nor an unkeyed hash of it is kept), and remember the stored
 * hash they were checked against: a changed password (ALTER USER here, or on another replica once
 * replica sync re-read the user) no longer matches, whether or not `delete(name)` was called.
 */

/** How long an entry lives after its last use. */
export const CREDENTIAL_CACHE_MS = 60_000
/** Entries kept at most (only verified credentials get in; this bounds memory all the same). */
const MAX_ENTRIES = 10_000

interface Entry {
  name: string
  /** the scrypt hash of the catalog the password was verified against */
  stored: string
  until: number
}

export class CredentialCache {
  private readonly key = randomBytes(32)
  private readonly entries = new Map<string, Entry>()

  constructor(private readonly now: () => number = Date.now) {}

  private id(name: string, password: string): string {
    return createHmac('sha256', this.key).update(name).update('\u0000').update(password).digest('base64')
  }

  /** true when these credentials were verified against `stored` and used within the last minute */
  has(name: string, password: string, stored: string): boolean {
    const id = this.id(name, password)
    const e = this.entries.get(id)
    if (e === undefined) {
      return false
    }
    const now = this.now()
    if (e.until <= now || e.stored !== stored || e.name !== name) {
      this.entries.delete(id)
      return false
    }
    // in use: kept while used (it stays valid as long as the stored hash is unchanged)
    e.until = now + CREDENTIAL_CACHE_MS
    return true
  }

  set(name: string, password: string, stored: string): void {
    if (this.entries.size >= MAX_ENTRIES) {
      this.sweep()
    }
    if (this.entries.size >= MAX_ENTRIES) {
      // still full of live entries: the oldest inserted one goes
      const oldest = this.entries.keys().next()
      if (oldest.done !== true) {
        this.entries.delete(oldest.value)
      }
    }
    this.entries.set(this.id(name, password), { name, stored, until: this.now() + CREDENTIAL_CACHE_MS })
  }

  /** forgets every entry of a user (password changed, user altered or dropped) */
  delete(name: string): void {
    for (const [id, e] of this.entries) {
      if (e.name === name) {
        this.entries.delete(id)
      }
    }
  }

  clear(): void {
    this.entries.clear()
  }

  get size(): number {
    return this.entries.size
  }

  private sweep(): void {
    const now = this.now()
    for (const [id, e] of this.entries) {
      if (e.until <= now) {
        this.entries.delete(id)
      }
    }
  }
}

/**
 * The scrypt verifications of the whole process. libuv has 4 threads by default and file I/O
 * (DuckDB's, the logs') uses them too: two at most for passwords, a bounded number waiting,
 * turns fair across clients (an HTTP client address, or a receiver's name).
 */
export const verifyQueue = new FairQueue({ concurrency: 2, maxWaiting: 64, maxWaitingPerKey: 8 })
