import { describe, expect, it } from 'vitest'
import { BodyLease, BodyPool } from './body-pool.js'

describe('BodyPool', () => {
  it('serves the next body from a slab once every reader released it', () => {
    const pool = new BodyPool(1024, 2)
    const a = pool.lease(100)
    expect(a.shared).toBe(true)
    expect(a.bytes.length).toBe(100)
    a.bytes.fill(7)
    a.retain()
    a.release()
    // a reader still holds it: a second body gets a slab of its own
    const b = pool.lease(10)
    expect(b.bytes.buffer).not.toBe(a.bytes.buffer)
    a.release()
    expect(pool.idleSlabs).toBe(1)
    const c = pool.lease(1024)
    expect(c.bytes.buffer).toBe(a.bytes.buffer)
    expect(pool.idleSlabs).toBe(0)
  })

  it('keeps at most maxIdle slabs; a body larger than a slab gets shared memory that is not kept', () => {
    const pool = new BodyPool(1024, 2)
    const leases = [pool.lease(1), pool.lease(1), pool.lease(1)]
    leases.forEach((l) => l.release())
    expect(pool.idleSlabs).toBe(2)
    const big = pool.lease(4096)
    expect(big.shared).toBe(true)
    expect(big.bytes.length).toBe(4096)
    big.release()
    expect(pool.idleSlabs).toBe(2)
  })

  it('a lease on memory of its own is not shared; counting errors throw', () => {
    const own = new BodyLease(Buffer.from('m v=1'))
    expect(own.shared).toBe(false)
    own.release()
    expect(() => own.release()).toThrow(/released more often/)
    expect(() => own.retain()).toThrow(/after its last release/)
  })
})
