import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openStorage } from '../catalog/open.js'
import type { Storage } from '../catalog/types.js'
import { Cursor } from '../cursor.js'
import { tokenize } from '../lexer.js'
import type { SqlContext } from '../result.js'
import { parseSelect } from './parse-select.js'
import type { NumericChunk } from '../../storage/types.js'
import { runSelect } from './run-select.js'

// T0 = 2023-11-14T22:13:00.000Z, a whole minute, so 1m windows start at T0
const T0 = 1_699_999_980_000
const NOW_MS = T0 + 3_600_000
let storage: Storage

async function query(sql: string, ctx: Partial<SqlContext> = {}) {
  const c = new Cursor(sql, tokenize(sql))
  const stmt = parseSelect(c)
  const res = await runSelect(stmt, { storage, ctx: { user: 'root', ...ctx }, now: () => NOW_MS })
  if (res.kind !== 'rows') {
    throw new Error('expected rows')
  }
  const rows: unknown[][] = []
  for await (const chunk of res.rows) {
    rows.push(...chunk)
  }
  return { columns: res.columns.map((m) => [m.name, m.type, m.length]), rows, precision: res.precision }
}

async function rows(sql: string, ctx: Partial<SqlContext> = {}) {
  return (await query(sql, ctx)).rows
}

async function error(sql: string, ctx: Partial<SqlContext> = {}): Promise<{ code: number; desc: string }> {
  try {
    await query(sql, ctx)
  } catch (e) {
    const err = e as { code: number; desc: string }
    return { code: err.code, desc: err.desc }
  }
  throw new Error(`expected an error from: ${sql}`)
}

const ms = (n: number): bigint => BigInt(T0 + n)

beforeAll(async () => {
  storage = await openStorage('duckdb::memory:', { rootPassword: 'taosdata' })
  const { catalog, engine } = storage
  await catalog.createDatabase('db', { precision: 'ms' }, false)
  await catalog.createStable(
    'db',
    'st',
    [
      { name: 'ts', type: 'TIMESTAMP', length: 8 },
      { name: 'c', type: 'INT', length: 4 },
      { name: 'f', type: 'DOUBLE', length: 8 },
      { name: 's', type: 'VARCHAR', length: 10 },
    ],
    [
      { name: 'loc', type: 'VARCHAR', length: 16 },
      { name: 'gid', type: 'INT', length: 4 },
    ],
    false,
  )
  const d1 = await catalog.createChildTable('db', 'd1', 'st', { loc: 'sf', gid: 1 }, false)
  const d2 = await catalog.createChildTable('db', 'd2', 'st', { loc: 'la', gid: 2 }, false)
  await catalog.createChildTable('db', 'd3', 'st', { loc: 'sf', gid: 3 }, false)
  await catalog.createNormalTable(
    'db',
    'nt',
    [
      { name: 'ts', type: 'TIMESTAMP', length: 8 },
      { name: 'v', type: 'DOUBLE', length: 8 },
    ],
    false,
  )
  await engine.writeRows([
    {
      db: 'db',
      table: 'st',
      tid: d1.tid,
      columns: ['ts', 'c', 'f', 's'],
      rows: [
        [ms(0), 1, 1.5, 'a'],
        [ms(10_000), 2, null, 'b'],
        [ms(60_000), null, 3, 'c'],
        [ms(180_000), 4, null, null],
      ],
    },
    {
      db: 'db',
      table: 'st',
      tid: d2.tid,
      columns: ['ts', 'c', 'f', 's'],
      rows: [
        [ms(5_000), 10, 10, 'x'],
        [ms(65_000), 20, null, 'y'],
      ],
    },
    { db: 'db', table: 'nt', columns: ['ts', 'v'], rows: [[ms(0), 1], [ms(120_000), 5]] },
  ])

  // nanosecond database: ticks beyond 2^53 must survive exactly
  await catalog.createDatabase('dbns', { precision: 'ns' }, false)
  await catalog.createNormalTable(
    'dbns',
    'n1',
    [
      { name: 'ts', type: 'TIMESTAMP', length: 8 },
      { name: 'v', type: 'BIGINT', length: 8 },
    ],
    false,
  )
  const NS0 = BigInt(T0) * 1_000_000n
  await engine.writeRows([
    { db: 'dbns', table: 'n1', columns: ['ts', 'v'], rows: [[NS0 + 1n, 1n], [NS0 + 999_999_999n, 2n], [NS0 + 1_000_000_000n, 3n]] },
  ])
  await catalog.createDatabase('dbus', { precision: 'us' }, false)
  await catalog.createNormalTable(
    'dbus',
    'u1',
    [
      { name: 'ts', type: 'TIMESTAMP', length: 8 },
      { name: 'v', type: 'INT', length: 4 },
    ],
    false,
  )
  const US0 = BigInt(T0) * 1000n
  await engine.writeRows([{ db: 'dbus', table: 'u1', columns: ['ts', 'v'], rows: [[US0 + 1n, 1], [US0 + 1500n, 2], [US0 + 2000n, 3]] }])
}, 60_000)

afterAll(async () => {
  await storage?.close()
})

describe('SELECT without FROM', () => {
  it('answers system functions with their TDengine types', async () => {
    const r = await query('select server_version(), client_version(), server_status(), database(), 1+1', { defaultDb: 'db' })
    expect(r.columns).toEqual([
      ['server_version()', 'VARCHAR', 30],
      ['client_version()', 'VARCHAR', 30],
      ['server_status()', 'INT', 4],
      ['database()', 'VARCHAR', 63],
      ['1+1', 'DOUBLE', 8],
    ])
    expect(r.rows).toEqual([['3.3.6.0', '3.3.6.0', 1, 'db', 2]])
    expect((await rows('select database()'))[0]).toEqual([null])
  })

  it('evaluates now(), today() and NOW arithmetic once per statement', async () => {
    const r = await query('select now(), today(), now - 1h as before')
    expect(r.columns).toEqual([
      ['now()', 'TIMESTAMP', 8],
      ['today()', 'TIMESTAMP', 8],
      ['before', 'TIMESTAMP', 8],
    ])
    const day = 86_400_000
    expect(r.rows).toEqual([[BigInt(NOW_MS), BigInt(Math.floor(NOW_MS / day) * day), BigInt(NOW_MS - 3_600_000)]])
  })
})

describe('SELECT over tables', () => {
  it('expands * to data columns for a child table, in ts order', async () => {
    const r = await query('select * from db.d1')
    expect(r.columns).toEqual([
      ['ts', 'TIMESTAMP', 8],
      ['c', 'INT', 4],
      ['f', 'DOUBLE', 8],
      ['s', 'VARCHAR', 10],
    ])
    expect(r.rows).toEqual([
      [ms(0), 1, 1.5, 'a'],
      [ms(10_000), 2, null, 'b'],
      [ms(60_000), null, 3, 'c'],
      [ms(180_000), 4, null, null],
    ])
  })

  it('expands t.* through the table alias and reads _c0/_rowts as the primary timestamp', async () => {
    const r = await query('select t.*, _c0, _rowts from db.d1 t where t.c = 4')
    expect(r.columns.map((c) => c[0])).toEqual(['ts', 'c', 'f', 's', '_c0', '_rowts'])
    expect(r.rows).toEqual([[ms(180_000), 4, null, null, ms(180_000), ms(180_000)]])
    expect(await error('select x.* from db.d1 t')).toEqual({ code: 9731, desc: 'Table does not exist: x' })
  })

  it('expands * to columns then tags for a super table, table by table', async () => {
    const r = await query('select * from st', { defaultDb: 'db' })
    expect(r.columns.map((c) => c[0])).toEqual(['ts', 'c', 'f', 's', 'loc', 'gid'])
    expect(r.rows.map((x) => [x[1], x[4], x[5]])).toEqual([
      [1, 'sf', 1],
      [2, 'sf', 1],
      [null, 'sf', 1],
      [4, 'sf', 1],
      [10, 'la', 2],
      [20, 'la', 2],
    ])
  })

  it('projects tbname, tags, aliases, arithmetic and CASE', async () => {
    const r = await query("select tbname, loc, c * 2 + 1 as x, case when c > 1 then 'big' else 'small' end from db.st where c is not null order by x desc limit 2")
    expect(r.columns).toEqual([
      ['tbname', 'VARCHAR', 192],
      ['loc', 'VARCHAR', 16],
      ['x', 'DOUBLE', 8],
      ["case when c > 1 then 'big' else 'small' end", 'VARCHAR', 3],
    ])
    expect(r.rows).toEqual([
      ['d2', 'la', 41, 'big'],
      ['d2', 'la', 21, 'big'],
    ])
  })

  it('filters on ts strings, tags, IN, BETWEEN, LIKE, MATCH and NULL tests', async () => {
    expect(await rows("select count(*) from db.st where ts >= '2023-11-14 22:14:00'")).toEqual([[3n]])
    expect(await rows("select count(*) from db.st where ts >= '2023-11-14T22:14:00Z' and ts < '2023-11-14T22:15:00+00:00'")).toEqual([[2n]])
    expect(await rows("select count(*) from db.st where loc = 'sf'")).toEqual([[4n]])
    expect(await rows('select count(*) from db.st where gid in (2, 3)')).toEqual([[2n]])
    expect(await rows('select c from db.st where c between 2 and 10 order by c')).toEqual([[2], [4], [10]])
    expect(await rows("select s from db.st where s like '_' and not s in ('a', 'x') order by s")).toEqual([['b'], ['c'], ['y']])
    expect(await rows("select count(*) from db.st where tbname match '^d[2-9]$'")).toEqual([[2n]])
    expect(await rows("select count(*) from db.st where tbname nmatch '^d2'")).toEqual([[4n]])
    expect(await rows('select count(*) from db.st where f is null or s is null')).toEqual([[3n]])
    expect(await rows(`select count(*) from db.d1 where ts > ${T0} and ts <= now`)).toEqual([[3n]])
    expect(await rows('select count(*) from db.d1 where ts > now - 1h')).toEqual([[3n]])
    expect(await rows("select count(*) from db.st where tbname = 'd2'")).toEqual([[2n]])
    expect(await rows("select count(*) from db.st where tbname in ('d1', 'nope')")).toEqual([[4n]])
    expect(await rows("select count(*) from db.st where tbname != 'd1'")).toEqual([[2n]])
    expect(await rows("select count(*) from db.st where tbname = 'nope'")).toEqual([[0n]])
    expect(await rows("select tbname, c from db.st where tbname not in ('d1') order by c")).toEqual([['d2', 10], ['d2', 20]])
  })

  it('orders by positions and aliases with TDengine NULL defaults, LIMIT m, n and DISTINCT', async () => {
    expect(await rows('select c from db.d1 order by 1')).toEqual([[1], [2], [4], [null]])
    expect(await rows('select c as k from db.d1 order by k desc')).toEqual([[null], [4], [2], [1]])
    expect(await rows('select c from db.d1 order by c limit 1, 2')).toEqual([[2], [4]])
    expect(await rows('select c from db.d1 order by c limit 2 offset 2')).toEqual([[4], [null]])
    expect(await rows('select distinct loc from db.st order by loc')).toEqual([['la'], ['sf']])
  })

  it('returns JSON tags parsed and windows over a FROM subquery', async () => {
    await storage.catalog.createStable('db', 'js', [
      { name: 'ts', type: 'TIMESTAMP', length: 8 },
      { name: 'v', type: 'INT', length: 4 },
    ], [{ name: 'info', type: 'JSON', length: 4095 }], false)
    const j1 = await storage.catalog.createChildTable('db', 'j1', 'js', { info: { k: 'v', n: 1 } }, false)
    await storage.engine.writeRows([{ db: 'db', table: 'js', tid: j1.tid, columns: ['ts', 'v'], rows: [[ms(0), 7]] }])
    const r = await query('select tbname, info, v from db.js')
    expect(r.columns).toEqual([
      ['tbname', 'VARCHAR', 192],
      ['info', 'JSON', 4095],
      ['v', 'INT', 4],
    ])
    expect(r.rows).toEqual([['j1', { k: 'v', n: 1 }, 7]])
    // T0 is an odd minute, so 2m windows (epoch-aligned) start one minute earlier
    expect(await rows('select _wstart, max(x) from (select ts, c as x from db.d1) interval(2m)')).toEqual([
      [ms(-60_000), 2],
      [ms(60_000), null],
      [ms(180_000), 4],
    ])
  })

  it('reads information_schema tables and FROM subqueries', async () => {
    const names = (await rows('select name from information_schema.ins_databases order by name')).map((r) => r[0])
    expect(names).toEqual(expect.arrayContaining(['db', 'dbns', 'dbus']))
    const r = await query('select max(x) as m, count(*) from (select _wstart as ts, count(*) as x from db.d1 interval(1m))')
    expect(r.columns).toEqual([
      ['m', 'BIGINT', 8],
      ['count(*)', 'BIGINT', 8],
    ])
    expect(r.rows).toEqual([[2n, 3n]])
  })
})

describe('aggregates', () => {
  it('computes each aggregate with its result type; FIRST/LAST skip NULLs, LAST_ROW does not', async () => {
    const r = await query('select count(*), count(f), avg(c), sum(c), min(c), max(s), first(f), last(f), last_row(f), spread(c), stddev(c) from db.d1')
    expect(r.columns).toEqual([
      ['count(*)', 'BIGINT', 8],
      ['count(f)', 'BIGINT', 8],
      ['avg(c)', 'DOUBLE', 8],
      ['sum(c)', 'BIGINT', 8],
      ['min(c)', 'INT', 4],
      ['max(s)', 'VARCHAR', 10],
      ['first(f)', 'DOUBLE', 8],
      ['last(f)', 'DOUBLE', 8],
      ['last_row(f)', 'DOUBLE', 8],
      ['spread(c)', 'DOUBLE', 8],
      ['stddev(c)', 'DOUBLE', 8],
    ])
    const [row] = r.rows
    expect(row.slice(0, 10)).toEqual([4n, 2n, 7 / 3, 7n, 1, 'c', 1.5, 3, null, 3])
    expect(row[10]).toBeCloseTo(Math.sqrt(14 / 9), 12)
  })

  it('expands last(*) to one column per data column', async () => {
    const r = await query('select last(*) from db.d1')
    expect(r.columns.map((c) => c[0])).toEqual(['last(ts)', 'last(c)', 'last(f)', 'last(s)'])
    expect(r.rows).toEqual([[ms(180_000), 4, 3, 'c']])
  })

  it('returns one row over no data: COUNT 0 and NULL for the rest', async () => {
    expect(await rows('select count(*), avg(c), last(c) from db.d3')).toEqual([[0n, null, null]])
  })

  it('takes plain columns from the row a selection function picked', async () => {
    expect(await rows('select last(c), ts from db.d1')).toEqual([[4, ms(180_000)]])
    // the companion value is taken even when it is NULL on that row
    expect(await rows('select first(c), f, _rowts from db.d1 where ts > ' + String(T0))).toEqual([[2, null, ms(10_000)]])
    expect(await rows('select last_row(c), s from db.d1')).toEqual([[4, null]])
    expect(await rows('select max(c), tbname from db.st')).toEqual([[20, 'd2']])
  })

  it('groups by tags and PARTITION BY tbname, with LIMIT per partition and SLIMIT', async () => {
    expect(await rows('select loc, count(*), sum(c) from db.st group by loc order by loc')).toEqual([
      ['la', 2n, 30n],
      ['sf', 4n, 7n],
    ])
    expect(await rows('select tbname, count(*) from db.st partition by tbname')).toEqual([
      ['d1', 4n],
      ['d2', 2n],
    ])
    expect(await rows('select tbname, count(*) from db.st partition by tbname slimit 1 soffset 1')).toEqual([['d2', 2n]])
    // PARTITION BY without aggregation: LIMIT keeps the first rows of every slice
    expect(await rows('select tbname, c from db.st partition by tbname limit 1')).toEqual([
      ['d1', 1],
      ['d2', 10],
    ])
  })
})

describe('time-series functions', () => {
  it('DIFF and DERIVATIVE use the previous non-NULL row and skip the first row', async () => {
    const r = await query('select ts, diff(c), derivative(c, 1s, 0) from db.d1')
    expect(r.columns).toEqual([
      ['ts', 'TIMESTAMP', 8],
      ['diff(c)', 'BIGINT', 8],
      ['derivative(c, 1s, 0)', 'DOUBLE', 8],
    ])
    // c: 1 @0s, 2 @10s, NULL @60s, 4 @180s
    expect(r.rows).toEqual([
      [ms(10_000), 1n, 0.1],
      [ms(180_000), 2n, 2 / 170],
    ])
  })

  it('restarts per partition and drops negative derivatives when asked', async () => {
    expect(await rows('select tbname, diff(c) from db.st partition by tbname')).toEqual([
      ['d1', 1n],
      ['d1', 2n],
      ['d2', 10n],
    ])
    await storage.catalog.createNormalTable('db', 'cnt', [
      { name: 'ts', type: 'TIMESTAMP', length: 8 },
      { name: 'v', type: 'DOUBLE', length: 8 },
    ], false)
    await storage.engine.writeRows([{ db: 'db', table: 'cnt', columns: ['ts', 'v'], rows: [[ms(0), 10], [ms(1000), 20], [ms(2000), 5], [ms(4000), 9]] }])
    expect(await rows('select derivative(v, 1s, 1) from db.cnt')).toEqual([[10], [2]])
    expect(await rows('select diff(v, 1) from db.cnt')).toEqual([[10], [null], [4]])
  })
})

describe('INTERVAL windows', () => {
  it('reports _wstart, _wend, _wduration and aggregates per non-empty window', async () => {
    const r = await query('select _wstart, _wend, _wduration, count(*), avg(c) from db.d1 interval(1m)')
    expect(r.columns).toEqual([
      ['_wstart', 'TIMESTAMP', 8],
      ['_wend', 'TIMESTAMP', 8],
      ['_wduration', 'BIGINT', 8],
      ['count(*)', 'BIGINT', 8],
      ['avg(c)', 'DOUBLE', 8],
    ])
    expect(r.rows).toEqual([
      [ms(0), ms(60_000), 60_000n, 2n, 1.5],
      [ms(60_000), ms(120_000), 60_000n, 1n, null],
      [ms(180_000), ms(240_000), 60_000n, 1n, 4],
    ])
  })

  it('shifts windows by the offset and repeats rows in SLIDING windows', async () => {
    expect(await rows('select _wstart, count(*) from db.d1 interval(1m, 10s)')).toEqual([
      [ms(-50_000), 1n],
      [ms(10_000), 2n],
      [ms(130_000), 1n],
    ])
    expect(await rows('select _wstart, count(*) from db.nt interval(2m) sliding(1m)')).toEqual([
      [ms(-60_000), 1n],
      [ms(0), 1n],
      [ms(60_000), 1n],
      [ms(120_000), 1n],
    ])
  })

  it('aligns windows on the epoch for timestamps before 1970', async () => {
    await storage.catalog.createNormalTable('db', 'old', [
      { name: 'ts', type: 'TIMESTAMP', length: 8 },
      { name: 'v', type: 'INT', length: 4 },
    ], false)
    await storage.engine.writeRows([{ db: 'db', table: 'old', columns: ['ts', 'v'], rows: [[-90_000n, 1], [-30_000n, 2], [0n, 3]] }])
    expect(await rows('select _wstart, sum(v) from db.old interval(1m)')).toEqual([
      [-120_000n, 1n],
      [-60_000n, 2n],
      [0n, 3n],
    ])
    // a lower time bound before the epoch keeps the negative-safe alignment; one from it on drops it
    expect(await rows('select _wstart, sum(v) from db.old where ts >= -100000 interval(1m)')).toEqual([
      [-120_000n, 1n],
      [-60_000n, 2n],
      [0n, 3n],
    ])
    expect(await rows('select _wstart, sum(v) from db.old where ts >= 0 interval(1m)')).toEqual([[0n, 3n]])
  })

  const range = `where ts >= ${T0 - 60_000} and ts < ${T0 + 180_000}`
  it.each([
    ['null', [null, 1, null, 5]],
    ['value, 7', [7, 1, 7, 5]],
    ['prev', [null, 1, 1, 5]],
    ['next', [1, 1, 5, 5]],
    ['linear', [null, 1, 3, 5]],
  ])('FILL(%s) fills every window of the WHERE range', async (mode, expected) => {
    const r = await rows(`select _wstart, max(v) from db.nt ${range} interval(1m) fill(${mode})`)
    expect(r).toEqual([
      [ms(-60_000), expected[0]],
      [ms(0), expected[1]],
      [ms(60_000), expected[2]],
      [ms(120_000), expected[3]],
    ])
  })

  it('FILL(NONE) keeps only windows with data; FILL without a range fills gaps only', async () => {
    expect(await rows(`select _wstart, max(v) from db.nt ${range} interval(1m) fill(none)`)).toEqual([
      [ms(0), 1],
      [ms(120_000), 5],
    ])
    expect(await rows('select _wstart, count(*) from db.nt interval(1m) fill(value, 0)')).toEqual([
      [ms(0), 1n],
      [ms(60_000), 0n],
      [ms(120_000), 1n],
    ])
  })

  it('partitions windows by tbname, fills each slice, limits per slice', async () => {
    const r = await rows(`select _wstart, tbname, count(*) from db.st where ts >= ${T0} and ts < ${T0 + 120_000} partition by tbname interval(1m) fill(null)`)
    expect(r).toEqual([
      [ms(0), 'd1', 2n],
      [ms(60_000), 'd1', 1n],
      [ms(0), 'd2', 1n],
      [ms(60_000), 'd2', 1n],
    ])
    expect(await rows('select _wstart, count(*) from db.st partition by tbname interval(1m) limit 1')).toEqual([
      [ms(0), 2n],
      [ms(0), 1n],
    ])
    expect(await rows('select tbname, _wstart, count(*) from db.st partition by tbname interval(1m) slimit 1')).toEqual([
      ['d1', ms(0), 2n],
      ['d1', ms(60_000), 1n],
      ['d1', ms(180_000), 1n],
    ])
  })

  it('accepts ORDER BY _wstart (ASC or DESC) with FILL and refuses orders FILL cannot stream', async () => {
    expect(await rows('select _wstart as w, count(*) from db.nt interval(1m) fill(null) order by w')).toEqual([
      [ms(0), 1n],
      [ms(60_000), null],
      [ms(120_000), 1n],
    ])
    expect(await rows('select _wstart, count(*) from db.nt interval(1m) fill(null) order by _wstart desc')).toEqual([
      [ms(120_000), 1n],
      [ms(60_000), null],
      [ms(0), 1n],
    ])
    expect((await error('select _wstart, count(*) from db.nt interval(1m) fill(null) order by count(*)')).code).toBe(9728)
  })

  it('refuses fill ranges over 10 million windows', async () => {
    expect(await error(`select count(*) from db.nt where ts >= 0 and ts < ${T0} interval(1a) fill(null)`)).toEqual({
      code: 9787,
      desc: 'Start(end) time of query range required or time range too large',
    })
  })
})

describe('precision', () => {
  it('keeps nanosecond ticks exact and parses ns datetime strings', async () => {
    const NS0 = BigInt(T0) * 1_000_000n
    const r = await query("select ts, v from dbns.n1 where ts > '2023-11-14T22:13:00.000000001Z'")
    expect(r.precision).toBe('ns')
    expect(r.rows).toEqual([
      [NS0 + 999_999_999n, 2n],
      [NS0 + 1_000_000_000n, 3n],
    ])
    expect(await rows('select _wstart, sum(v) from dbns.n1 interval(1s)')).toEqual([
      [NS0, 3n],
      [NS0 + 1_000_000_000n, 3n],
    ])
  })

  it('buckets microsecond data by 1a windows', async () => {
    const US0 = BigInt(T0) * 1000n
    expect(await rows('select _wstart, count(*) from dbus.u1 interval(1a)')).toEqual([
      [US0, 1n],
      [US0 + 1000n, 1n],
      [US0 + 2000n, 1n],
    ])
    expect(await rows("select count(*) from dbus.u1 where ts >= '2023-11-14 22:13:00.0015'")).toEqual([[2n]])
  })
})

describe('numeric form', () => {
  /** the result's `numeric` form as values (numbers, BOOL booleans), and how many chunks came as columns */
  async function numericForm(sql: string): Promise<{ values: unknown[][]; columnChunks: number } | undefined> {
    const res = await runSelect(parseSelect(new Cursor(sql, tokenize(sql))), { storage, ctx: { user: 'root' }, now: () => NOW_MS })
    if (res.kind !== 'rows' || res.numeric === undefined) {
      return undefined
    }
    const values: unknown[][] = []
    let columnChunks = 0
    for await (const chunk of res.numeric) {
      if (Array.isArray(chunk)) {
        values.push(...chunk)
        continue
      }
      columnChunks++
      for (let r = 0; r < chunk.rowCount; r++) {
        values.push(chunk.columns.map((c, i) => (c.nulls?.[r] === 1 ? null : res.columns[i].type === 'BOOL' ? c.values[r] !== 0 : c.values[r])))
      }
    }
    return { values, columnChunks }
  }

  const asNumbers = (rows: unknown[][]): unknown[][] => rows.map((r) => r.map((v) => (typeof v === 'bigint' ? Number(v) : v)))

  it('carries the values of the rows form for all-numeric results', async () => {
    for (const sql of [
      'select ts, c, f from db.d1',
      'select _wstart, _wend, _wduration, count(*), avg(c), max(f), min(c), spread(c), stddev(f) from db.st interval(1m)',
      'select _wstart, avg(c) from db.st partition by tbname interval(1m)',
      'select c * 2, c / 3, c + 0.5, ts + 1, -c, c is null from db.st',
      'select count(*), first(ts), last(c), sum(f) from db.st group by gid',
      'select v from dbus.u1 where ts > 0',
    ]) {
      const form = await numericForm(sql)
      expect(form, sql).toBeDefined()
      expect(form!.columnChunks, sql).toBeGreaterThan(0)
      expect(form!.values, sql).toEqual(asNumbers(await rows(sql)))
    }
  })

  it('comes as rows where columns cannot carry the values exactly', async () => {
    // nanosecond ticks are beyond 2^53: the chunk is rows of exact bigints
    const ns = await numericForm('select ts, v from dbns.n1')
    expect(ns?.columnChunks).toBe(0)
    expect(ns?.values).toEqual(await rows('select ts, v from dbns.n1'))
    // a fractional source of an integer column is truncated as the rows form's converter does
    async function* source(): AsyncGenerator<NumericChunk> {
      yield { rowCount: 2, columns: [{ values: new Float64Array([2.7, -2.7]), nulls: undefined, integral: false }] }
    }
    // an engine whose numeric stream hands a BIGINT result (count) such a DOUBLE column
    const engine = { dialect: storage.engine.dialect, stream: source, streamNumeric: source }
    const sql = 'select count(*) from db.d1'
    const res = await runSelect(parseSelect(new Cursor(sql, tokenize(sql))), { storage: { ...storage, engine } as unknown as Storage, ctx: { user: 'root' } })
    if (res.kind !== 'rows' || res.numeric === undefined) {
      throw new Error('expected the numeric form')
    }
    const out: unknown[] = []
    for await (const chunk of res.numeric) {
      out.push(chunk)
    }
    expect(out).toEqual([[[2n], [-2n]]])
    // text, and FILL, have no numeric form
    expect(await numericForm('select ts, s from db.d1')).toBeUndefined()
    expect(await numericForm("select _wstart, avg(c) from db.d1 where ts >= '2023-11-14 22:13:00' and ts < '2023-11-14 22:17:00' interval(1m) fill(null)")).toBeUndefined()
  })
})

describe('errors', () => {
  it.each([
    ['select nope from db.d1', 9730, 'Invalid column name: nope'],
    ['select * from db.nope', 9731, 'Table does not exist: nope'],
    ['select * from nodb.t', 904, 'Database not exist'],
    ['select * from t', 9750, 'Database not specified'],
    ['select bogus(c) from db.d1', 9805, 'Invalid function name: bogus'],
    ['select _wstart from db.d1', 9816, '_WSTART, _WEND and _WDURATION can only be used in window query'],
    ['select c, count(*) from db.d1 interval(1m)', 9738, 'Not a GROUP BY expression'],
    ['select c, count(*) from db.st group by loc', 9738, 'Not a GROUP BY expression'],
    ['select count(*) from db.d1 slimit 1', 9784, 'slimit/soffset can only be used with PARTITION BY or GROUP BY'],
    ['select * from db.d1 where count(*) > 1', 9736, "There mustn't be aggregation"],
    ['select avg(max(c)) from db.d1', 9767, 'Aggregate functions do not support nesting'],
    // TDengine's parTranslater.c (translateIndefiniteRowsFunc) answers 9807 beside an aggregate
    ['select diff(c), count(*) from db.d1', 9807, 'Some functions are allowed only in the SELECT list of a query. And, cannot be mixed with other non scalar functions or columns.'],
    ['select count(*) from db.d1 interval(1m) sliding(2m)', 9777, 'sliding value no larger than the interval value'],
    ["select * from db.d1 where ts > 'yesterday'", 9781, 'Incorrect TIMESTAMP value: yesterday'],
  ])('%s -> %i', async (sql, code, desc) => {
    expect(await error(sql)).toEqual({ code, desc })
  })
})
