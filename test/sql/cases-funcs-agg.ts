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
      name: 'elapsed per INTERVAL window under a lower time bound (windows numbered from it)',
      sql: `select _wstart, elapsed(ts, 1s) from fagg.a where ts >= ${T0} interval(15s)`,
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

const TS = col('ts', 'TIMESTAMP', 8)
const bi = (name: string): [string, string, number] => col(name, 'BIGINT', 8)

function rowAligned(): Case[] {
  return [
    {
      name: 'csum skips NULL rows, BIGINT for an INT column',
      sql: 'select ts, csum(v) from fagg.a',
      expect: rowsOf([TS, bi('csum(v)')], [[at(0), 1], [at(10), 4], [at(20), 6], [at(40), 12]]),
    },
    {
      name: 'csum of a DOUBLE column keeps the row whose other column is NULL',
      sql: 'select csum(f) from fagg.a',
      expect: rowsOf([dbl('csum(f)')], [[1.5], [2], [4.5], [5.5], [9.5]]),
    },
    {
      name: 'csum over a super table is one timeline in time order',
      sql: 'select ts, csum(v) from fagg.st',
      expect: rowsOf([TS, bi('csum(v)')], [[at(0), 1], [at(5), 11], [at(10), 14], [at(15), 18], [at(20), 20], [at(25), 24], [at(35), 33], [at(40), 39]]),
    },
    {
      name: 'csum per child (partition by tbname)',
      sql: 'select tbname, csum(v) c from fagg.st partition by tbname',
      check: (json) => {
        expect(json.column_meta[1]).toEqual(bi('c'))
        expect(json.data).toEqual([['a', 1], ['a', 4], ['a', 6], ['a', 12], ['b', 10], ['b', 14], ['b', 18], ['b', 27]])
      },
    },
    {
      name: 'mavg(v, 2): from the second non-NULL row on',
      sql: 'select ts, mavg(v, 2) from fagg.a',
      expect: rowsOf([TS, dbl('mavg(v, 2)')], [[at(10), 2], [at(20), 2.5], [at(40), 4]]),
    },
    {
      name: 'statecount LT: the run counts on across a NULL (NULL out), -1 when false',
      sql: "select ts, statecount(v, 'LT', 5) from fagg.a",
      expect: rowsOf([TS, bi("statecount(v, 'LT', 5)")], [[at(0), 1], [at(10), 2], [at(20), 3], [at(30), null], [at(40), -1]]),
    },
    {
      name: 'statecount EQ and NE (lower case) per child',
      sql: "select tbname, statecount(v, 'eq', 4), statecount(v, 'ne', 4) from fagg.st partition by tbname",
      check: (json) => {
        expect(json.data.filter((r: unknown[]) => r[0] === 'b').map((r: unknown[]) => [r[1], r[2]])).toEqual([[-1, 1], [1, -1], [2, -1], [-1, 1]])
      },
    },
    {
      name: 'statecount GE and GT over a super table timeline',
      sql: "select statecount(v, 'GE', 3), statecount(v, 'GT', 3) from fagg.st",
      // v in time order: 1 10 3 4 2 4 NULL 9 6
      expect: rowsOf(
        [bi("statecount(v, 'GE', 3)"), bi("statecount(v, 'GT', 3)")],
        [[-1, -1], [1, 1], [2, -1], [3, 1], [-1, -1], [1, 1], [null, null], [2, 2], [3, 3]],
      ),
    },
    {
      name: 'stateduration LE with a unit, and in the database precision',
      sql: "select ts, stateduration(v, 'LE', 5, 1s), stateduration(v, 'LE', 5) from fagg.a",
      expect: rowsOf(
        [TS, bi("stateduration(v, 'LE', 5, 1s)"), bi("stateduration(v, 'LE', 5)")],
        [[at(0), 0, 0], [at(10), 10, 10000], [at(20), 20, 20000], [at(30), null, null], [at(40), -1, -1]],
      ),
    },
    { name: 'statecount with an unknown operator is 10243', sql: "select statecount(v, 'XX', 1) from fagg.a", expect: err(10243, expect.any(String)) },
  ]
}

function selections(): Case[] {
  return [
    { name: 'top(v, 2) of a child, in time order', sql: 'select ts, top(v, 2) from fagg.a', expect: rowsOf([TS, col('top(v, 2)', 'INT', 4)], [[at(10), 3], [at(40), 6]]) },
    {
      name: 'bottom over a super table with tbname beside it',
      sql: 'select tbname, ts, bottom(v, 2) from fagg.st',
      check: (json) => {
        expect(json.column_meta[2]).toEqual(col('bottom(v, 2)', 'INT', 4))
        expect(json.data).toEqual([['a', at(0), 1], ['a', at(20), 2]])
      },
    },
    {
      name: 'top per child (partition by tbname)',
      sql: 'select tbname, ts, top(v, 2) from fagg.st partition by tbname',
      check: (json) => {
        expect(json.data).toEqual([['a', at(10), 3], ['a', at(40), 6], ['b', at(5), 10], ['b', at(35), 9]])
      },
    },
    {
      name: 'LIMIT per partition counts the rows top picks (offset 1: the second in time; ties keep the earlier row)',
      sql: 'select tbname, ts, top(v, 3) from fagg.st partition by tbname limit 1 offset 1',
      expect: rowsOf([col('tbname', 'VARCHAR', expect.any(Number) as unknown as number), TS, col('top(v, 3)', 'INT', 4)], [['a', at(20), 2], ['b', at(15), 4]]),
    },
    {
      name: 'LIMIT per partition with diff (the first output row of each child)',
      sql: 'select tbname, diff(v) from fagg.st partition by tbname limit 1',
      check: (json) => {
        expect(json.data).toEqual([['a', 2], ['b', -6]])
      },
    },
    {
      name: 'LIMIT per partition with csum',
      sql: 'select tbname, csum(v) from fagg.st partition by tbname limit 2',
      check: (json) => {
        expect(json.data).toEqual([['a', 1], ['a', 4], ['b', 10], ['b', 14]])
      },
    },
    {
      name: 'top per INTERVAL window: NULL values are never picked',
      sql: 'select _wstart, ts, top(v, 2) from fagg.a interval(20s)',
      expect: rowsOf([col('_wstart', 'TIMESTAMP', 8), TS, col('top(v, 2)', 'INT', 4)], [[at(0), at(0), 1], [at(0), at(10), 3], [at(20), at(20), 2], [at(40), at(40), 6]]),
    },
    {
      name: 'top per GROUP BY tag',
      sql: 'select g, top(v, 1) from fagg.st group by g',
      expect: rowsOf([col('g', 'INT', 4), col('top(v, 1)', 'INT', 4)], [[1, 6], [2, 10]]),
    },
    { name: 'tail(v, 2) keeps NULL values', sql: 'select ts, tail(v, 2) from fagg.a', expect: rowsOf([TS, col('tail(v, 2)', 'INT', 4)], [[at(30), null], [at(40), 6]]) },
    { name: 'tail(v, 2, 1) skips the last row', sql: 'select ts, tail(v, 2, 1) from fagg.a', expect: rowsOf([TS, col('tail(v, 2, 1)', 'INT', 4)], [[at(20), 2], [at(30), null]]) },
    { name: 'unique: the first row of each value', sql: 'select ts, unique(v) from fagg.b', expect: rowsOf([TS, col('unique(v)', 'INT', 4)], [[at(5), 10], [at(15), 4], [at(35), 9]]) },
    {
      name: 'sample(v, 3): three of the rows, in time order, each a real (ts, v) pair',
      sql: 'select ts, sample(v, 3) from fagg.a',
      check: (json) => {
        const real = new Map<string, unknown>([[at(0), 1], [at(10), 3], [at(20), 2], [at(30), null], [at(40), 6]])
        expect(json.column_meta).toEqual([TS, col('sample(v, 3)', 'INT', 4)])
        expect(json.rows).toBe(3)
        const times = json.data.map((r: unknown[]) => r[0] as string)
        expect([...times].sort()).toEqual(times)
        expect(new Set(times).size).toBe(3)
        for (const [t, v] of json.data) {
          expect(real.has(t)).toBe(true)
          expect(v).toBe(real.get(t))
        }
      },
    },
    {
      name: 'sample with k above the row count returns every row',
      sql: 'select count(*) from (select sample(v, 100) s from fagg.st)',
      expect: rowsOf([bi('count(*)')], [[9]]),
    },
  ]
}

const H = (name: string): [string, string, number] => col(name, 'VARCHAR', 510)
const bin = (lo: string, hi: string, count: string): string => `{"lower_bin":${lo}, "upper_bin":${hi}, "count":${count}}`

function histograms(): Case[] {
  // v over the super table: 1 3 2 6 10 4 4 9 (NULL skipped)
  return [
    {
      name: 'histogram user_input: lower < v <= upper, one row per bin',
      sql: "select histogram(v, 'user_input', '[0, 3, 6, 10]', 0) from fagg.st",
      expect: rowsOf([H("histogram(v, 'user_input', '[0, 3, 6, 10]', 0)")], [[bin('0', '3', '3')], [bin('3', '6', '3')], [bin('6', '10', '2')]]),
    },
    {
      name: 'histogram linear_bin with infinity',
      sql: `select histogram(v, 'linear_bin', '{"start": 0, "width": 4, "count": 2, "infinity": true}', 0) h from fagg.st`,
      expect: rowsOf([H('h')], [[bin('-inf', '0', '0')], [bin('0', '4', '5')], [bin('4', '8', '1')], [bin('8', 'inf', '2')]]),
    },
    {
      name: 'histogram log_bin normalized: shares of the binned values with six decimals',
      sql: `select histogram(v, 'log_bin', '{"start": 1, "factor": 2, "count": 3, "infinity": false}', 1) h from fagg.st`,
      expect: rowsOf([H('h')], [[bin('1', '2', '0.200000')], [bin('2', '4', '0.600000')], [bin('4', '8', '0.200000')]]),
    },
    {
      name: 'histogram per GROUP BY tag, bins in order within each group',
      sql: "select g, histogram(v, 'user_input', '[0, 5, 10]', 0) h from fagg.st group by g",
      expect: rowsOf([col('g', 'INT', 4), H('h')], [[1, bin('0', '5', '3')], [1, bin('5', '10', '1')], [2, bin('0', '5', '2')], [2, bin('5', '10', '2')]]),
    },
    {
      name: 'histogram per child and INTERVAL window',
      sql: "select tbname, _wstart, histogram(v, 'user_input', '[0, 5, 10]', 0) h from fagg.st partition by tbname interval(40s)",
      check: (json) => {
        expect(json.data.map((r: unknown[]) => [r[0], r[1], r[2]])).toEqual([
          ['a', at(0), bin('0', '5', '3')],
          ['a', at(0), bin('5', '10', '0')],
          ['a', at(40), bin('0', '5', '0')],
          ['a', at(40), bin('5', '10', '1')],
          ['b', at(0), bin('0', '5', '2')],
          ['b', at(0), bin('5', '10', '2')],
        ])
      },
    },
    { name: 'histogram with an unknown bin type is 10243', sql: "select histogram(v, 'equal', '[0, 1]', 0) from fagg.a", expect: err(10243, expect.any(String)) },
    { name: 'histogram with unordered user bins is 10243', sql: "select histogram(v, 'user_input', '[3, 1]', 0) from fagg.a", expect: err(10243, expect.any(String)) },
    { name: 'histogram beside count is 9807', sql: "select count(*), histogram(v, 'user_input', '[0, 1]', 0) from fagg.a", expect: err(9807, NOT_ALLOWED) },
  ]
}

function placement(): Case[] {
  return [
    { name: 'top beside another aggregate is 9807', sql: 'select top(v, 2), count(*) from fagg.a', expect: err(9807, NOT_ALLOWED) },
    { name: 'top beside bottom is 9807', sql: 'select top(v, 2), bottom(v, 2) from fagg.a', expect: err(9807, NOT_ALLOWED) },
    { name: 'csum inside an expression is 9807', sql: 'select csum(v) + 1 from fagg.a', expect: err(9807, NOT_ALLOWED) },
    { name: 'mavg nested in abs is 9807', sql: 'select abs(mavg(v, 2)) from fagg.a', expect: err(9807, NOT_ALLOWED) },
    { name: 'csum beside mavg is 9807', sql: 'select csum(v), mavg(v, 2) from fagg.a', expect: err(9807, NOT_ALLOWED) },
    {
      name: 'csum with INTERVAL is 9807',
      sql: 'select csum(v) from fagg.a interval(10s)',
      expect: err(9807, 'csum function is not supported in window query or group query'),
    },
    {
      name: 'statecount with GROUP BY is 9807',
      sql: "select statecount(v, 'LT', 1) from fagg.st group by g",
      expect: err(9807, 'statecount function is not supported in window query or group query'),
    },
    { name: 'csum beside diff is 9807', sql: 'select diff(v), csum(v) from fagg.a', expect: err(9807, NOT_ALLOWED) },
    { name: 'top with FILL is 9815', sql: 'select top(v, 2) from fagg.a interval(20s) fill(null)', expect: err(9815, 'top function is not supported in fill query') },
    {
      name: 'histogram with FILL is 9815',
      sql: "select histogram(v, 'user_input', '[0, 5]', 0) from fagg.a interval(20s) fill(value, 0)",
      expect: err(9815, 'histogram function is not supported in fill query'),
    },
    { name: 'top in WHERE is 9807', sql: 'select v from fagg.a where top(v, 1) > 0', expect: err(9807, NOT_ALLOWED) },
    { name: 'top(v, 101) is 10243', sql: 'select top(v, 101) from fagg.a', expect: err(10243, expect.any(String)) },
    { name: 'top of a string column is 10242', sql: "select top(tbname, 1) from fagg.st", expect: err(10242, expect.any(String)) },
  ]
}

function ordered(): Case[] {
  const L = (name: string): [string, string, number] => col(name, 'VARCHAR', 126)
  return [
    { name: 'twa: trapezoids (1+3)/2*10 + (3+2)/2*10 + (2+6)/2*20 over 40 s', sql: 'select twa(v) from fagg.a', expect: rowsOf([dbl('twa(v)')], [[3.125]]) },
    { name: 'twa of a column without NULLs', sql: 'select twa(f) from fagg.a', expect: rowsOf([dbl('twa(f)')], [[1.6875]]) },
    {
      name: 'twa per child',
      sql: 'select tbname, twa(v) from fagg.st partition by tbname order by tbname',
      check: (json) => {
        expect(json.data[0]).toEqual(['a', 3.125])
        expect(json.data[1][0]).toBe('b')
        expect(json.data[1][1]).toBeCloseTo(175 / 30, 12)
      },
    },
    { name: 'twa of one point is its value', sql: `select twa(v) from fagg.a where ts = ${T0 + 10000}`, expect: rowsOf([dbl('twa(v)')], [[3]]) },
    { name: 'twa in a sliding INTERVAL window is refused (9817)', sql: 'select twa(v) from fagg.a interval(20s) sliding(10s)', expect: err(9817, expect.stringContaining('twa')) },
    {
      name: 'leastsquares: x = 1, 2, 3, 4 over the non-NULL values',
      sql: 'select leastsquares(v, 1, 1) from fagg.a',
      expect: rowsOf([L('leastsquares(v, 1, 1)')], [['{slop:1.400000, intercept:-0.500000}']]),
    },
    { name: 'leastsquares with start 0, step 2', sql: 'select leastsquares(v, 0, 2) l from fagg.b', expect: rowsOf([L('l')], [['{slop:-0.150000, intercept:7.200000}']]) },
    {
      name: 'leastsquares per INTERVAL window: NULL where one point leaves the line open',
      sql: 'select _wstart, leastsquares(v, 1, 1) l from fagg.a interval(20s)',
      expect: rowsOf([col('_wstart', 'TIMESTAMP', 8), L('l')], [[at(0), '{slop:2.000000, intercept:-1.000000}'], [at(20), null], [at(40), null]]),
    },
  ]
}

export function funcsAggCases(): Case[] {
  return [...setup(), ...statistical(), ...timeline(), ...ordered(), ...rowAligned(), ...selections(), ...histograms(), ...placement(), { name: 'funcs: drop database', sql: 'drop database fagg', expect: exec(0) }]
}

export { NOT_ALLOWED }
