/**
 * @module
 * Every password check of the HTTP layer (/rest Basic and Taosd, /rest/login, the schemaless
 * routes) goes through one LoginGuard, in this order:
 *  1. credentials verified a moment ago (the catalog's cache): accepted, no work, never throttled;
 *  2. an address backed off after failed logins (login-throttle.ts): 429 with Retry-After, no work
 *     (sent after up to 0.5 s, to slow down guessers that do not wait); an address with no failure
 *     but its limit of checks running waits for one to end and looks at the cache again;
 *  3. otherwise scrypt in the catalog's bounded queue, fair across addresses; a full queue is 503.
 * So a correct password that is not cached yet waits out its address's back-off like any guess:
 * the guard cannot tell it from one before doing the work the back-off exists to avoid.
 */
import { QueueFullError } from '../../fair-queue.js'
import type { Catalog } from '../../sql/catalog/types.js'
import { throttleKey } from '../client-ip.js'
import { problems, type RestFailure } from '../error-table.js'
import { LoginThrottle, type LoginThrottleOptions } from './login-throttle.js'

/** How long a refusal of a backed-off address is held before it is sent (at most its back-off). */
const REFUSAL_HOLD_MS = 500

/** How long a login waits for its address's running checks before it is refused as busy. */
const BUSY_WAIT_MS = 5000

/** The outcome of a login: the user, wrong credentials, or a refusal to check them now (429/503). */
export type LoginOutcome = { user: string } | 'wrong' | RestFailure

export class LoginGuard {
  private readonly throttle: LoginThrottle

  private readonly holdMs: number

  constructor(
    private readonly catalog: Catalog,
    opts: Partial<LoginThrottleOptions> & { holdMs?: number } = {},
  ) {
    this.throttle = new LoginThrottle(opts)
    this.holdMs = opts.holdMs ?? REFUSAL_HOLD_MS
  }

  /** whether `user` exists and is enabled: what a configured token's user needs (no password involved) */
  enabled(user: string): boolean {
    return this.catalog.getUser(user)?.enable === true
  }

  /** `peer` is the socket's remote address (never a forwarded header). */
  async login(user: string, password: string, peer: string | undefined): Promise<LoginOutcome> {
    if (this.catalog.isVerified(user, password)) {
      return { user }
    }
    const address = throttleKey(peer)
    let ticket = this.throttle.admit(address)
    // not backed off, only several checks of this address running: wait for them (bounded), as
    // they are most likely the same credentials, which the cache then holds
    for (const end = Date.now() + BUSY_WAIT_MS; 'retryAfterMs' in ticket && ticket.busy === true && Date.now() < end; ) {
      await this.throttle.whenSettled(address, end - Date.now())
      if (this.catalog.isVerified(user, password)) {
        return { user }
      }
      ticket = this.throttle.admit(address)
    }
    if ('retryAfterMs' in ticket) {
      // the refusal is held a moment: a guesser that ignores Retry-After then costs a few
      // requests a second per connection instead of thousands of event-loop turns
      const hold = Math.min(ticket.retryAfterMs, this.holdMs)
      await new Promise((resolve) => setTimeout(resolve, hold))
      return problems.loginThrottled(address, ticket.retryAfterMs - hold)
    }
    let ok: boolean
    try {
      ok = await this.catalog.verifyUser(user, password, address)
    } catch (err) {
      ticket.cancel()
      if (err instanceof QueueFullError) {
        return err.scope === 'key' ? problems.loginThrottled(address, 1000) : problems.loginBusy()
      }
      throw err
    }
    ticket.done(ok)
    return ok ? { user } : 'wrong'
  }
}
