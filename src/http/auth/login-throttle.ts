/**
 * @module
 * Failed logins per client address, with a short exponential back-off: the first `freeFailures`
 * wrong passwords cost nothing more; then the address is refused, without any password work, for
 * `baseMs`, doubling with each further failure up to `maxMs`. Once backed off, an address has one
 * attempt in flight at a time, so a burst of parallel guesses cannot slip through together.
 * A password verified by scrypt ends the back-off; an address quiet for `forgetMs` starts afresh.
 */

export interface LoginThrottleOptions {
  freeFailures: number
  baseMs: number
  maxMs: number
  forgetMs: number
  /** addresses tracked at most (the quietest are forgotten first) */
  maxAddresses: number
}

export const LOGIN_THROTTLE_DEFAULTS: LoginThrottleOptions = {
  freeFailures: 5,
  baseMs: 1000,
  maxMs: 30_000,
  forgetMs: 15 * 60_000,
  maxAddresses: 10_000,
}

interface AddressState {
  failures: number
  inflight: number
  /** callers waiting for one of the in-flight checks to end (`whenSettled`) */
  waiters: Array<() => void>
  blockedUntil: number
  lastFailure: number
}

/** An admitted attempt: report its outcome exactly once. */
export interface LoginTicket {
  /** the password was checked: right (ok) or wrong */
  done(ok: boolean): void
  /** it was not checked (the verification queue was full, storage failed) */
  cancel(): void
}

export class LoginThrottle {
  private readonly states = new Map<string, AddressState>()
  private readonly opts: LoginThrottleOptions

  constructor(opts: Partial<LoginThrottleOptions> = {}, private readonly now: () => number = Date.now) {
    this.opts = { ...LOGIN_THROTTLE_DEFAULTS, ...opts }
  }

  /** A ticket to check a password now, or how long the address must wait. */
  admit(address: string): LoginTicket | { retryAfterMs: number; busy?: boolean } {
    const now = this.now()
    const s = this.state(address, now)
    if (now < s.blockedUntil) {
      return { retryAfterMs: s.blockedUntil - now }
    }
    const free = s.failures + s.inflight < this.opts.freeFailures
    const probe = s.failures >= this.opts.freeFailures && s.inflight === 0
    if (!free && !probe) {
      // attempts of this address are being checked: one more would only add work
      return { retryAfterMs: this.opts.baseMs, busy: s.failures < this.opts.freeFailures }
    }
    s.inflight++
    let settled = false
    const settle = (): boolean => {
      if (settled) {
        return false
      }
      settled = true
      s.inflight--
      for (const w of s.waiters.splice(0)) {
        w()
      }
      return true
    }
    return {
      done: (ok) => {
        if (!settle()) {
          return
        }
        const at = this.now()
        if (ok) {
          s.failures = 0
          s.blockedUntil = 0
        } else {
          s.failures++
          s.lastFailure = at
          const over = s.failures - this.opts.freeFailures
          if (over >= 0) {
            s.blockedUntil = at + Math.min(this.opts.maxMs, this.opts.baseMs * 2 ** Math.min(over, 30))
          }
        }
        this.forgetIfIdle(address, s)
      },
      cancel: () => {
        if (settle()) {
          this.forgetIfIdle(address, s)
        }
      },
    }
  }

  /**
   * Resolves when one of the address's in-flight checks ends, or after `ms`: a login refused as
   * `busy` waits for it, since parallel logins with the same right password (a dashboard's
   * panels after a restart) are then answered from the catalog's cache.
   */
  whenSettled(address: string, ms: number): Promise<void> {
    const s = this.states.get(address)
    if (s === undefined || s.inflight === 0) {
      return Promise.resolve()
    }
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms)
      s.waiters.push(() => {
        clearTimeout(timer)
        resolve()
      })
    })
  }

  /** addresses tracked now */
  get size(): number {
    return this.states.size
  }

  private state(address: string, now: number): AddressState {
    let s = this.states.get(address)
    if (s !== undefined && s.inflight === 0 && s.blockedUntil <= now && now - s.lastFailure > this.opts.forgetMs) {
      this.states.delete(address)
      s = undefined
    }
    if (s === undefined) {
      if (this.states.size >= this.opts.maxAddresses) {
        this.evict(now)
      }
      s = { failures: 0, inflight: 0, waiters: [], blockedUntil: 0, lastFailure: 0 }
      this.states.set(address, s)
    }
    return s
  }

  private forgetIfIdle(address: string, s: AddressState): void {
    if (s.failures === 0 && s.inflight === 0 && this.states.get(address) === s) {
      this.states.delete(address)
    }
  }

  /** Room for one more address: the forgettable ones go, else the oldest not in flight. */
  private evict(now: number): void {
    for (const [a, s] of this.states) {
      if (s.inflight === 0 && s.blockedUntil <= now && now - s.lastFailure > this.opts.forgetMs) {
        this.states.delete(a)
      }
    }
    if (this.states.size < this.opts.maxAddresses) {
      return
    }
    for (const [a, s] of this.states) {
      if (s.inflight === 0) {
        this.states.delete(a)
        return
      }
    }
  }
}
