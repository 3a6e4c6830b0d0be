import { describe, expect, it } from 'vitest'
import { LoginThrottle, type LoginTicket } from './login-throttle.js'

function ticket(x: LoginTicket | { retryAfterMs: number }): LoginTicket {
  if ('retryAfterMs' in x) {
    throw new Error(`refused for ${x.retryAfterMs} ms`)
  }
  return x
}

describe('LoginThrottle', () => {
  const opts = { freeFailures: 3, baseMs: 1000, maxMs: 4000, forgetMs: 60_000 }

  it('backs off exponentially after the free failures, capped, and a success ends it', () => {
    let now = 0
    const t = new LoginThrottle(opts, () => now)
    for (let i = 0; i < 3; i++) {
      ticket(t.admit('a')).done(false)
    }
    expect(t.admit('a')).toEqual({ retryAfterMs: 1000 })
    // other addresses are not affected
    ticket(t.admit('b')).done(false)
    now += 1000
    ticket(t.admit('a')).done(false)
    expect(t.admit('a')).toEqual({ retryAfterMs: 2000 })
    now += 2000
    ticket(t.admit('a')).done(false)
    now += 4000
    ticket(t.admit('a')).done(false)
    expect(t.admit('a')).toEqual({ retryAfterMs: 4000 })
    now += 4000
    ticket(t.admit('a')).done(true)
    for (let i = 0; i < 3; i++) {
      ticket(t.admit('a')).done(false)
    }
    expect(t.admit('a')).toEqual({ retryAfterMs: 1000 })
  })

  it('admits no more in flight than the free failures, and one probe at a time once backed off', () => {
    let now = 0
    const t = new LoginThrottle(opts, () => now)
    const inflight = [ticket(t.admit('a')), ticket(t.admit('a')), ticket(t.admit('a'))]
    // busy: no failure yet, only checks running (the guard waits for them: whenSettled)
    expect(t.admit('a')).toEqual({ retryAfterMs: 1000, busy: true })
    inflight.forEach((x) => x.done(false))
    now += 1000
    const probe = ticket(t.admit('a'))
    expect(t.admit('a')).toEqual({ retryAfterMs: 1000, busy: false })
    probe.cancel()
    probe.done(false) // settled once: ignored
    ticket(t.admit('a')).done(false)
    expect(t.admit('a')).toEqual({ retryAfterMs: 2000 })
  })

  it('wakes a waiter when one of the address\'s checks ends', async () => {
    const t = new LoginThrottle(opts)
    await t.whenSettled('a', 10_000) // nothing in flight: at once
    const x = ticket(t.admit('a'))
    let woke = false
    const waiting = t.whenSettled('a', 10_000).then(() => (woke = true))
    await Promise.resolve()
    expect(woke).toBe(false)
    x.done(true)
    await waiting
    expect(woke).toBe(true)
  })

  it('forgets an address after a quiet period and bounds how many it tracks', () => {
    let now = 0
    const t = new LoginThrottle({ ...opts, maxAddresses: 2 }, () => now)
    for (let i = 0; i < 3; i++) {
      ticket(t.admit('a')).done(false)
    }
    now += 61_001
    ticket(t.admit('a')).done(false)
    expect(t.size).toBe(1)
    ticket(t.admit('b')).done(false)
    ticket(t.admit('c')).done(false)
    expect(t.size).toBe(2)
    // a success leaves nothing behind
    ticket(t.admit('d')).done(true)
    expect(t.size).toBeLessThanOrEqual(2)
  })
})
