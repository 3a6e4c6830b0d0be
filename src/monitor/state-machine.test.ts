import { describe, expect, it } from 'vitest'
import type { GateState } from './gate.js'
import { gateStateCode, nextGateState } from './state-machine.js'

const T = { query: 70, all: 80 }

describe('nextGateState: every row of the spec table', () => {
  it('normal -> query-paused when use exceeds the query threshold', () => {
    expect(nextGateState('normal', 70.01, T)).toBe('query-paused')
    expect(nextGateState('normal', 79, T)).toBe('query-paused')
  })

  it('normal or query-paused -> all-paused when use exceeds the all threshold', () => {
    expect(nextGateState('normal', 80.5, T)).toBe('all-paused')
    expect(nextGateState('query-paused', 95, T)).toBe('all-paused')
  })

  it('query-paused -> normal when use falls below the query threshold', () => {
    expect(nextGateState('query-paused', 69.99, T)).toBe('normal')
    expect(nextGateState('query-paused', 75, T)).toBe('query-paused')
  })

  it('all-paused -> query-paused or normal by the query threshold once below the all threshold', () => {
    expect(nextGateState('all-paused', 79, T)).toBe('query-paused')
    expect(nextGateState('all-paused', 50, T)).toBe('normal')
    expect(nextGateState('all-paused', 90, T)).toBe('all-paused')
  })
})

describe('nextGateState: edges', () => {
  it('"exceeds" is strict: a use equal to a threshold changes nothing', () => {
    expect(nextGateState('normal', 70, T)).toBe('normal')
    expect(nextGateState('query-paused', 70, T)).toBe('query-paused')
    expect(nextGateState('query-paused', 80, T)).toBe('query-paused')
    expect(nextGateState('all-paused', 80, T)).toBe('all-paused')
    // below all, exactly at query: not below the query threshold, so queries stay paused
    expect(nextGateState('all-paused', 70, T)).toBe('query-paused')
  })

  it('-1 is always exceeded (always paused); 100 is never exceeded (pause off)', () => {
    expect(nextGateState('normal', 0, { query: -1, all: 100 })).toBe('query-paused')
    expect(nextGateState('normal', 0, { query: 100, all: -1 })).toBe('all-paused')
    expect(nextGateState('normal', 100, { query: 100, all: 100 })).toBe('normal')
  })

  it('a query threshold above the all threshold cannot keep writes open', () => {
    const odd = { query: 90, all: 80 }
    expect(nextGateState('normal', 85, odd)).toBe('all-paused')
    expect(nextGateState('all-paused', 79, odd)).toBe('normal')
  })

  it('a failed sample (NaN) keeps the state', () => {
    const states: GateState[] = ['normal', 'query-paused', 'all-paused']
    for (const s of states) {
      expect(nextGateState(s, NaN, T)).toBe(s)
    }
  })

  it('gauge codes', () => {
    expect([gateStateCode('normal'), gateStateCode('query-paused'), gateStateCode('all-paused')]).toEqual([0, 1, 2])
  })
})
