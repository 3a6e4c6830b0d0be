import { expect } from 'vitest'
import type { Case } from './harness.js'
import { err, exec, rowsOf } from './harness.js'

/**
 * Aggregate, selection and time-series functions (issue 35 item 4). Expected values are worked
 * out by hand from TDengine's function reference over this dataset (ms precision, T0 =
 * 2024-01-01T00:00:00Z, times in seconds from T0):
 *
 *   fagg.st (ts, v int, f double) tags (g int)
 *   a (g=1):  0s v=1 f=1.5 | 10s v=3 f=0.5 | 20s v=2 f=2.5 | 30s v=NULL f=1 | 40s v=6 f=4
 *   b (g=2):  5s v=10 f=1  | 15s v=4 f=2   | 25s v=4 f=3   | 35s v=9 f=2
 */
const T0 = Date.UTC(2024, 0, 1)
const at = (s: number): string => new Date(T0 + s * 1000).toISOString()
const D: [string, string, number] = ['', 'DOUBLE', 8]
const col = (name: string, type: string, len: number): [string, string, number] => [name, type, len]
const dbl = (name: string): [string, string, number] => [name, D[1], D[2]]
const NOT_ALLOWED =
  'Some functions are allowed only in the SELECT list of a query. And, cannot be mixed with other non scalar functions or columns.'

function setup(): Case[] {
  const rows = (tb: string, g: number, data: Array<[number, number | null, number]>): string =>
    `insert into fagg.${tb} using fagg.st tags (${g}) values ` + data.map(([s, v, f]) => `(${T0 + s * 1000}, ${v ?? 'NULL'}, ${f})`).join(' ')
  return [
    { name: 'funcs: create database', sql: 'create database fagg', expect: exec(0) },
    { name: 'funcs: create stable', sql: 'create stable fagg.st (ts timestamp, v int, f double) tags (g int)', expect: exec(0) },
    {
      name: 'funcs: insert child a',
      sql: rows('a', 1, [
        [0, 1, 1.5],
        [10, 3, 0.5],
        [20, 2, 2.5],
        [30, null, 1],
        [40, 6, 4],
      ]),
      expect: exec(5),
    },
    {
      name: 'funcs: insert child b',
      sql: rows('b', 2, [
        [5, 10, 1],
        [15, 4, 2],
        [25, 4, 3],
        [35, 9, 2],
      ]),
      expect: exec(4),
    },
  ]
}

function statistical(): Case[] {
  return [
    { name: 'var_pop over a child: mean 3, squares 4+0+1+9 over 4', sql: 'select var_pop(v) from fagg.a', expect: rowsOf([dbl('var_pop(v)')], [[3.5]]) },
    {
      name: 'var_pop and stddev_pop per child (partition by tbname)',
      sql: 'select tbname, var_pop(v), stddev_pop(f) from fagg.st partition by tbname order by tbname',
      check: (json) => {
        expect(json.column_meta.slice(1)).toEqual([dbl('var_pop(v)'), dbl('stddev_pop(f)')])
        expect(json.data.map((r: unknown[]) => r[0])).toEqual(['a', 'b'])
        // b: v 10,4,4,9 mean 6.75, var (10.5625+7.5625+7.5625+5.0625)/4; a: f mean 1.9, var 1.54
        expect(json.data[1][1]).toBeCloseTo(7.6875, 10)
        expect(json.data[0][2]).toBeCloseTo(Math.sqrt(1.54), 10)
      },
    },
    { name: 'percentile(v, 50): linear between 2 and 3', sql: 'select percentile(v, 50) from fagg.a', expect: rowsOf([dbl('percentile(v, 50)')], [[2.5]]) },
    {
      name: 'percentile with several p is one VARCHAR list with six decimals',
      sql: 'select percentile(v, 25, 50, 75) from fagg.a',
      expect: rowsOf([col('percentile(v, 25, 50, 75)', 'VARCHAR', 3198)], [['[1.750000, 2.500000, 3.750000]']]),
    },
    {
      name: 'percentile 0 and 100 are min and max',
      sql: 'select percentile(v, 0, 100) p from fagg.b',
      expect: rowsOf([col('p', 'VARCHAR', 3198)], [['[4.000000, 10.000000]']]),
    },
    {
      name: 'percentile per INTERVAL window of a child',
      sql: 'select _wstart, percentile(f, 50) from fagg.a interval(20s)',
      expect: rowsOf(
        [col('_wstart', 'TIMESTAMP', 8), dbl('percentile(f, 50)')],
        [
          [at(0), 1],
          // f 2.5 and 1 (the NULL v row still has f)
          [at(20), 1.75],
          [at(40), 4],
        ],
      ),
    },
    { name: 'percentile over a super table is 9823', sql: 'select percentile(v, 50) from fagg.st', expect: err(9823, 'percentile is only supported in single table query') },
    {
      name: 'percentile with PARTITION BY is 9807',
      sql: 'select percentile(v, 50) from fagg.a partition by tbname',
      expect: err(9807, 'percentile function is not supported in partition query'),
    },
    { name: 'percentile outside [0, 100] is 10243', sql: 'select percentile(v, 101) from fagg.a', expect: err(10243, expect.any(String)) },
    {
      name: 'apercentile 0 and 100 are min and max, 50 lies between the middle values (default and t-digest)',
      sql: "select apercentile(v, 0), apercentile(v, 100, 't-digest'), apercentile(v, 50), apercentile(v, 50, 'DEFAULT') from fagg.st",
      check: (json) => {
        expect(json.column_meta).toEqual([dbl('apercentile(v, 0)'), dbl("apercentile(v, 100, 't-digest')"), dbl('apercentile(v, 50)'), dbl("apercentile(v, 50, 'DEFAULT')")])
        const [min, max, mid, mid2] = json.data[0]
        expect([min, max]).toEqual([1, 10])
        // the eight values 1 2 3 4 4 6 9 10: the median lies in [4, 4]
        expect(mid).toBeGreaterThanOrEqual(3)
        expect(mid).toBeLessThanOrEqual(6)
        expect(mid2).toBe(mid)
      },
    },
    { name: 'apercentile with an unknown algorithm is 10243', sql: "select apercentile(v, 50, 'exact') from fagg.a", expect: err(10243, expect.any(String)) },
    { name: 'mode: the most frequent value, its input type', sql: 'select mode(v) from fagg.b', expect: rowsOf([col('mode(v)', 'INT', 4)], [[4]]) },
    {
      name: 'hyperloglog: the distinct count over a super table and per group tag',
      sql: 'select g, hyperloglog(v) from fagg.st group by g order by g',
      expect: rowsOf(
        [col('g', 'INT', 4), col('hyperloglog(v)', 'BIGINT', 8)],
        [
          [1, 4],
          [2, 3],
        ],
      ),
    },
    { name: 'spread over the timestamp is the span in ticks', sql: 'select spread(ts) from fagg.a', expect: rowsOf([dbl('spread(ts)')], [[40000]]) },
  ]
}

function timeline(): Case[] {
  return [
    { name: 'elapsed(ts) in the database precision (ms)', sql: 'select elapsed(ts) from fagg.a', expect: rowsOf([dbl('elapsed(ts)')], [[40000]]) },
    {
      name: 'elapsed(ts, 1s) per child of a super table',
      sql: 'select tbname, elapsed(ts, 1s) from fagg.st partition by tbname order by tbname',
      expect: rowsOf(
        [col('tbname', 'VARCHAR', expect.any(Number) as unknown as number), dbl('elapsed(ts, 1s)')],
        [
          ['a', 40],
          ['b', 30],
        ],
      ),
    },
    {
      name: 'elapsed per INTERVAL window: first and last clipped to the data, inner ones the window length',
      sql: 'select _wstart, elapsed(ts, 1s) from fagg.a interval(15s)',
      expect: rowsOf(
        [col('_wstart', 'TIMESTAMP', 8), dbl('elapsed(ts, 1s)')],
        [
          [at(0), 15],
          [at(15), 15],
          [at(30), 10],
        ],
      ),
    },
    {
      name: 'elapsed per window and child (partition by tbname)',
      sql: 'select tbname, _wstart, elapsed(ts, 1s) from fagg.st partition by tbname interval(20s) order by tbname, _wstart',
      check: (json) => {
        expect(json.data.map((r: unknown[]) => [r[0], r[1], r[2]])).toEqual([
          ['a', at(0), 20],
          ['a', at(20), 20],
          ['a', at(40), 0],
          ['b', at(0), 15],
          ['b', at(20), 15],
        ])
      },
    },
    { name: 'elapsed of a non-timestamp column is 10242', sql: 'select elapsed(v) from fagg.a', expect: err(10242, expect.any(String)) },
    { name: 'irate: (6 - 2) over the last 20 s', sql: 'select irate(v) from fagg.a', expect: rowsOf([dbl('irate(v)')], [[0.2]]) },
    {
      name: 'irate after a drop takes the last value alone',
      sql: `select irate(v) from fagg.b where ts < ${T0 + 20000}`,
      expect: rowsOf([dbl('irate(v)')], [[0.4]]),
    },
    {
      name: 'irate per child',
      sql: 'select tbname, irate(v) from fagg.st partition by tbname order by tbname',
      check: (json) => {
        expect(json.data).toEqual([
          ['a', 0.2],
          ['b', 0.5],
        ])
      },
    },
  ]
}

export function funcsAggCases(): Case[] {
  return [...setup(), ...statistical(), ...timeline(), { name: 'funcs: drop database', sql: 'drop database fagg', expect: exec(0) }]
}

export { NOT_ALLOWED }
