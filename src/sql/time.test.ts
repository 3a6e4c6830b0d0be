import { describe, expect, it } from 'vitest'
import { durationTicks, floorDiv, formatTimestamp, nowTicks, parseTimestampString, todayTicks } from './time.js'

// 2000-01-01T00:00:00Z is 946684800 s after the epoch (well-known constant)
const Y2K_S = 946_684_800n

describe('parseTimestampString', () => {
  it('reads zone-less datetimes as UTC in every precision', () => {
    expect(parseTimestampString('2000-01-01 00:00:00', 'ms')).toBe(Y2K_S * 1000n)
    expect(parseTimestampString('2000-01-01 00:00:00.5', 'ms')).toBe(Y2K_S * 1000n + 500n)
    expect(parseTimestampString('2000-01-01 00:00:01.123456', 'us')).toBe((Y2K_S + 1n) * 1_000_000n + 123_456n)
    expect(parseTimestampString('2000-01-01T00:00:01.123456789', 'ns')).toBe((Y2K_S + 1n) * 1_000_000_000n + 123_456_789n)
    expect(parseTimestampString('2000-01-01', 'ms')).toBe(Y2K_S * 1000n)
  })

  it('applies Z and numeric offsets', () => {
    // the TDengine docs pair 1626164208000 with 2021-07-13 16:16:48 at +08:00
    expect(parseTimestampString('2021-07-13T16:16:48+08:00', 'ms')).toBe(1_626_164_208_000n)
    expect(parseTimestampString('2021-07-13T16:16:48+0800', 'ms')).toBe(1_626_164_208_000n)
    expect(parseTimestampString('2021-07-13T16:16:48+08', 'ms')).toBe(1_626_164_208_000n)
    expect(parseTimestampString('2021-07-13T08:16:48Z', 'ms')).toBe(1_626_164_208_000n)
    expect(parseTimestampString('2021-07-13T03:16:48-05:00', 'ms')).toBe(1_626_164_208_000n)
  })

  it('truncates fraction digits finer than the precision', () => {
    expect(parseTimestampString('2000-01-01T00:00:00.123456789Z', 'ms')).toBe(Y2K_S * 1000n + 123n)
    expect(parseTimestampString('2000-01-01T00:00:00.123456789Z', 'us')).toBe(Y2K_S * 1_000_000n + 123_456n)
  })

  it('handles dates before the epoch with floor semantics', () => {
    expect(parseTimestampString('1969-12-31T23:59:59.999Z', 'ms')).toBe(-1n)
    expect(parseTimestampString('1969-12-31T23:59:59.9999995Z', 'us')).toBe(-1n)
  })

  it('rejects malformed or impossible dates with 295', () => {
    for (const s of ['2021-13-01 00:00:00', '2021-02-29', '2020-02-30', 'abc', '2021-01-01 24:00:00', '2021-01-01X', '1626164208000']) {
      expect(() => parseTimestampString(s, 'ms'), s).toThrow(expect.objectContaining({ code: 295 }))
    }
    expect(parseTimestampString('2020-02-29', 'ms')).toBe(parseTimestampString('2020-03-01', 'ms') - 86_400_000n)
  })
})

describe('durationTicks', () => {
  it('converts each unit to ticks of the precision', () => {
    expect(durationTicks(1, 's', 'ms')).toBe(1000n)
    expect(durationTicks(10, 'm', 'us')).toBe(600_000_000n)
    expect(durationTicks(500, 'a', 'ns')).toBe(500_000_000n)
    expect(durationTicks(1, 'h', 'ms')).toBe(3_600_000n)
    expect(durationTicks(2, 'd', 'ms')).toBe(172_800_000n)
    expect(durationTicks(1, 'w', 'ms')).toBe(604_800_000n)
    expect(durationTicks(5, 'b', 'ns')).toBe(5n)
    expect(durationTicks(3, 'u', 'us')).toBe(3n)
    expect(durationTicks(3, 'u', 'ms')).toBe(0n)
    expect(durationTicks(0.5, 's', 'ms')).toBe(500n)
  })

  it('rejects calendar units unless allowed', () => {
    expect(() => durationTicks(1, 'n', 'ms')).toThrow(expect.objectContaining({ code: 9728 }))
    expect(() => durationTicks(1, 'y', 'ms')).toThrow(expect.objectContaining({ code: 9728 }))
    expect(durationTicks(1, 'n', 'ms', { allowCalendar: true })).toBe(30n * 86_400_000n)
    expect(() => durationTicks(1, 'q', 'ms')).toThrow(expect.objectContaining({ code: 9728 }))
  })
})

describe('formatTimestamp', () => {
  it('prints fixed fraction widths per precision in UTC', () => {
    expect(formatTimestamp(1_626_164_208_000n, 'ms')).toBe('2021-07-13T08:16:48.000Z')
    expect(formatTimestamp(Y2K_S * 1000n + 320n, 'ms')).toBe('2000-01-01T00:00:00.320Z')
    expect(formatTimestamp(Y2K_S * 1_000_000n + 5n, 'us')).toBe('2000-01-01T00:00:00.000005Z')
    expect(formatTimestamp(Y2K_S * 1_000_000_000n + 123_456_789n, 'ns')).toBe('2000-01-01T00:00:00.123456789Z')
    expect(formatTimestamp(-1n, 'ms')).toBe('1969-12-31T23:59:59.999Z')
    expect(formatTimestamp(0n, 'ms', 'UTC')).toBe('1970-01-01T00:00:00.000Z')
  })

  it('prints local time and offset for IANA zones', () => {
    expect(formatTimestamp(1_626_164_208_000n, 'ms', 'Asia/Shanghai')).toBe('2021-07-13T16:16:48.000+08:00')
    // New York: EST (-05:00) in January, EDT (-04:00) in July
    expect(formatTimestamp(Y2K_S * 1000n, 'ms', 'America/New_York')).toBe('1999-12-31T19:00:00.000-05:00')
    expect(formatTimestamp(1_626_164_208_000n, 'ms', 'America/New_York')).toBe('2021-07-13T04:16:48.000-04:00')
    expect(formatTimestamp(1_626_164_208_000n, 'ms', 'Asia/Kolkata')).toBe('2021-07-13T13:46:48.000+05:30')
  })

  it('round-trips through parseTimestampString in ms, us and ns', () => {
    for (const p of ['ms', 'us', 'ns'] as const) {
      for (const s of ['2024-05-01T10:20:30.123456789Z', '1999-12-31T23:59:59.999999999Z', '2262-04-11T00:00:00.000000001Z']) {
        const t = parseTimestampString(s, p)
        expect(parseTimestampString(formatTimestamp(t, p), p)).toBe(t)
        expect(parseTimestampString(formatTimestamp(t, p, 'Asia/Shanghai'), p)).toBe(t)
      }
    }
  })
})

describe('clock helpers', () => {
  it('uses the injected clock', () => {
    expect(nowTicks('us', 1_000)).toBe(1_000_000n)
    expect(todayTicks('ms', 86_400_000 * 3 + 5)).toBe(86_400_000n * 3n)
    const real = nowTicks('ns')
    expect(real > BigInt(Date.now() - 1000) * 1_000_000n).toBe(true)
  })

  it('floorDiv rounds toward minus infinity', () => {
    expect(floorDiv(-1n, 1000n)).toBe(-1n)
    expect(floorDiv(1999n, 1000n)).toBe(1n)
    expect(floorDiv(-1000n, 1000n)).toBe(-1n)
  })
})
