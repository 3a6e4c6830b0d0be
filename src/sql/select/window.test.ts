import { DuckDBInstance } from '@duckdb/node-api'
import { describe, expect, it } from 'vitest'
import { alignSql, alignStart, extraWindows, resolveWindow } from './window.js'

describe('resolveWindow', () => {
  it('converts durations to ticks of the database precision', () => {
    expect(resolveWindow({ kind: 'interval', interval: { value: 1, unit: 'm' } }, 'us')).toEqual({
      interval: 60_000_000n,
      offset: 0n,
      sliding: 60_000_000n,
    })
    expect(resolveWindow({ kind: 'interval', interval: { value: 10, unit: '' }, sliding: { value: 5, unit: '' } }, 'ms')).toEqual({
      interval: 10n,
      offset: 0n,
      sliding: 5n,
    })
  })

  it('rejects offsets and slidings longer than the interval', () => {
    expect(() => resolveWindow({ kind: 'interval', interval: { value: 1, unit: 'm' }, offset: { value: 1, unit: 'm' } }, 'ms')).toThrow(
      'Interval offset should be shorter than interval',
    )
    expect(() => resolveWindow({ kind: 'interval', interval: { value: 1, unit: 'm' }, sliding: { value: 2, unit: 'm' } }, 'ms')).toThrow(
      'sliding value no larger than the interval value',
    )
  })
})

describe('alignStart', () => {
  it('floors to the epoch-aligned window, also before 1970 and with an offset', () => {
    const spec = { interval: 60n, offset: 0n, sliding: 60n }
    expect(alignStart(119n, spec)).toBe(60n)
    expect(alignStart(-1n, spec)).toBe(-60n)
    expect(alignStart(-60n, spec)).toBe(-60n)
    expect(alignStart(5n, { interval: 60n, offset: 10n, sliding: 60n })).toBe(-50n)
    expect(extraWindows({ interval: 60n, offset: 0n, sliding: 25n })).toBe(2)
  })
})

describe('alignSql', () => {
  it('computes in DuckDB the window start alignStart computes, on both sides of the epoch and the offset', async () => {
    const specs = [
      { interval: 60n, offset: 0n, sliding: 60n },
      { interval: 60n, offset: 7n, sliding: 60n },
      { interval: 60n, offset: 0n, sliding: 15n },
    ]
    const tss = [-121n, -120n, -61n, -60n, -59n, -1n, 0n, 1n, 6n, 7n, 8n, 59n, 60n, 61n, 67n, 1_700_000_000_123n, -1_700_000_000_123n]
    const instance = await DuckDBInstance.create(':memory:')
    const con = await instance.connect()
    try {
      for (const spec of specs) {
        const sql = `SELECT ts, ${alignSql('ts', spec)} FROM (VALUES ${tss.map((t) => `(${t}::BIGINT)`).join(', ')}) AS v(ts) ORDER BY ts`
        const rows = (await con.runAndReadAll(sql)).getRows() as Array<[bigint, bigint]>
        expect(rows).toHaveLength(tss.length)
        for (const [ts, start] of rows) {
          expect([ts, start]).toEqual([ts, alignStart(ts, spec)])
        }
        // the single-modulo form, for timestamps at or after the offset only
        const later = tss.filter((t) => t >= spec.offset)
        const plain = `SELECT ts, ${alignSql('ts', spec, true)} FROM (VALUES ${later.map((t) => `(${t}::BIGINT)`).join(', ')}) AS v(ts)`
        for (const [ts, start] of (await con.runAndReadAll(plain)).getRows() as Array<[bigint, bigint]>) {
          expect([ts, start]).toEqual([ts, alignStart(ts, spec)])
        }
      }
    } finally {
      con.closeSync()
      instance.closeSync()
    }
  })
})
