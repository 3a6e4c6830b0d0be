import { describe, expect, it } from 'vitest'
import { nowTicks, parseRequestPrecision, tickConverter } from './precision.js'

describe('parseRequestPrecision', () => {
  it('accepts h, m, s, ms, u/us/µ/μ, n/ns and defaults to ns', () => {
    expect(parseRequestPrecision(undefined)).toBe('ns')
    expect(parseRequestPrecision('')).toBe('ns')
    expect(parseRequestPrecision('n')).toBe('ns')
    expect(parseRequestPrecision('ns')).toBe('ns')
    expect(parseRequestPrecision('u')).toBe('us')
    expect(parseRequestPrecision('us')).toBe('us')
    expect(parseRequestPrecision('\u00b5')).toBe('us')
    expect(parseRequestPrecision('\u03bc')).toBe('us')
    expect(parseRequestPrecision('ms')).toBe('ms')
    expect(parseRequestPrecision('s')).toBe('s')
    expect(parseRequestPrecision('m')).toBe('m')
    expect(parseRequestPrecision('h')).toBe('h')
  })
  it('rejects anything else', () => {
    for (const bad of ['d', 'NS', 'mss', ' s', 'rfc3339']) {
      expect(parseRequestPrecision(bad)).toBeUndefined()
    }
  })
})

describe('tickConverter', () => {
  it('scales up exactly', () => {
    expect(tickConverter('h', 'ns')(1n)).toBe(3_600_000_000_000n)
    expect(tickConverter('m', 'ms')(2n)).toBe(120_000n)
    expect(tickConverter('s', 'us')(1_700_000_000n)).toBe(1_700_000_000_000_000n)
    expect(tickConverter('ms', 'ns')(1_700_000_000_123n)).toBe(1_700_000_000_123_000_000n)
    expect(tickConverter('ns', 'ns')(123n)).toBe(123n)
  })
  it('scales down with floor division', () => {
    expect(tickConverter('ns', 'ms')(1_999_999n)).toBe(1n)
    expect(tickConverter('ns', 'ms')(-1n)).toBe(-1n)
    expect(tickConverter('us', 'ms')(-1_000n)).toBe(-1n)
    expect(tickConverter('us', 'ms')(-1_001n)).toBe(-2n)
  })
  it('reports results outside signed 64 bits as undefined', () => {
    expect(tickConverter('s', 'ns')(9_223_372_036n)).toBe(9_223_372_036_000_000_000n)
    expect(tickConverter('s', 'ns')(9_223_372_037n)).toBeUndefined()
    expect(tickConverter('h', 'ns')(-3_000_000n)).toBeUndefined()
    // unscaled or scaled down, a value that was never a 64-bit tick is refused, not wrapped
    expect(tickConverter('ns', 'ns')(2n ** 63n)).toBeUndefined()
    expect(tickConverter('ns', 'ns')(2n ** 63n - 1n)).toBe(2n ** 63n - 1n)
    expect(tickConverter('ns', 'ms')(2n ** 90n)).toBeUndefined()
    expect(tickConverter('ns', 'ms')(-(2n ** 90n))).toBeUndefined()
  })
})

describe('nowTicks', () => {
  it('is the given wall clock in the database precision', () => {
    expect(nowTicks('ms', 1_700_000_000_123)).toBe(1_700_000_000_123n)
    expect(nowTicks('us', 1_700_000_000_123)).toBe(1_700_000_000_123_000n)
    expect(nowTicks('ns', 1_700_000_000_123)).toBe(1_700_000_000_123_000_000n)
  })
})
