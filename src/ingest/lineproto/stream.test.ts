import { describe, expect, it } from 'vitest'
import { WriteLoad } from './stream.js'

describe('WriteLoad: whether a line-protocol write runs alone', () => {
  it('is alone without other writes, not while another runs, nor within OVERLAP_MS of the last overlap', () => {
    let now = 0
    const load = new WriteLoad(() => now)
    expect(load.start()).toBe(true)
    load.end()
    expect(load.start()).toBe(true)
    // a second write while the first runs
    expect(load.start()).toBe(false)
    load.end()
    load.end()
    // back to back on two connections: a moment with one write in flight is still concurrent load
    now += WriteLoad.OVERLAP_MS / 2
    expect(load.start()).toBe(false)
    load.end()
    now += WriteLoad.OVERLAP_MS + 1
    expect(load.start()).toBe(true)
    load.end()
  })
})
