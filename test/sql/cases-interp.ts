import { iso, timeline, type Row } from './cases-windows.js'
import type { Case } from './harness.js'
import { err, oneOf, rowsOf } from './harness.js'

/**
 * INTERP over the windows dataset (cases-windows.ts creates it). The oracle answers each time
 * point from the documented rules: the row at the point as it is (_isfilled false), else FILL
 * from the rows before and after it; PREV/NEXT/LINEAR/NEAR give no row where their neighbour
 * is missing.
 */

type Mode = 'null' | 'value' | 'prev' | 'next' | 'linear' | 'near'
type Col = 'v' | 'f'

function interp(rows: Row[], from: number, to: number, every: number, mode: Mode, cols: Col[], value = 0): unknown[][] {
  const out: unknown[][] = []
  for (let t = from; t <= to; t += every) {
    const exact = rows.find((r) => r.t === t)
    if (exact !== undefined) {
      out.push([iso(t), false, ...cols.map((c) => exact[c])])
      continue
    }
    const prev = rows.filter((r) => r.t < t).at(-1)
    const next = rows.find((r) => r.t > t)
    const vals = cols.map((c): unknown => {
      switch (mode) {
        case 'null':
          return null
        case 'value':
          return value
        case 'prev':
          return prev === undefined ? undefined : prev[c]
        case 'next':
          return next === undefined ? undefined : next[c]
        case 'near':
          if (prev === undefined || next === undefined) {
            return (prev ?? next)?.[c]
          }
          return t - prev.t <= next.t - t ? prev[c] : next[c]
        case 'linear': {
          if (prev === undefined || next === undefined) {
            return undefined
          }
          const a = prev[c]
          const b = next[c]
          if (a === null || b === null) {
            return null
          }
          const x = a + ((b - a) * (t - prev.t)) / (next.t - prev.t)
          return c === 'v' ? Math.trunc(x) : x
        }
      }
    })
    if (!vals.includes(undefined)) {
      out.push([iso(t), true, ...vals])
    }
  }
  return out
}

const META = (cols: Col[]): Array<[string, string, number]> => [
  ['_irowts', 'TIMESTAMP', 8],
  ['_isfilled', 'BOOL', 1],
  ...cols.map((c): [string, string, number] => [`interp(${c})`, c === 'v' ? 'INT' : 'DOUBLE', c === 'v' ? 4 : 8]),
]

const range = (a: number, b: number): string => `range('${iso(a)}', '${iso(b)}')`

export function interpCases(): Case[] {
  const a = timeline((r) => r.tb === 'a')
  const modes: Array<[Mode, string]> = [
    ['null', 'null'],
    ['value', 'value, 100, 2.5'],
    ['prev', 'prev'],
    ['next', 'next'],
    ['linear', 'linear'],
    ['near', 'near'],
  ]
  const perMode = modes.map(
    ([mode, fill]): Case => ({
      name: `INTERP FILL(${mode.toUpperCase()}) with two INTERP columns on a child table`,
      sql: `select _irowts, _isfilled, interp(v), interp(f) from wnd.a ${range(-2, 34)} every(2s) fill(${fill})`,
      expect: rowsOf(META(['v', 'f']), interp(a, -2, 34, 2, mode, ['v', 'f'])
        .map((r) => (mode === 'value' && r[1] === true ? [r[0], r[1], 100, 2.5] : r))),
    }),
  )
  const tb = oneOf(192, 270) as number
  return [
    ...perMode,
    {
      name: 'INTERP at a single point (RANGE without EVERY)',
      sql: `select _irowts, _isfilled, interp(f) from wnd.a range('${iso(5)}') fill(linear)`,
      expect: rowsOf(META(['f']), interp(a, 5, 5, 1, 'linear', ['f'])),
    },
    {
      name: 'INTERP at a single point that has a row',
      sql: `select _irowts, _isfilled, interp(v) from wnd.a range('${iso(11)}') fill(null)`,
      expect: rowsOf(META(['v']), [[iso(11), false, 3]]),
    },
    {
      name: 'INTERP with WHERE and an alias',
      sql: `select _irowts, _isfilled, interp(v) as iv from wnd.a where v is not null ${range(9, 14)} every(1s) fill(prev)`,
      expect: rowsOf(
        [['_irowts', 'TIMESTAMP', 8], ['_isfilled', 'BOOL', 1], ['iv', 'INT', 4]],
        interp(a.filter((r) => r.v !== null), 9, 14, 1, 'prev', ['v']),
      ),
    },
    {
      name: 'INTERP with PARTITION BY tbname',
      sql: `select tbname, _irowts, _isfilled, interp(f) from wnd.m partition by tbname ${range(2, 8)} every(1s) fill(linear)`,
      expect: rowsOf(
        [['tbname', 'VARCHAR', tb], ...META(['f'])],
        ['a', 'c', 'd'].flatMap((name) => interp(timeline((r) => r.tb === name), 2, 8, 1, 'linear', ['f']).map((r) => [name, ...r])),
      ),
    },
    {
      name: 'INTERP with PARTITION BY a tag',
      sql: `select g, _irowts, interp(f) from wnd.m partition by g ${range(3, 7)} every(1s) fill(next)`,
      expect: rowsOf(
        [['g', 'INT', 4], ['_irowts', 'TIMESTAMP', 8], ['interp(f)', 'DOUBLE', 8]],
        [1, 2].flatMap((g) => interp(timeline((r) => r.g === g), 3, 7, 1, 'next', ['f']).map((r) => [g, r[0], r[2]])),
      ),
    },
    {
      name: 'INTERP on a super table without PARTITION BY reads one timeline',
      sql: `select _irowts, _isfilled, interp(f) from wnd.m ${range(0, 8)} every(1s) fill(prev)`,
      expect: rowsOf(META(['f']), interp(timeline(() => true), 0, 8, 1, 'prev', ['f'])),
    },
    {
      name: 'INTERP with LIMIT',
      sql: `select _irowts, interp(f) from wnd.a ${range(0, 30)} every(1s) fill(null) limit 2 offset 3`,
      expect: rowsOf(
        [['_irowts', 'TIMESTAMP', 8], ['interp(f)', 'DOUBLE', 8]],
        interp(a, 0, 30, 1, 'null', ['f']).slice(3, 5).map((r) => [r[0], r[2]]),
      ),
    },
    {
      name: 'INTERP without FILL is 9821',
      sql: `select interp(v) from wnd.a ${range(0, 10)} every(1s)`,
      expect: err(9821, 'Invalid interp clause'),
    },
    {
      name: 'INTERP over a time range without EVERY is 9821',
      sql: `select interp(v) from wnd.a ${range(0, 10)} fill(prev)`,
      expect: err(9821, 'Invalid interp clause'),
    },
    {
      name: 'INTERP without RANGE is 9821',
      sql: 'select interp(v) from wnd.a every(1s) fill(prev)',
      expect: err(9821, 'Invalid interp clause'),
    },
    {
      name: 'RANGE without INTERP is 9821',
      sql: `select v from wnd.a ${range(0, 10)} every(1s) fill(prev)`,
      expect: err(9821, 'Invalid interp clause'),
    },
    {
      name: 'INTERP beside a plain column is 9807',
      sql: `select interp(v), f from wnd.a ${range(0, 10)} every(1s) fill(prev)`,
      expect: err(9807, 'Function(s) only allowed in SELECT list, cannot mixed with non scalar functions or columns'),
    },
  ]
}


