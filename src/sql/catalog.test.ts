import { describe, expect, it } from 'vitest'
import { durationTicks } from './catalog.js'

describe('durationTicks (hypertable chunk interval from the DURATION option)', () => {
  it('reads d/h/m units and bare minutes in the database precision', () => {
    // 10 days = 14,400 minutes = 864,000,000 ms
    expect(durationTicks('10d', 'ms')).toBe(864_000_000n)
    expect(durationTicks('240h', 'us')).toBe(864_000_000_000n)
    expect(durationTicks(14_400, 'ns')).toBe(864_000_000_000_000n)
    expect(durationTicks('90m', 'ms')).toBe(5_400_000n)
  })

  it('is undefined for what it cannot read, so the dialect default applies', () => {
    expect(durationTicks(undefined, 'ms')).toBeUndefined()
    expect(durationTicks('0d', 'ms')).toBeUndefined()
    expect(durationTicks('10y', 'ms')).toBeUndefined()
  })
})
