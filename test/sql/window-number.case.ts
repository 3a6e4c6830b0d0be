/**
 * Differential test of INTERVAL window numbering (src/sql/select/window.ts, windowIndex): with a
 * lower time bound in the WHERE, the planner groups rows by their window's number since the
 * bound's window and computes the start afterwards. Every query runs twice on the same generated
 * data, numbered and grouped by the aligned start, and both results must agree, for bounds on and
 * off window boundaries, with offsets, strict bounds, FILL, HAVING, both plan shapes (per child
 * and join first) and a bound before 1970. Backend-neutral: run on DuckDB by window-number.test.ts
 * and on PostgreSQL by the integration suite.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Storage } from '../../src/sql/catalog/types.js'
import { Cursor } from '../../src/sql/cursor.js'
import { tokenize } from '../../src/sql/lexer.js'
import { parseSelect } from '../../src/sql/select/parse-select.js'
import { planSelect } from '../../src/sql/select/plan-select.js'
import { selectRows } from './select-rows.js'
import { childArb, load, sameNumbers, T0 } from './pre-aggregate.case.js'

interface Window {
  /** lower bound, seconds from T0 (may be before the data, or before 1970 with T0 subtracted) */
  lo: number
  interval: string
  offset: string
}

const windowArb: fc.Arbitrary<Window> = fc.record({
  lo: fc.integer({ min: -90, max: 900 }),
  interval: fc.constantFrom('1m', '2m', '45s', '5m'),
  offset: fc.constantFrom('', ', 7s', ', 30s'),
})

function queries(db: string, w: Window, lo = T0 + w.lo * 1000): string[] {
  const iv = `interval(${w.interval}${w.offset})`
  return [
    // per-child plan (tbname partitions)
    `select _wstart, _wend, _wduration, tbname, count(*), avg(v), sum(n) from ${db}.st where ts >= ${lo} partition by tbname ${iv}`,
    // join-first plan (a tag partitions), strict bounds on both sides
    `select _wstart, groupid, count(*), max(v) from ${db}.st where ts > ${lo} and ts < ${lo + 600_000} partition by groupid ${iv}`,
    // one child, FILL over the WHERE's range
    `select _wstart, avg(v), count(n) from ${db}.d0 where ts >= ${lo} and ts < ${lo + 300_000} ${iv} fill(null)`,
    `select _wstart, count(*) from ${db}.st where ts >= ${lo} and v is not null ${iv} having count(*) > 1 order by _wstart desc`,
  ]
}

export function runWindowNumberSuite(name: string, open: () => Promise<Storage>): void {
  describe(`INTERVAL window numbers from a lower time bound: ${name}`, () => {
    let storage: Storage
    let seq = 0
    beforeAll(async () => {
      storage = await open()
    })
    afterAll(async () => {
      await storage?.close()
    })

    const run = (sql: string, windowNumbers: boolean): Promise<unknown[][]> => selectRows(storage, sql, { windowNumbers })

    async function compare(sql: string): Promise<void> {
      const stmt = parseSelect(new Cursor(sql, tokenize(sql)))
      const env = { catalog: storage.catalog, dialect: storage.engine.dialect, ctx: { user: 'root' }, nowMs: T0 }
      // the two runs compare two plans, not one plan with itself
      expect(planSelect(stmt, env).sql, sql).not.toBe(planSelect(stmt, { ...env, windowNumbers: false }).sql)
      const numbered = await run(sql, true)
      const aligned = await run(sql, false)
      if (!sameNumbers(numbered, aligned)) {
        expect(numbered, sql).toEqual(aligned)
      }
    }

    it('gives the same rows as grouping by the aligned window start, on generated data and bounds', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(childArb, { minLength: 1, maxLength: 3 }), windowArb, async (children, w) => {
          const db = `wn_${process.pid}_${++seq}`
          // d0 must exist for the one-child query
          await load(storage, db, children)
          try {
            for (const sql of queries(db, w)) {
              await compare(sql)
            }
          } finally {
            await storage.catalog.dropDatabase(db, true)
          }
        }),
        { numRuns: 12 },
      )
    })

    it('numbers windows from a bound before 1970 (a negative window start)', async () => {
      const db = `wn_${process.pid}_neg`
      await load(storage, db, [{ location: 'a', groupid: 1, rows: [{ sec: 1, v: 1, n: 1 }, { sec: 61, v: 2, n: 2 }, { sec: 700, v: 3, n: 3 }] }])
      try {
        const sql = `select _wstart, count(*), sum(v) from ${db}.st where ts >= -5000 interval(1m, 7s)`
        const stmt = parseSelect(new Cursor(sql, tokenize(sql)))
        const env = { catalog: storage.catalog, dialect: storage.engine.dialect, ctx: { user: 'root' }, nowMs: T0 }
        // the bound's window starts at -53000 (1m windows from offset 7s)
        expect(planSelect(stmt, env).sql).toContain('(-53000)')
        await compare(sql)
        expect((await run(sql, true)).map((r) => r[1])).toEqual([1n, 1n, 1n])
      } finally {
        await storage.catalog.dropDatabase(db, true)
      }
    })
  })
}
