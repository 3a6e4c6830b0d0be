import { describe, expect, it } from 'vitest'
import { monthIndex, monthStart, monthWindowStart, nextMonthWindow } from './calendar-window.js'

describe('natural month arithmetic', () => {
  it('agrees with Date on instants from 1337 to 2603 (a fixed pseudo-random sample)', () => {
    let seed = 12345
    const next = (): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648
      return seed / 2147483648
    }
    for (let i = 0; i < 20000; i++) {
      const ms = Math.floor((next() - 0.5) * 4e13)
      const d = new Date(ms)
      const idx = (d.getUTCFullYear() - 1900) * 12 + d.getUTCMonth()
      expect(monthIndex(BigInt(ms), 'ms')).toBe(BigInt(idx))
      expect(monthStart(BigInt(idx), 'ms')).toBe(BigInt(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)))
      expect(monthIndex(BigInt(ms) * 1000n + 999n, 'us')).toBe(BigInt(idx))
    }
  })

  it('aligns K-month windows from January 1900 and steps to the next one', () => {
    expect(monthWindowStart(BigInt(Date.UTC(2024, 4, 17)), { k: 3, offMonths: 0 }, 0n, 'ms')).toBe(BigInt(Date.UTC(2024, 3, 1)))
    expect(nextMonthWindow(BigInt(Date.UTC(2024, 3, 1)), { k: 3, offMonths: 0 }, 0n, 'ms')).toBe(BigInt(Date.UTC(2024, 6, 1)))
    // a one-day offset: the 1st of a month belongs to the previous month's window
    const day = 86_400_000n
    expect(monthWindowStart(BigInt(Date.UTC(2024, 2, 1)), { k: 1, offMonths: 0 }, day, 'ms')).toBe(BigInt(Date.UTC(2024, 1, 2)))
  })
})
