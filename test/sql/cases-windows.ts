import type { Case } from './harness.js'
import { err, exec, oneOf, rowsOf } from './harness.js'

/**
 * SESSION, STATE_WINDOW, EVENT_WINDOW and COUNT_WINDOW (TDengine "Time-Series Extensions"), and
 * INTERP. Expected rows come from a small oracle below that cuts the dataset into windows row by
 * row as the docs describe, independent of how the adapter writes SQL.
 */

export const T0 = Date.parse('2024-01-01T00:00:00Z')
export const iso = (sec: number): string => new Date(T0 + sec * 1000).toISOString()
const TBNAME = oneOf(192, 270) as number

export interface Row {
  tb: string
  g: number
  t: number
  v: number | null
  s: string | null
  b: boolean | null
  f: number
}

export const DATA: Row[] = [
  { tb: 'a', g: 1, t: 0, v: 1, s: 'x', b: true, f: 1 },
  { tb: 'a', g: 1, t: 1, v: 1, s: 'x', b: true, f: 2 },
  { tb: 'a', g: 1, t: 2, v: 2, s: 'y', b: false, f: 3 },
  { tb: 'a', g: 1, t: 10, v: 2, s: null, b: false, f: 4 },
  { tb: 'a', g: 1, t: 11, v: 3, s: 'y', b: true, f: 5 },
  { tb: 'a', g: 1, t: 12, v: null, s: 'x', b: true, f: 6 },
  { tb: 'a', g: 1, t: 30, v: 3, s: 'x', b: null, f: 7 },
  { tb: 'c', g: 2, t: 5, v: 10, s: 'x', b: true, f: 10 },
  { tb: 'c', g: 2, t: 6, v: 10, s: 'x', b: false, f: 20 },
  { tb: 'c', g: 2, t: 40, v: 11, s: 'y', b: false, f: 30 },
  { tb: 'd', g: 2, t: 3, v: null, s: null, b: null, f: 0 },
  { tb: 'd', g: 2, t: 4, v: 5, s: 'z', b: true, f: 1 },
  { tb: 'd', g: 2, t: 7, v: null, s: null, b: null, f: 2 },
]

const lit = (x: unknown): string => (x === null ? 'NULL' : typeof x === 'string' ? `'${x}'` : String(x))

function setup(): Case[] {
  const tables = [...new Set(DATA.map((r) => r.tb))]
  return [
    { name: 'windows: create database', sql: 'create database wnd', expect: exec(0) },
    {
      name: 'windows: create super table',
      sql: 'create stable wnd.m (ts timestamp, v int, s varchar(8), b bool, f double) tags (g int)',
      expect: exec(0),
    },
    ...tables.map((tb): Case => {
      const rows = DATA.filter((r) => r.tb === tb)
      return {
        name: `windows: insert child ${tb}`,
        sql: `insert into wnd.${tb} using wnd.m tags (${rows[0].g}) values ${rows
          .map((r) => `('${iso(r.t)}', ${lit(r.v)}, ${lit(r.s)}, ${lit(r.b)}, ${r.f})`)
          .join(' ')}`,
        expect: exec(rows.length),
      }
    }),
  ]
}

// ---- the oracle: windows as lists of rows, one timeline at a time ----

type Win = Row[]

export function timeline(filter: (r: Row) => boolean): Row[] {
  return DATA.filter(filter).sort((x, y) => x.t - y.t)
}

function sessions(rows: Row[], tol: number): Win[] {
  const out: Win[] = []
  for (const r of rows) {
    const cur = out.at(-1)
    if (cur !== undefined && r.t - (cur.at(-1) as Row).t <= tol) {
      cur.push(r)
    } else {
      out.push([r])
    }
  }
  return out
}

/** state windows: a NULL state joins the window around it when both sides agree; leading/trailing NULLs join the first/last */
function states(rows: Row[], key: (r: Row) => unknown): Win[] {
  const out: Win[] = []
  let lead: Row[] = []
  let pending: Row[] = []
  let state: unknown
  for (const r of rows) {
    const k = key(r)
    const cur = out.at(-1)
    if (k === null) {
      ;(cur === undefined ? lead : pending).push(r)
    } else if (cur === undefined) {
      out.push([...lead, r])
      lead = []
      state = k
    } else if (k === state) {
      cur.push(...pending, r)
      pending = []
    } else {
      out.push([r])
      pending = []
      state = k
    }
  }
  out.at(-1)?.push(...pending)
  return out
}

function events(rows: Row[], start: (r: Row) => boolean, end: (r: Row) => boolean): Win[] {
  const out: Win[] = []
  let open: Row[] | undefined
  for (const r of rows) {
    if (open === undefined && start(r)) {
      open = []
    }
    if (open !== undefined) {
      open.push(r)
      if (end(r)) {
        out.push(open)
        open = undefined
      }
    }
  }
  return out
}

function counts(rows: Row[], n: number, m = n): Win[] {
  const out: Win[] = []
  for (let k = 0; k < rows.length; k += m) {
    out.push(rows.slice(k, k + n))
  }
  return out
}

const sumV = (w: Win): number | null => (w.some((r) => r.v !== null) ? w.reduce((a, r) => a + (r.v ?? 0), 0) : null)

/** `_wstart, _wend, _wduration, count(*), sum(v)` of each window */
function basic(wins: Win[]): unknown[][] {
  return wins.map((w) => {
    const s = w[0].t
    const e = (w.at(-1) as Row).t
    return [iso(s), iso(e), (e - s) * 1000, w.length, sumV(w)]
  })
}

const BASIC_COLS = 'select _wstart, _wend, _wduration, count(*), sum(v) from'
const BASIC_META: Array<[string, string, number]> = [
  ['_wstart', 'TIMESTAMP', 8],
  ['_wend', 'TIMESTAMP', 8],
  ['_wduration', 'BIGINT', 8],
  ['count(*)', 'BIGINT', 8],
  ['sum(v)', 'BIGINT', 8],
]

const perTable = (cut: (rows: Row[]) => Win[], filter: (r: Row) => boolean = () => true): unknown[][] =>
  [...new Set(DATA.filter(filter).map((r) => r.tb))].sort().flatMap((tb) => basic(cut(timeline((r) => r.tb === tb && filter(r)))).map((row) => [tb, ...row]))

function windowCases(): Case[] {
  const a = (r: Row): boolean => r.tb === 'a'
  const all = (): boolean => true
  const tbMeta: Array<[string, string, number]> = [['tbname', 'VARCHAR', TBNAME], ...BASIC_META]
  return [
    {
      name: 'SESSION on a child table',
      sql: `${BASIC_COLS} wnd.a session(ts, 5s)`,
      expect: rowsOf(BASIC_META, basic(sessions(timeline(a), 5))),
    },
    {
      name: 'SESSION on a super table (one timeline)',
      sql: `${BASIC_COLS} wnd.m session(ts, 2s)`,
      expect: rowsOf(BASIC_META, basic(sessions(timeline(all), 2))),
    },
    {
      name: 'SESSION with PARTITION BY tbname',
      sql: `select tbname, _wstart, _wend, _wduration, count(*), sum(v) from wnd.m partition by tbname session(ts, 5s)`,
      expect: rowsOf(tbMeta, perTable((rows) => sessions(rows, 5))),
    },
    {
      name: 'SESSION with a tolerance in ticks, HAVING and ORDER BY _wstart DESC',
      sql: `select _wstart, count(*) from wnd.a session(ts, 5000) having count(*) > 1 order by _wstart desc`,
      expect: rowsOf(
        [['_wstart', 'TIMESTAMP', 8], ['count(*)', 'BIGINT', 8]],
        sessions(timeline(a), 5)
          .filter((w) => w.length > 1)
          .reverse()
          .map((w) => [iso(w[0].t), w.length]),
      ),
    },
    {
      name: 'STATE_WINDOW over an integer, the state selected beside it',
      sql: `select _wstart, _wend, count(*), v from wnd.a state_window(v)`,
      expect: rowsOf(
        [['_wstart', 'TIMESTAMP', 8], ['_wend', 'TIMESTAMP', 8], ['count(*)', 'BIGINT', 8], ['v', 'INT', 4]],
        states(timeline(a), (r) => r.v).map((w) => [iso(w[0].t), iso((w.at(-1) as Row).t), w.length, w.find((r) => r.v !== null)?.v]),
      ),
    },
    {
      name: 'STATE_WINDOW over a string (NULLs inside and at the edges)',
      sql: `${BASIC_COLS} wnd.a state_window(s)`,
      expect: rowsOf(BASIC_META, basic(states(timeline(a), (r) => r.s))),
    },
    {
      name: 'STATE_WINDOW over a boolean',
      sql: `select _wstart, count(*), b from wnd.a state_window(b)`,
      expect: rowsOf(
        [['_wstart', 'TIMESTAMP', 8], ['count(*)', 'BIGINT', 8], ['b', 'BOOL', 1]],
        states(timeline(a), (r) => r.b).map((w) => [iso(w[0].t), w.length, w.find((r) => r.b !== null)?.b]),
      ),
    },
    {
      name: 'STATE_WINDOW over a CASE expression',
      sql: `${BASIC_COLS} wnd.a state_window(case when f > 2.5 and f < 6 then 1 else 0 end)`,
      expect: rowsOf(BASIC_META, basic(states(timeline(a), (r) => (r.f > 2.5 && r.f < 6 ? 1 : 0)))),
    },
    {
      name: 'STATE_WINDOW on a super table with PARTITION BY tbname',
      sql: `select tbname, _wstart, _wend, _wduration, count(*), sum(v) from wnd.m partition by tbname state_window(s)`,
      expect: rowsOf(tbMeta, perTable((rows) => states(rows, (r) => r.s))),
    },
    {
      name: 'STATE_WINDOW on a super table with PARTITION BY a tag (children merged per tag value)',
      sql: `select g, _wstart, count(*) from wnd.m partition by g state_window(v)`,
      expect: rowsOf(
        [['g', 'INT', 4], ['_wstart', 'TIMESTAMP', 8], ['count(*)', 'BIGINT', 8]],
        [1, 2].flatMap((g) => states(timeline((r) => r.g === g), (r) => r.v).map((w) => [g, iso(w[0].t), w.length])),
      ),
    },
    {
      name: 'STATE_WINDOW on a super table without PARTITION BY is 9770',
      sql: 'select count(*) from wnd.m state_window(v)',
      expect: err(9770, 'STATE_WINDOW not support for super table query'),
    },
    {
      name: 'STATE_WINDOW on a tag is 9769',
      sql: 'select count(*) from wnd.m partition by tbname state_window(g)',
      expect: err(9769, 'Not support STATE_WINDOW on tag column'),
    },
    {
      name: 'STATE_WINDOW on a DOUBLE is 9768',
      sql: 'select count(*) from wnd.a state_window(f)',
      expect: err(9768, 'Only support STATE_WINDOW on integer/bool/varchar column'),
    },
    {
      name: 'EVENT_WINDOW on a child table (one-row windows, an unclosed window dropped)',
      sql: `${BASIC_COLS} wnd.a event_window start with v >= 2 end with f >= 4 and f <> 6`,
      expect: rowsOf(BASIC_META, basic(events(timeline(a), (r) => r.v !== null && r.v >= 2, (r) => r.f >= 4 && r.f !== 6))),
    },
    {
      name: 'EVENT_WINDOW on a super table (one timeline)',
      sql: `${BASIC_COLS} wnd.m event_window start with s = 'x' end with b = false`,
      expect: rowsOf(BASIC_META, basic(events(timeline(all), (r) => r.s === 'x', (r) => r.b === false))),
    },
    {
      name: 'EVENT_WINDOW with PARTITION BY tbname',
      sql: `select tbname, _wstart, _wend, _wduration, count(*), sum(v) from wnd.m partition by tbname event_window start with f >= 2 end with f >= 3`,
      expect: rowsOf(tbMeta, perTable((rows) => events(rows, (r) => r.f >= 2, (r) => r.f >= 3))),
    },
    {
      name: 'COUNT_WINDOW on a child table (the last window short)',
      sql: `${BASIC_COLS} wnd.a count_window(3)`,
      expect: rowsOf(BASIC_META, basic(counts(timeline(a), 3))),
    },
    {
      name: 'COUNT_WINDOW with sliding',
      sql: `${BASIC_COLS} wnd.a count_window(3, 2)`,
      expect: rowsOf(BASIC_META, basic(counts(timeline(a), 3, 2))),
    },
    {
      name: 'COUNT_WINDOW with PARTITION BY tbname and a WHERE filter',
      sql: `select tbname, _wstart, _wend, _wduration, count(*), sum(v) from wnd.m where f < 30 partition by tbname count_window(2)`,
      expect: rowsOf(tbMeta, perTable((rows) => counts(rows, 2), (r) => r.f < 30)),
    },
    {
      name: 'COUNT_WINDOW with selection functions',
      sql: `select _wstart, first(f), last(f), max(v) from wnd.m count_window(4)`,
      expect: rowsOf(
        [['_wstart', 'TIMESTAMP', 8], ['first(f)', 'DOUBLE', 8], ['last(f)', 'DOUBLE', 8], ['max(v)', 'INT', 4]],
        counts(timeline(all), 4).map((w) => {
          const vs = w.map((r) => r.v).filter((v): v is number => v !== null)
          return [iso(w[0].t), w[0].f, (w.at(-1) as Row).f, vs.length > 0 ? Math.max(...vs) : null]
        }),
      ),
    },
    {
      name: 'SESSION on a non-timestamp column is 9772',
      sql: 'select count(*) from wnd.a session(v, 5s)',
      expect: err(9772, 'Only support SESSION on primary timestamp column'),
    },
    {
      name: 'SESSION with a month gap is 9771',
      sql: 'select count(*) from wnd.a session(ts, 1n)',
      expect: err(9771, 'SESSION gap should be fixed time window, and greater than 0'),
    },
    {
      name: 'a row window with GROUP BY is 9764',
      sql: 'select count(*) from wnd.m partition by tbname session(ts, 1s) group by g',
      expect: err(9764, "GROUP BY and WINDOW-clause can't be used together"),
    },
    {
      name: 'a SESSION query as a subquery, filtered outside',
      sql: 'select ws, c from (select _wstart as ws, count(*) as c from wnd.m partition by tbname session(ts, 5s)) where c > 1',
      unordered: true,
      expect: rowsOf(
        [['ws', 'TIMESTAMP', 8], ['c', 'BIGINT', 8]],
        ['a', 'c', 'd'].flatMap((tb) => sessions(timeline((r) => r.tb === tb), 5).filter((w) => w.length > 1).map((w) => [iso(w[0].t), w.length])),
      ),
    },
    {
      name: '_wstart outside a window query is still 9816',
      sql: 'select _wstart from wnd.a',
      expect: err(9816, oneOf('_WSTART, _WEND and _WDURATION can only be used in window query', 'Invalid windows pc')),
    },
  ]
}

export function windowsCases(): Case[] {
  return [...setup(), ...windowCases()]
}
