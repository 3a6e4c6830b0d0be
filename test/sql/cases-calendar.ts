import type { Case } from './harness.js'
import { err, exec, rowsOf } from './harness.js'

/**
 * Natural month and year INTERVAL windows (UTC, the adapter's time zone), with offsets and FILL,
 * and FILL with ORDER BY _wstart DESC. The oracle finds each row's window with JavaScript's Date:
 * months counted from January 1900, as TDengine aligns them.
 */

const ROWS: Array<[string, number]> = [
  ['2023-11-15T08:00:00.000Z', 1],
  ['2024-01-01T00:00:00.000Z', 2],
  ['2024-01-31T23:59:59.999Z', 3],
  ['2024-02-29T12:00:00.000Z', 4],
  ['2024-03-01T00:00:00.000Z', 5],
  ['2024-05-20T10:00:00.000Z', 6],
  ['2024-12-31T23:00:00.000Z', 7],
  ['2025-02-01T00:30:00.000Z', 8],
]

const DAY = 86_400_000

function monthStart(m: number): number {
  return Date.UTC(1900 + Math.floor(m / 12), ((m % 12) + 12) % 12, 1)
}

interface Win {
  start: number
  end: number
  count: number
  sum: number
}

/** windows of k months, offset by `offMs` milliseconds or `offMonths` months */
function windows(k: number, offMs = 0, offMonths = 0, rows = ROWS): Win[] {
  const byStart = new Map<number, Win>()
  for (const [ts, v] of rows) {
    const d = new Date(Date.parse(ts) - offMs)
    const idx = (d.getUTCFullYear() - 1900) * 12 + d.getUTCMonth()
    const n = Math.floor((idx - offMonths) / k)
    const start = monthStart(n * k + offMonths) + offMs
    const w = byStart.get(start) ?? { start, end: monthStart((n + 1) * k + offMonths) + offMs, count: 0, sum: 0 }
    w.count++
    w.sum += v
    byStart.set(start, w)
  }
  return [...byStart.values()].sort((a, b) => a.start - b.start)
}

const iso = (ms: number): string => new Date(ms).toISOString()
const META: Array<[string, string, number]> = [
  ['_wstart', 'TIMESTAMP', 8],
  ['_wend', 'TIMESTAMP', 8],
  ['_wduration', 'BIGINT', 8],
  ['count(*)', 'BIGINT', 8],
  ['sum(v)', 'BIGINT', 8],
]
const full = (ws: Win[]): unknown[][] => ws.map((w) => [iso(w.start), iso(w.end), w.end - w.start, w.count, w.sum])
const COLS = 'select _wstart, _wend, _wduration, count(*), sum(v) from wnd.mon'

/** the months from `from` (inclusive) to `to` (exclusive) as window starts, each with its data window or none */
function filled(from: string, to: string): Array<[number, Win | undefined]> {
  const lo = Date.parse(from)
  const hi = Date.parse(to)
  const data = windows(1, 0, 0, ROWS.filter(([ts]) => Date.parse(ts) >= lo && Date.parse(ts) < hi))
  const out: Array<[number, Win | undefined]> = []
  const d = new Date(lo)
  for (let m = (d.getUTCFullYear() - 1900) * 12 + d.getUTCMonth(); monthStart(m) < hi; m++) {
    out.push([monthStart(m), data.find((w) => w.start === monthStart(m))])
  }
  return out
}

export function calendarCases(): Case[] {
  const fillRange = "where ts >= '2024-01-01T00:00:00Z' and ts < '2024-07-01T00:00:00Z'"
  const months = filled('2024-01-01T00:00:00Z', '2024-07-01T00:00:00Z')
  const sumMeta: Array<[string, string, number]> = [['_wstart', 'TIMESTAMP', 8], ['sum(v)', 'BIGINT', 8]]
  let last: number | null = null
  const prev = months.map(([s, w]) => {
    last = w?.sum ?? last
    return [iso(s), last]
  })
  return [
    { name: 'calendar: create table', sql: 'create table wnd.mon (ts timestamp, v int)', expect: exec(0) },
    {
      name: 'calendar: insert',
      sql: `insert into wnd.mon values ${ROWS.map(([ts, v]) => `('${ts}', ${v})`).join(' ')}`,
      expect: exec(ROWS.length),
    },
    { name: 'INTERVAL(1n): natural months', sql: `${COLS} interval(1n)`, expect: rowsOf(META, full(windows(1))) },
    { name: 'INTERVAL(3n): quarters', sql: `${COLS} interval(3n)`, expect: rowsOf(META, full(windows(3))) },
    { name: 'INTERVAL(1y): natural years', sql: `${COLS} interval(1y)`, expect: rowsOf(META, full(windows(12))) },
    { name: 'INTERVAL(1n, 1d): months offset by a day', sql: `${COLS} interval(1n, 1d)`, expect: rowsOf(META, full(windows(1, DAY))) },
    { name: 'INTERVAL(1y, 2n): years offset by two months', sql: `${COLS} interval(1y, 2n)`, expect: rowsOf(META, full(windows(12, 0, 2))) },
    {
      name: 'INTERVAL(1n) on a super table with PARTITION BY tbname',
      sql: 'select tbname, _wstart, count(*) from wnd.m partition by tbname interval(1n)',
      expect: rowsOf(
        [['tbname', 'VARCHAR', expectAnyTbnameLength()], ['_wstart', 'TIMESTAMP', 8], ['count(*)', 'BIGINT', 8]],
        [['a', '2024-01-01T00:00:00.000Z', 7], ['c', '2024-01-01T00:00:00.000Z', 3], ['d', '2024-01-01T00:00:00.000Z', 3]],
      ),
    },
    {
      name: 'INTERVAL(1n) FILL(NULL) over the WHERE range',
      sql: `select _wstart, _wend, _wduration, sum(v) from wnd.mon ${fillRange} interval(1n) fill(null)`,
      expect: rowsOf(
        [['_wstart', 'TIMESTAMP', 8], ['_wend', 'TIMESTAMP', 8], ['_wduration', 'BIGINT', 8], ['sum(v)', 'BIGINT', 8]],
        months.map(([s, w]) => {
          const e = new Date(s)
          const end = Date.UTC(e.getUTCFullYear(), e.getUTCMonth() + 1, 1)
          return [iso(s), iso(end), end - s, w?.sum ?? null]
        }),
      ),
    },
    {
      name: 'INTERVAL(1n) FILL(VALUE, 0)',
      sql: `select _wstart, sum(v) from wnd.mon ${fillRange} interval(1n) fill(value, 0)`,
      expect: rowsOf(sumMeta, months.map(([s, w]) => [iso(s), w?.sum ?? 0])),
    },
    { name: 'INTERVAL(1n) FILL(PREV)', sql: `select _wstart, sum(v) from wnd.mon ${fillRange} interval(1n) fill(prev)`, expect: rowsOf(sumMeta, prev) },
    {
      name: 'INTERVAL(1n) FILL(PREV) ORDER BY _wstart DESC',
      sql: `select _wstart, sum(v) from wnd.mon ${fillRange} interval(1n) fill(prev) order by _wstart desc`,
      expect: rowsOf(sumMeta, [...prev].reverse()),
    },
    {
      name: 'INTERVAL(1n) FILL(NEXT) ORDER BY _wstart DESC LIMIT 3',
      sql: `select _wstart, sum(v) from wnd.mon ${fillRange} interval(1n) fill(next) order by _wstart desc limit 3`,
      expect: rowsOf(
        sumMeta,
        months
          .map(([s], i) => [iso(s), months.slice(i).find(([, w]) => w !== undefined)?.[1]?.sum ?? null])
          .reverse()
          .slice(0, 3),
      ),
    },
    {
      name: 'INTERVAL(1n) FILL(LINEAR) ORDER BY _wstart DESC (interpolated by time across months of different lengths)',
      sql: `select _wstart, sum(v) from wnd.mon ${fillRange} interval(1n) fill(linear) order by _wstart desc`,
      expect: rowsOf(
        sumMeta,
        months
          .map(([s, w], i) => {
            if (w !== undefined) {
              return [iso(s), w.sum]
            }
            const before = months.slice(0, i).reverse().find(([, x]) => x !== undefined)
            const after = months.slice(i).find(([, x]) => x !== undefined)
            if (before === undefined || after === undefined) {
              return [iso(s), null]
            }
            const [sa, wa] = before as [number, Win]
            const [sb, wb] = after as [number, Win]
            return [iso(s), Math.trunc(wa.sum + ((wb.sum - wa.sum) * (s - sa)) / (sb - sa))]
          })
          .reverse(),
      ),
    },
    {
      name: 'INTERVAL(1n) SLIDING is 9776',
      sql: `${COLS} interval(1n) sliding(1n)`,
      expect: err(9776, 'Does not support sliding when interval is natural month/year'),
    },
    {
      name: "INTERVAL(1n, 1y) is 9774",
      sql: `${COLS} interval(1n, 1y)`,
      expect: err(9774, "Cannot use 'year' as offset when interval is 'month'"),
    },
    {
      name: 'INTERVAL(1y, 12n) offset too big is 9775',
      sql: `${COLS} interval(1y, 12n)`,
      expect: err(9775, 'Interval offset should be shorter than interval'),
    },
  ]
}

function expectAnyTbnameLength(): number {
  return { asymmetricMatch: (x: unknown) => x === 192 || x === 270 } as unknown as number
}
