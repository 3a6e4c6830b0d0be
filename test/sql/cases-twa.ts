import { expect } from 'vitest'
import type { Case } from './harness.js'
import { err, exec } from './harness.js'

/**
 * TWA inside INTERVAL windows (issue 35 item 4). TDengine's definition: in each window
 * [wstart, wend) the area under the piecewise-linear curve through the non-NULL points, the curve
 * cut at the window's edges (the value there interpolated from the nearest points outside the
 * window, when the queried range has them), over the time covered. The expected values come from
 * the small oracle below, worked from that definition over the points the test inserts.
 */
const T0 = Date.UTC(2024, 0, 1)
type Pt = [number, number | null]

// seconds from T0 and values; a's NULL at 27 s is skipped by the curve
const A: Pt[] = [[1, 2], [4, 8], [12, 5], [27, null], [33, 1], [35, 9], [58, 4], [71, 7]]
const B: Pt[] = [[0, 10], [9, 0], [10, 3], [45, 6], [47, 2]]

/** the oracle: [window start ms, twa] for each window holding a row (NULL when none has a value), in time order */
function oracle(points: Pt[], intervalS: number, lo = -Infinity, hi = Infinity): Array<[number, number | null]> {
  const rows = points.filter((p) => p[0] * 1000 >= lo && p[0] * 1000 < hi)
  const pts = rows.filter((p): p is [number, number] => p[1] !== null).map(([s, y]): [number, number] => [s * 1000, y])
  const value = (t: number): number => {
    const i = pts.findIndex(([pt]) => pt >= t)
    const [t1, y1] = pts[i]
    if (t1 === t) {
      return y1
    }
    const [t0, y0] = pts[i - 1]
    return y0 + ((y1 - y0) * (t - t0)) / (t1 - t0)
  }
  const starts = [...new Set(rows.map(([s]) => Math.floor(s / intervalS) * intervalS * 1000))]
  return starts.map((ws) => {
    const we = ws + intervalS * 1000
    const inside = pts.filter(([t]) => t >= ws && t < we)
    if (inside.length === 0) {
      return [ws, null]
    }
    const first = pts.indexOf(inside[0])
    const last = pts.indexOf(inside[inside.length - 1])
    const start = first > 0 ? ws : inside[0][0]
    const end = last < pts.length - 1 ? we : inside[inside.length - 1][0]
    if (end === start) {
      return [ws, inside[0][1]]
    }
    // the curve's breakpoints within [start, end], trapezoid by trapezoid
    const xs = [start, ...pts.map(([t]) => t).filter((t) => t > start && t < end), end]
    let area = 0
    for (let k = 1; k < xs.length; k++) {
      area += ((value(xs[k - 1]) + value(xs[k])) / 2) * (xs[k] - xs[k - 1])
    }
    return [ws, area / (end - start)]
  })
}

const iso = (ms: number): string => new Date(T0 + ms).toISOString()

/** rows [label..., _wstart, twa] compared with the oracle's, values to 9 digits */
function expectWindows(json: any, want: Array<[...unknown[]]>): void {
  expect(json.code).toBe(0)
  expect(json.column_meta[json.column_meta.length - 1]).toEqual(['twa(v)', 'DOUBLE', 8])
  expect(json.data.length).toBe(want.length)
  json.data.forEach((row: unknown[], i: number) => {
    const exp = want[i]
    expect(row.slice(0, -1)).toEqual(exp.slice(0, -1))
    if (exp[exp.length - 1] === null) {
      expect(row[row.length - 1]).toBeNull()
    } else {
      expect(row[row.length - 1] as number).toBeCloseTo(exp[exp.length - 1] as number, 9)
    }
  })
}

const wins = (pts: Pt[], s: number, lo?: number, hi?: number): Array<[string, number | null]> => oracle(pts, s, lo, hi).map(([ws, v]) => [iso(ws), v])

export function twaCases(): Case[] {
  const insert = (tb: string, g: number, pts: Pt[]): string =>
    `insert into twa.${tb} using twa.st tags (${g}) values ` + pts.map(([s, v]) => `(${T0 + s * 1000}, ${v ?? 'NULL'})`).join(' ')
  return [
    { name: 'twa: create database', sql: 'create database twa', expect: exec(0) },
    { name: 'twa: create stable', sql: 'create stable twa.st (ts timestamp, v double) tags (g int)', expect: exec(0) },
    { name: 'twa: insert a', sql: insert('a', 1, A), expect: exec(A.length) },
    { name: 'twa: insert b', sql: insert('b', 2, B), expect: exec(B.length) },
    {
      name: 'twa in 10 s windows: the curve cut and interpolated at the edges',
      sql: 'select _wstart, twa(v) from twa.a interval(10s)',
      check: (json) => expectWindows(json, wins(A, 10)),
    },
    {
      name: 'twa in 20 s windows, a segment spanning an empty window',
      sql: 'select _wstart, twa(v) from twa.a interval(20s)',
      check: (json) => expectWindows(json, wins(A, 20)),
    },
    {
      name: 'twa in windows over a time range: points outside it are not interpolated from',
      sql: `select _wstart, twa(v) from twa.a where ts >= ${T0 + 4000} and ts < ${T0 + 60000} interval(10s)`,
      check: (json) => expectWindows(json, wins(A, 10, 4000, 60000)),
    },
    {
      name: 'twa per child in windows (partition by tbname)',
      sql: 'select tbname, _wstart, twa(v) from twa.st partition by tbname interval(10s) order by tbname, _wstart',
      check: (json) => expectWindows(json, [...wins(A, 10).map((r) => ['a', ...r]), ...wins(B, 10).map((r) => ['b', ...r])]),
    },
    {
      name: 'twa per tag in windows (partition by g)',
      sql: 'select g, _wstart, twa(v) from twa.st partition by g interval(15s) order by g, _wstart',
      check: (json) => expectWindows(json, [...wins(A, 15).map((r) => [1, ...r]), ...wins(B, 15).map((r) => [2, ...r])]),
    },
    {
      name: 'twa with fill(null): empty windows are NULL',
      sql: `select _wstart, twa(v) from twa.a where ts >= ${T0} and ts < ${T0 + 80000} interval(10s) fill(null)`,
      check: (json) => {
        const got = new Map(wins(A, 10))
        const all = Array.from({ length: 8 }, (_v, k) => iso(k * 10000)).map((ws) => [ws, got.get(ws) ?? null])
        expectWindows(json, all)
      },
    },
    {
      name: 'twa with sliding windows is refused (9817)',
      sql: 'select twa(v) from twa.a interval(20s) sliding(10s)',
      expect: err(9817, expect.stringContaining('twa')),
    },
    { name: 'twa: drop database', sql: 'drop database twa', expect: exec(0) },
  ]
}
