import { describe, expect, it } from 'vitest'
import { Gate } from './gate.js'

describe('Gate', () => {
  it('starts normal and not draining', () => {
    const gate = new Gate()
    expect(gate.state).toBe('normal')
    expect(gate.queryPaused()).toBe(false)
    expect(gate.allPaused()).toBe(false)
    expect(gate.draining).toBe(false)
  })

  it('query-paused pauses queries only', () => {
    const gate = new Gate()
    gate.set('query-paused')
    expect(gate.queryPaused()).toBe(true)
    expect(gate.allPaused()).toBe(false)
  })

  it('all-paused also counts as query-paused', () => {
    const gate = new Gate()
    gate.set('all-paused')
    expect(gate.queryPaused()).toBe(true)
    expect(gate.allPaused()).toBe(true)
    gate.set('normal')
    expect(gate.queryPaused()).toBe(false)
  })

  it('draining is one-way', () => {
    const gate = new Gate()
    gate.startDraining()
    expect(gate.draining).toBe(true)
    expect(gate.state).toBe('normal')
  })

  it('onPause runs when the gate enters a pause or a stricter one, not while it stays', () => {
    const gate = new Gate()
    const seen: string[] = []
    gate.onPause((state) => seen.push(state))
    gate.set('normal')
    gate.set('query-paused')
    gate.set('query-paused')
    gate.set('all-paused')
    gate.set('all-paused')
    gate.set('query-paused')
    gate.set('normal')
    gate.set('all-paused')
    expect(seen).toEqual(['query-paused', 'all-paused', 'all-paused'])
  })
})
