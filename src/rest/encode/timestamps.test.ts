import { describe, expect, it } from 'vitest'
import { formatTimestamp } from '../../sql/time.js'
import type { Precision } from '../../storage/td-types.js'
import { TimestampFormatter } from './timestamps.js'

describe('TimestampFormatter', () => {
  it('agrees with formatTimestamp for every precision, zone and sign', async () => {
    const { TimestampFormatter } = await import('./timestamps.js')
    const { formatTimestamp } = await import('../../sql/time.js')
    const per = { ms: 1000n, us: 1_000_000n, ns: 1_000_000_000n } as const
    let seed = 7
    const next = (): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
      return seed
    }
    const mismatches: string[] = []
    for (const precision of ['ms', 'us', 'ns'] as const) {
      for (const tz of [undefined, 'Asia/Shanghai', 'America/New_York', 'Asia/Kolkata']) {
        const fmt = new TimestampFormatter(precision, tz)
        // sorted runs (cache hits) and random jumps (misses), before and after 1970
        let t = -86_400n * 400n * per[precision]
        for (let i = 0; i < 3000; i++) {
          t += i % 50 === 0 ? BigInt(next()) * per[precision] : BigInt(next() % 5000)
          const got = fmt.format(t)
          const want = formatTimestamp(t, precision, tz)
          if (got !== want) {
            mismatches.push(`${precision} ${tz} ${t}: ${got} vs ${want}`)
          }
        }
      }
    }
    expect(mismatches.slice(0, 10)).toEqual([])
  })
})

describe('TimestampFormatter (cached) against formatTimestamp (reference)', () => {
  it('renders every value like the reference: repeated seconds, day changes, negatives, bigints', () => {
    const cases: [Precision, bigint[]][] = [
      ['ms', [1700000000000n, 1700000000001n, 1700000000999n, 1700000001000n, 1700000000500n, 86399999n, 86400000n, -1n, -1000n, -1001n, 0n]],
      ['us', [1700000000000000n, 1700000000000001n, 1700000000999999n, -1n, 9007199254740991n, 9007199254740993n]],
      ['ns', [1700000000000000000n, 1700000000000000001n, -1n, 0n]],
    ]
    for (const [precision, values] of cases) {
      for (const tz of [undefined, 'Asia/Shanghai']) {
        const f = new TimestampFormatter(precision, tz)
        for (const v of values) {
          expect(f.format(v)).toBe(formatTimestamp(v, precision, tz))
          if (v >= -(2n ** 53n) && v <= 2n ** 53n && precision !== 'ns') {
            expect(f.format(Number(v))).toBe(formatTimestamp(v, precision, tz))
          }
        }
      }
    }
  })
})
