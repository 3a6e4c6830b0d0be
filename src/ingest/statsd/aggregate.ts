/**
 * @module
 * The StatsD aggregation between gathers, as the original's StatsD input does it (adapter-behaviour
 * 8): per series (name + tags + type) counters are summed, gauges set or moved by +/- deltas, sets
 * count distinct members, timings and histograms keep running statistics. `gather` turns the
 * caches into points (measurement = name, tag `metric_type`, the original's field names and types)
 * and clears the caches the delete flags say.
 *
 * Memory is bounded: past `maxSeries` series, or `maxSetMembers` set members in all, new ones are
 * refused (add answers false, the caller counts the drop); existing series keep aggregating.
 */
import type { Point } from '../point.js'
import { seriesKeyOf } from '../point.js'
import type { StatsdSample } from './parse.js'

export interface StatsdAggregatorOptions {
  deleteCounters: boolean
  deleteGauges: boolean
  deleteSets: boolean
  deleteTimings: boolean
  /** series held at once, all kinds together */
  maxSeries: number
  /** set members held at once, all sets together */
  maxSetMembers: number
}

interface Series {
  name: string
  tags: Array<[string, string]>
}
interface CounterSeries extends Series {
  sum: number
  /** the sum once it left the safe integer range */
  big?: bigint
}
interface GaugeSeries extends Series {
  value: number
}
interface SetSeries extends Series {
  members: Set<string>
}
interface TimingSeries extends Series {
  metricType: 'timing' | 'histogram'
  count: number
  mean: number
  /** sum of squared deviations from the mean (Welford), for the population stddev */
  m2: number
  sum: number
  upper: number
  lower: number
}

export class StatsdAggregator {
  readonly #o: StatsdAggregatorOptions
  readonly #counters = new Map<string, CounterSeries>()
  readonly #gauges = new Map<string, GaugeSeries>()
  readonly #sets = new Map<string, SetSeries>()
  readonly #timings = new Map<string, TimingSeries>()
  #setMembers = 0

  constructor(opts: StatsdAggregatorOptions) {
    this.#o = opts
  }

  /** series held now (all kinds) */
  get series(): number {
    return this.#counters.size + this.#gauges.size + this.#sets.size + this.#timings.size
  }

  /** Adds one sample; false when it was refused for the memory bounds (nothing changed). */
  add(s: StatsdSample): boolean {
    const key = `${s.name}\n${seriesKeyOf(s.tags)}`
    switch (s.type) {
      case 'c': {
        let c = this.#counters.get(key)
        if (c === undefined) {
          if (this.#full()) {
            return false
          }
          c = { name: s.name, tags: s.tags, sum: 0 }
          this.#counters.set(key, c)
        }
        addCounter(c, s)
        return true
      }
      case 'g': {
        let g = this.#gauges.get(key)
        if (g === undefined) {
          if (this.#full()) {
            return false
          }
          // a delta on a gauge not (or no longer) held starts from 0, as in the original
          g = { name: s.name, tags: s.tags, value: 0 }
          this.#gauges.set(key, g)
        }
        g.value = s.additive ? g.value + s.value : s.value
        return true
      }
      case 's': {
        let set = this.#sets.get(key)
        if (set === undefined) {
          if (this.#full()) {
            return false
          }
          set = { name: s.name, tags: s.tags, members: new Set() }
          this.#sets.set(key, set)
        }
        if (!set.members.has(s.member)) {
          if (this.#setMembers >= this.#o.maxSetMembers) {
            return false
          }
          set.members.add(s.member)
          this.#setMembers++
        }
        return true
      }
      case 'ms':
      case 'h': {
        const metricType = s.type === 'ms' ? 'timing' : 'histogram'
        const tkey = `${s.type}\n${key}`
        let t = this.#timings.get(tkey)
        if (t === undefined) {
          if (this.#full()) {
            return false
          }
          t = { name: s.name, tags: s.tags, metricType, count: 0, mean: 0, m2: 0, sum: 0, upper: -Infinity, lower: Infinity }
          this.#timings.set(tkey, t)
        }
        // the original adds a sample int(1/rate) times; adding it once with that weight is the
        // same statistics in constant time (a rate of 1e-9 would otherwise loop a billion times)
        addTiming(t, s.value, Math.trunc(1 / s.rate))
        return true
      }
      case 'd':
        // DataDog distributions: off in the original, read and ignored
        return true
    }
  }

  /** The points of everything held, stamped `tsNs`; then the caches the delete flags name are cleared. */
  gather(tsNs: bigint): Point[] {
    const points: Point[] = []
    for (const c of this.#counters.values()) {
      points.push(point(c, 'counter', tsNs, [{ name: 'value', type: 'BIGINT', value: c.big ?? BigInt(c.sum) }]))
    }
    for (const g of this.#gauges.values()) {
      points.push(point(g, 'gauge', tsNs, [{ name: 'value', type: 'DOUBLE', value: g.value }]))
    }
    for (const s of this.#sets.values()) {
      points.push(point(s, 'set', tsNs, [{ name: 'value', type: 'BIGINT', value: BigInt(s.members.size) }]))
    }
    for (const t of this.#timings.values()) {
      if (t.count === 0) {
        continue
      }
      points.push(
        point(t, t.metricType, tsNs, [
          { name: 'mean', type: 'DOUBLE', value: t.mean },
          { name: 'stddev', type: 'DOUBLE', value: Math.sqrt(Math.max(0, t.m2 / t.count)) },
          { name: 'sum', type: 'DOUBLE', value: t.sum },
          { name: 'upper', type: 'DOUBLE', value: t.upper },
          { name: 'lower', type: 'DOUBLE', value: t.lower },
          { name: 'count', type: 'BIGINT', value: BigInt(t.count) },
        ]),
      )
    }
    if (this.#o.deleteCounters) {
      this.#counters.clear()
    }
    if (this.#o.deleteGauges) {
      this.#gauges.clear()
    }
    if (this.#o.deleteSets) {
      this.#sets.clear()
      this.#setMembers = 0
    }
    if (this.#o.deleteTimings) {
      this.#timings.clear()
    }
    return points
  }

  #full(): boolean {
    return this.series >= this.#o.maxSeries
  }
}

function addCounter(c: CounterSeries, s: StatsdSample): void {
  if (c.big === undefined && s.big === undefined) {
    const sum = c.sum + s.value
    if (Number.isSafeInteger(sum)) {
      c.sum = sum
      return
    }
  }
  // a BIGINT column wraps as the original's int64 does
  c.big = BigInt.asIntN(64, (c.big ?? BigInt(c.sum)) + (s.big ?? BigInt(s.value)))
}

/** `n` copies of `v` merged into the running statistics (Chan et al.'s pairwise update). */
function addTiming(t: TimingSeries, v: number, n: number): void {
  if (n <= 0) {
    return
  }
  const total = t.count + n
  const delta = v - t.mean
  // weights first: delta * n overflowed for large values at small rates (1e300 at @1e-10: a mean
  // of Infinity, and 0 * Infinity = NaN as the first sample's m2)
  t.mean += delta * (n / total)
  const w = (t.count * n) / total
  if (w > 0) {
    t.m2 += w * delta * delta
  }
  t.count = total
  t.sum += v * n
  if (v > t.upper) {
    t.upper = v
  }
  if (v < t.lower) {
    t.lower = v
  }
}

function point(s: Series, metricType: string, ts: bigint, fields: Point['fields']): Point {
  return { measurement: s.name, tags: [...s.tags, ['metric_type', metricType]], fields, ts }
}
