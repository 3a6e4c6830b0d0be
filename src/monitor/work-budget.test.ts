import { describe, expect, it } from 'vitest'
import { WorkBudget } from './work-budget.js'

const tick = (): Promise<void> => new Promise((r) => setImmediate(r))

describe('WorkBudget', () => {
  it('grants while there is room; a waiter gets room released by others; bytes are clamped to the budget', async () => {
    const b = new WorkBudget(100)
    const a = await b.reserve(60, { waitMs: 0 })
    expect(a?.bytes).toBe(60)
    expect(await b.reserve(50, { waitMs: 0 })).toBeUndefined()
    const waiting = b.reserve(50, { waitMs: 5000 })
    await tick()
    expect(b.stats()).toEqual({ capacity: 100, open: 100, reserved: 60, waiting: 1 })
    a!.release()
    a!.release() // twice is once
    const c = await waiting
    expect(c?.bytes).toBe(50)
    expect(b.stats().reserved).toBe(50)
    c!.release()
    // larger than the whole budget: it may run alone
    const big = await b.reserve(10_000, { waitMs: 0 })
    expect(big?.bytes).toBe(100)
    big!.release()
    expect(b.stats()).toEqual({ capacity: 100, open: 100, reserved: 0, waiting: 0 })
  })

  it('refuses after waitMs, and a requester that goes away stops waiting', async () => {
    const b = new WorkBudget(10)
    const held = await b.reserve(10, { waitMs: 0 })
    const t0 = Date.now()
    expect(await b.reserve(5, { waitMs: 50 })).toBeUndefined()
    expect(Date.now() - t0).toBeGreaterThanOrEqual(45)
    const gone = new AbortController()
    const w = b.reserve(5, { waitMs: 60_000, signal: gone.signal })
    gone.abort()
    expect(await w).toBeUndefined()
    expect(b.stats().waiting).toBe(0)
    held!.release()
    expect(b.stats().reserved).toBe(0)
  })

  it('a large waiter does not hold up small ones that fit; zero bytes never wait', async () => {
    const b = new WorkBudget(100)
    const first = await b.reserve(70, { waitMs: 0 })
    const large = b.reserve(80, { waitMs: 60_000 })
    const small = await b.reserve(20, { waitMs: 60_000 })
    expect(small?.bytes).toBe(20)
    expect((await b.reserve(0, { waitMs: 0 }))?.bytes).toBe(0)
    first!.release()
    small!.release()
    expect((await large)?.bytes).toBe(80)
  })

  it('revokeAll tells the revocable reservations, not the others, and not released ones', async () => {
    const b = new WorkBudget(100)
    const told: string[] = []
    const q1 = await b.reserve(10, { waitMs: 0, onRevoke: (r) => told.push(`q1 ${r.message}`) })
    await b.reserve(10, { waitMs: 0 })
    const q2 = await b.reserve(10, { waitMs: 0, onRevoke: () => told.push('q2') })
    q2!.release()
    expect(b.revokeAll(new Error('all-paused'))).toBe(1)
    expect(told).toEqual(['q1 all-paused'])
    q1!.release()
  })

  it('narrowed after all-paused, it opens an eighth, then doubles per widen; a larger request runs alone', async () => {
    const b = new WorkBudget(800)
    b.narrow()
    expect(b.stats().open).toBe(100)
    const a = await b.reserve(60, { waitMs: 0 })
    expect(await b.reserve(60, { waitMs: 0 })).toBeUndefined()
    const waiting = b.reserve(60, { waitMs: 60_000 })
    await tick()
    expect(b.stats().waiting).toBe(1)
    // the next sampling period stayed normal: 200 open, the waiter gets in
    expect(b.widen()).toBe(false)
    const w = await waiting
    expect(w?.bytes).toBe(60)
    a!.release()
    w!.release()
    // larger than what is open: alone only (a query beside its own body's reservation waits)
    const body = await b.reserve(10, { waitMs: 0 })
    expect(await b.reserve(500, { waitMs: 0 })).toBeUndefined()
    body!.release()
    const big = await b.reserve(500, { waitMs: 0 })
    expect(big?.bytes).toBe(500)
    expect(await b.reserve(10, { waitMs: 0 })).toBeUndefined()
    big!.release()
    expect(b.widen()).toBe(false)
    expect(b.widen()).toBe(true)
    expect(b.widen()).toBe(true)
    expect(b.stats()).toEqual({ capacity: 800, open: 800, reserved: 0, waiting: 0 })
  })
})
