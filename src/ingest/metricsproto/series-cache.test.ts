import { describe, expect, it } from 'vitest'
import type { StableInfo, TableInfo } from '../../storage/td-types.js'
import { ByteKeyMap, SeriesCache, type SeriesTarget } from './series-cache.js'

const target = (tid: number): SeriesTarget => ({
  stable: {} as StableInfo,
  table: { tid } as TableInfo,
  checked: 0,
  slot: { stamp: 0, child: 0 },
})

describe('ByteKeyMap', () => {
  it('keys that share a hash are told apart by their bytes, wherever they lie in a buffer', () => {
    const m = new ByteKeyMap()
    const buf = Buffer.from('xxabcabdab')
    // one hash for all: every lookup walks the bucket's chain
    m.set(7, buf, 2, 5, target(1))
    m.set(7, buf, 5, 8, target(2))
    m.set(7, buf, 8, 10, target(3))
    expect(m.size).toBe(3)
    expect(m.get(7, Buffer.from('abc'), 0, 3)?.table.tid).toBe(1)
    expect(m.get(7, Buffer.from('__abd'), 2, 5)?.table.tid).toBe(2)
    expect(m.get(7, Buffer.from('ab'), 0, 2)?.table.tid).toBe(3)
    expect(m.get(7, Buffer.from('abe'), 0, 3)).toBeUndefined()
    expect(m.get(8, Buffer.from('abc'), 0, 3)).toBeUndefined()
    expect(m.get(7, Buffer.alloc(0), 0, 0)).toBeUndefined()
  })

  it('setting a key again replaces its target; the key is a copy, not a view of the request', () => {
    const m = new ByteKeyMap()
    const buf = Buffer.from('\x00\xff\x80a', 'latin1')
    expect(m.set(1, buf, 0, 4, target(1))).toBe(true)
    expect(m.set(1, Buffer.from(buf), 0, 4, target(2))).toBe(false)
    buf.fill(0)
    expect(m.size).toBe(1)
    expect(m.get(1, Buffer.from('\x00\xff\x80a', 'latin1'), 0, 4)?.table.tid).toBe(2)
    m.clear()
    expect(m.get(1, Buffer.from('\x00\xff\x80a', 'latin1'), 0, 4)).toBeUndefined()
  })
})

describe('SeriesCache', () => {
  it('one slot per table object, a new number per request', () => {
    const cache = new SeriesCache()
    const t = { tid: 5 } as TableInfo
    expect(cache.slotOf(t)).toBe(cache.slotOf(t))
    expect(cache.slotOf({ tid: 5 } as TableInfo)).not.toBe(cache.slotOf(t))
    expect(cache.nextRequest()).not.toBe(cache.nextRequest())
  })

  it('is emptied whole when its key bytes reach the bound', () => {
    const cache = new SeriesCache()
    const m = cache.targets('db')
    const big = Buffer.alloc(4 * 2 ** 20, 1)
    for (let i = 0; i < 4; i++) {
      big[0] = i
      cache.remember(m, i, big, 0, big.length, target(i))
    }
    expect(m.size).toBe(4)
    big[0] = 9
    cache.remember(m, 9, big, 0, big.length, target(9))
    expect(m.size).toBe(1)
    expect(m.get(9, big, 0, big.length)?.table.tid).toBe(9)
  })
})
