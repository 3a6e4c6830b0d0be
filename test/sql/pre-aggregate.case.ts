/**
 * Differential test of the planner's per-child pre-aggregation (plan-select.ts, preAggregable):
 * every query runs twice on the same generated data, once with the tag join before the GROUP BY
 * and once aggregated per child first, and both results must agree. Backend-neutral: run on
 * DuckDB by pre-aggregate.test.ts and on PostgreSQL by the integration suite.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Storage } from '../../src/sql/catalog/types.js'
import { Cursor } from '../../src/sql/cursor.js'
import { tokenize } from '../../src/sql/lexer.js'
import { parseSelect } from '../../src/sql/select/parse-select.js'
import { planSelect } from '../../src/sql/select/plan-select.js'
import { selectRows } from './select-rows.js'

export const T0 = 1_700_000_000_000

/**
 * `pre`: whether the per-child plan must be chosen (so the comparison is not of one plan with
 * itself); `newest`: whether it joins each child's newest row back (only LAST_ROWs)
 */
const QUERIES: { sql: string; pre: boolean; newest?: true }[] = [
  { sql: 'select _wstart, avg(v) from DB.st interval(1m) partition by tbname', pre: true },
  {
    sql: `select _wstart, _wend, tbname, count(*), count(v), sum(n), min(v), max(v), spread(v) from DB.st where ts >= ${T0 + 60_000} interval(5m) partition by tbname`,
    pre: true,
  },
  { sql: 'select tbname, location, first(v), last(v), last_row(n) from DB.st partition by tbname, location interval(2m)', pre: true },
  { sql: 'select tbname, count(v), avg(n), stddev(v) from DB.st group by tbname', pre: true },
  { sql: 'select _wstart, avg(v) from DB.st partition by tbname interval(1m) fill(null)', pre: true },
  { sql: 'select _wstart, tbname, count(*) from DB.st partition by tbname interval(1m) having count(*) > 1 order by count(*) desc, tbname, _wstart', pre: true },
  { sql: 'select _wstart, avg(v) from DB.st partition by tbname interval(1m) slimit 2 limit 3', pre: true },
  { sql: 'select tbname, groupid, sum(v) from DB.st group by tbname, groupid order by sum(v) desc, tbname', pre: true },
  // only LAST_ROWs: the newest row of each child joined back by its timestamp
  { sql: 'select last_row(*), tbname from DB.st group by tbname', pre: true, newest: true },
  { sql: 'select tbname, location, last_row(v), last_row(n) from DB.st where v > 0 partition by tbname, location order by tbname', pre: true, newest: true },
  { sql: 'select tbname, last_row(v) + 1, last_row(n) from DB.st group by tbname having last_row(n) is not null', pre: true, newest: true },
  { sql: 'select tbname, last_row(v), last(n) from DB.st group by tbname', pre: true },
  { sql: 'select tbname, max(v) from DB.st group by tbname', pre: false },
  { sql: 'select _wstart, groupid, avg(v) from DB.st partition by groupid interval(1m)', pre: false },
  { sql: "select _wstart, tbname, avg(v) from DB.st where location = 'a' partition by tbname interval(1m)", pre: false },
  { sql: 'select _wstart, tbname, avg(v) + max(n) * 2 from DB.st partition by tbname interval(3m) sliding(1m)', pre: false },
]

export interface Child {
  location: string | null
  groupid: number
  rows: { sec: number; v: number | null; n: number | null }[]
}

export const childArb: fc.Arbitrary<Child> = fc.record({
  location: fc.constantFrom('a', 'b', null),
  groupid: fc.integer({ min: 0, max: 2 }),
  rows: fc.array(
    fc.record({
      sec: fc.integer({ min: 0, max: 900 }),
      // quarters: sums are exact, so both plans must print the same digits
      v: fc.option(fc.integer({ min: -4000, max: 4000 }).map((x) => x / 4)),
      n: fc.option(fc.integer({ min: -100, max: 100 })),
    }),
    { maxLength: 40 },
  ),
})

export function sameNumbers(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') {
    return a === b || Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b))
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => sameNumbers(x, b[i]))
  }
  return a === b
}

let seq = 0

export function runPreAggregateSuite(name: string, open: () => Promise<Storage>): void {
  describe(`per-child pre-aggregation: ${name}`, () => {
    let storage: Storage
    beforeAll(async () => {
      storage = await open()
    })
    afterAll(async () => {
      await storage?.close()
    })

    const run = (sql: string, preAggregate: boolean): Promise<unknown[][]> => selectRows(storage, sql, { preAggregate })

    it('picks the per-child plan exactly for the shapes it is valid for', async () => {
      const db = `pa_shape_${process.pid}`
      await load(storage, db, [{ location: 'a', groupid: 1, rows: [] }])
      for (const q of QUERIES) {
        const sql = q.sql.replaceAll('DB.', `${db}.`)
        const stmt = parseSelect(new Cursor(sql, tokenize(sql)))
        const env = { catalog: storage.catalog, dialect: storage.engine.dialect, ctx: { user: 'root' }, nowMs: T0 }
        const planned = planSelect(stmt, env).sql
        expect(planned.includes('"__a0"'), sql).toBe(q.pre)
        expect(planned.includes('"__m"'), sql).toBe(q.newest === true)
      }
    })

    it('gives the same rows as the join-first plan on generated data', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(childArb, { minLength: 1, maxLength: 4 }), async (children) => {
          const db = `pa_${process.pid}_${++seq}`
          await load(storage, db, children)
          try {
            for (const q of QUERIES) {
              const sql = q.sql.replaceAll('DB.', `${db}.`)
              const joinFirst = await run(sql, false)
              const perChild = await run(sql, true)
              if (!sameNumbers(perChild, joinFirst)) {
                expect(perChild, sql).toEqual(joinFirst)
              }
            }
          } finally {
            await storage.catalog.dropDatabase(db, true)
          }
        }),
        { numRuns: 12 },
      )
    })
  })
}

export async function load(storage: Storage, db: string, children: Child[]): Promise<void> {
  await storage.catalog.createDatabase(db, { precision: 'ms' }, true)
  await storage.catalog.createStable(
    db,
    'st',
    [
      { name: 'ts', type: 'TIMESTAMP', length: 8 },
      { name: 'v', type: 'DOUBLE', length: 8 },
      { name: 'n', type: 'INT', length: 4 },
    ],
    [
      { name: 'location', type: 'NCHAR', length: 16 },
      { name: 'groupid', type: 'INT', length: 4 },
    ],
    true,
  )
  for (let i = 0; i < children.length; i++) {
    const c = children[i]
    const child = await storage.catalog.createChildTable(db, `d${i}`, 'st', { location: c.location, groupid: c.groupid }, true)
    // one row per second: the last generated value of a second wins, as a rewrite would
    const bySec = new Map(c.rows.map((r) => [r.sec, r]))
    const rows = [...bySec.values()].map((r) => [BigInt(T0 + r.sec * 1000), r.v, r.n])
    if (rows.length > 0) {
      await storage.engine.writeRows([{ db, table: 'st', tid: child.tid, columns: ['ts', 'v', 'n'], rows }])
    }
  }
}
