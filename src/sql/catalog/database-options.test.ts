import { describe, expect, it } from 'vitest'
import { chunkIntervalTicks } from './database-options.js'

describe('chunkIntervalTicks (hypertable chunk interval from the DURATION option)', () => {
  it('reads d/h/m units and bare days (as TDengine does) in the database precision', () => {
    // 10 days = 864,000,000 ms
    expect(chunkIntervalTicks('10d', 'ms')).toBe(864_000_000n)
    expect(chunkIntervalTicks('240h', 'us')).toBe(864_000_000_000n)
    expect(chunkIntervalTicks(10, 'ns')).toBe(864_000_000_000_000n)
    expect(chunkIntervalTicks('90m', 'ms')).toBe(5_400_000n)
  })

  it('is undefined for what it cannot read, so the dialect default applies', () => {
    expect(chunkIntervalTicks(undefined, 'ms')).toBeUndefined()
    expect(chunkIntervalTicks('0d', 'ms')).toBeUndefined()
    expect(chunkIntervalTicks('10y', 'ms')).toBeUndefined()
  })
})
