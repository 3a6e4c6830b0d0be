import { describe, expect, it } from 'vitest'
import type { Point } from '../point.js'
import { StatsdAggregator, type StatsdAggregatorOptions } from './aggregate.js'
import { parseStatsdText } from './parse.js'

const TS = 1_700_000_000_000_000_000n

function aggregator(opts: Partial<StatsdAggregatorOptions> = {}): StatsdAggregator & { feed(text: string): number } {
  const agg = new StatsdAggregator({
    deleteCounters: true,
    deleteGauges: true,
    deleteSets: true,
    deleteTimings: true,
    maxSeries: 1000,
    maxSetMembers: 1000,
    ...opts,
  })
  return Object.assign(agg, {
    /** feeds lines; answers how many samples were refused for the bounds */
    feed(text: string): number {
      let refused = 0
      parseStatsdText(
        text,
        (s) => {
          if (!agg.add(s)) {
            refused++
          }
        },
        (e) => {
          throw e
        },
      )
      return refused
    },
  })
}

/** measurement|tags -> fields, for order-free comparison */
function byKey(points: Point[]): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {}
  for (const p of points) {
    expect(p.ts).toBe(TS)
    out[`${p.measurement}|${p.tags.map((t) => t.join('=')).join(',')}`] = Object.fromEntries(p.fields.map((f) => [f.name, [f.type, f.value]]))
  }
  return out
}

describe('StatsD aggregation', () => {
  it('sums counters (with their sample rates) per series and emits BIGINT value with metric_type', () => {
    const agg = aggregator()
    agg.feed('page.views,host=a:3|c\npage.views,host=a:1|c|@0.5\npage.views,host=b:1|c\npage.views,host=a:-1|c')
    expect(byKey(agg.gather(TS))).toEqual({
      'page_views|host=a,metric_type=counter': { value: ['BIGINT', 4n] },
      'page_views|host=b,metric_type=counter': { value: ['BIGINT', 1n] },
    })
  })

  it('sets gauges, moves them by +/- deltas, a delta on a fresh gauge starting from 0', () => {
    const agg = aggregator()
    agg.feed('g:10|g\ng:+5|g\ng:-2.5|g\nfresh:-3|g')
    expect(byKey(agg.gather(TS))).toEqual({
      'g|metric_type=gauge': { value: ['DOUBLE', 12.5] },
      'fresh|metric_type=gauge': { value: ['DOUBLE', -3] },
    })
    agg.feed('g:20|g\ng:7|g')
    expect(byKey(agg.gather(TS))['g|metric_type=gauge']).toEqual({ value: ['DOUBLE', 7] })
  })

  it('counts distinct set members', () => {
    const agg = aggregator()
    agg.feed('users:alice|s\nusers:bob|s\nusers:alice|s')
    expect(byKey(agg.gather(TS))).toEqual({ 'users|metric_type=set': { value: ['BIGINT', 2n] } })
  })

  it('emits timings and histograms as mean, population stddev, sum, upper, lower, count', () => {
    const agg = aggregator()
    agg.feed('t:2|ms\nt:4|ms\nt:4|ms\nt:4|ms\nt:5|ms\nt:5|ms\nt:7|ms\nt:9|ms\nh:1|h')
    const got = byKey(agg.gather(TS))
    expect(got['t|metric_type=timing']).toEqual({
      mean: ['DOUBLE', 5],
      stddev: ['DOUBLE', 2],
      sum: ['DOUBLE', 40],
      upper: ['DOUBLE', 9],
      lower: ['DOUBLE', 2],
      count: ['BIGINT', 8n],
    })
    expect(got['h|metric_type=histogram']).toMatchObject({ count: ['BIGINT', 1n], stddev: ['DOUBLE', 0] })
  })

  it('counts a sampled timing int(1/rate) times, without looping over them', () => {
    const agg = aggregator()
    agg.feed('t:10|ms|@0.25\nt:20|ms|@0.3\nt:5|ms|@0.000000001')
    const t = byKey(agg.gather(TS))['t|metric_type=timing']
    // 1/1e-9 is 999999999.99... in floating point: int() of it, as in the original
    const n = Math.trunc(1 / 1e-9)
    expect(n).toBe(999_999_999)
    expect(t.count).toEqual(['BIGINT', BigInt(4 + 3 + n)])
    expect(t.sum).toEqual(['DOUBLE', 40 + 60 + 5 * n])
    expect(t.upper).toEqual(['DOUBLE', 20])
    expect(t.lower).toEqual(['DOUBLE', 5])
  })

  it('keeps mean and stddev finite for large values at small sample rates (found by the receiver fuzz)', () => {
    const agg = aggregator()
    agg.feed('big:1e300|ms|@0.0000000001\nbig:1e300|ms\none:1e300|h|@0.5')
    const got = byKey(agg.gather(TS))
    // the same value 1e10 + 1 times: its mean, no spread (was mean Infinity, stddev NaN)
    expect(got['big|metric_type=timing']).toMatchObject({ mean: ['DOUBLE', 1e300], stddev: ['DOUBLE', 0], upper: ['DOUBLE', 1e300], count: ['BIGINT', 10_000_000_001n] })
    expect(got['one|metric_type=histogram']).toMatchObject({ mean: ['DOUBLE', 1e300], stddev: ['DOUBLE', 0], count: ['BIGINT', 2n] })
  })

  it('keeps the caches the delete flags leave on, and re-emits them each gather', () => {
    const agg = aggregator({ deleteCounters: false, deleteGauges: false, deleteSets: false, deleteTimings: false })
    agg.feed('c:1|c\ng:5|g\ns:x|s\nt:1|ms')
    expect(Object.keys(byKey(agg.gather(TS)))).toHaveLength(4)
    agg.feed('c:2|c\ng:+1|g\ns:y|s\nt:3|ms')
    expect(byKey(agg.gather(TS))).toEqual({
      'c|metric_type=counter': { value: ['BIGINT', 3n] },
      'g|metric_type=gauge': { value: ['DOUBLE', 6] },
      's|metric_type=set': { value: ['BIGINT', 2n] },
      't|metric_type=timing': {
        mean: ['DOUBLE', 2],
        stddev: ['DOUBLE', 1],
        sum: ['DOUBLE', 4],
        upper: ['DOUBLE', 3],
        lower: ['DOUBLE', 1],
        count: ['BIGINT', 2n],
      },
    })
    expect(agg.series).toBe(4)
  })

  it('clears each cache by default, so an idle gather emits nothing', () => {
    const agg = aggregator()
    agg.feed('c:1|c\ng:5|g\ns:x|s\nt:1|ms')
    expect(agg.gather(TS)).toHaveLength(4)
    expect(agg.gather(TS)).toEqual([])
  })

  it('keeps counter, gauge and the two timing kinds of one bucket as separate series', () => {
    const agg = aggregator()
    agg.feed('x:1|c\nx:1|g\nx:1|ms\nx:1|h\nx:1|s')
    expect(agg.gather(TS).map((p) => p.tags.at(-1)?.[1]).sort()).toEqual(['counter', 'gauge', 'histogram', 'set', 'timing'])
  })

  it('sums counters beyond 2^53 exactly and wraps at 64 bits as the original int64', () => {
    const agg = aggregator()
    agg.feed('c:9007199254740991|c\nc:2|c\nw:9223372036854775807|c\nw:1|c')
    expect(byKey(agg.gather(TS))).toEqual({
      'c|metric_type=counter': { value: ['BIGINT', 9007199254740993n] },
      'w|metric_type=counter': { value: ['BIGINT', -9223372036854775808n] },
    })
  })

  it('refuses new series and set members past its bounds, existing ones go on', () => {
    const agg = aggregator({ maxSeries: 2, maxSetMembers: 3 })
    expect(agg.feed('a:1|c\nb:1|g\nc:1|c')).toBe(1)
    expect(agg.feed('a:1|c\nb:2|g')).toBe(0)
    expect(byKey(agg.gather(TS))).toEqual({ 'a|metric_type=counter': { value: ['BIGINT', 2n] }, 'b|metric_type=gauge': { value: ['DOUBLE', 2] } })
    expect(agg.feed('s:1|s\ns:2|s\ns:3|s\ns:4|s\ns:1|s')).toBe(1)
    expect(byKey(agg.gather(TS))).toEqual({ 's|metric_type=set': { value: ['BIGINT', 3n] } })
  })
})
