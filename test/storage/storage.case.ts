/**
 * Backend-neutral storage suite: Engine + Catalog behaviour every backend must share. Run by
 * duckdb.test.ts (and the PostgreSQL suite) with a function that opens the backend. `open()`
 * must return storage on the same location each time when `persistent` is set (a file, a
 * server), so close + open shows what survives a restart. Every test uses its own database
 * and user names, so the suite also runs on a location shared between tests.
 */
import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import type { Storage } from '../../src/sql/catalog/types.js'
import type { ColumnDef, Precision } from '../../src/storage/td-types.js'
import { TdError } from '../../src/td-error.js'

export interface StorageSuiteOptions {
  /** open() reaches the same data again after close() */
  persistent?: boolean
}

let seq = 0
function uniq(prefix: string): string {
  seq++
  return `${prefix}_${process.pid}_${Date.now().toString(36)}_${seq}`
}

const TS: ColumnDef = { name: 'ts', type: 'TIMESTAMP', length: 8 }
const METER_COLS: ColumnDef[] = [
  TS,
  { name: 'current', type: 'FLOAT', length: 4 },
  { name: 'voltage', type: 'INT', length: 4 },
  { name: 'phase', type: 'DOUBLE', length: 8 },
  { name: 'note', type: 'VARCHAR', length: 16 },
]
const METER_TAGS: ColumnDef[] = [
  { name: 'location', type: 'NCHAR', length: 24 },
  { name: 'groupid', type: 'INT', length: 4 },
]

async function expectTd(p: Promise<unknown>, code: number, desc?: string | RegExp): Promise<void> {
  let caught: unknown
  try {
    await p
  } catch (err) {
    caught = err
  }
  expect(caught, `expected TdError ${code}`).toBeInstanceOf(TdError)
  const e = caught as TdError
  expect(e.code).toBe(code)
  if (desc !== undefined) {
    if (typeof desc === 'string') {
      expect(e.desc).toBe(desc)
    } else {
      expect(e.desc).toMatch(desc)
    }
  }
}

export function runStorageSuite(name: string, open: () => Promise<Storage>, opts: StorageSuiteOptions = {}): void {
  describe(`storage suite: ${name}`, () => {
    const opened: Storage[] = []
    async function fresh(): Promise<Storage> {
      const s = await open()
      opened.push(s)
      return s
    }
    afterEach(async () => {
      for (const s of opened.splice(0)) {
        await s.close()
      }
    })

    async function meters(s: Storage, precision: Precision = 'ms'): Promise<string> {
      const db = uniq('db')
      await s.catalog.createDatabase(db, { precision }, false)
      await s.catalog.createStable(db, 'meters', METER_COLS, METER_TAGS, false)
      return db
    }

    function q(s: Storage, db: string, table: string): string {
      const d = s.engine.dialect
      return `${d.quoteIdent(d.schemaName(db))}.${d.quoteIdent(table)}`
    }

    it('creates, lists and drops databases with vgroup allocation and TDengine errors', async () => {
      const s = await fresh()
      const before = s.catalog.listDatabases()
      const maxBefore = Math.max(1, ...before.map((d) => d.firstVgId + d.vgroups - 1))
      const a = uniq('dba')
      const b = uniq('dbb')
      await s.catalog.createDatabase(a, { precision: 'us', keep: '3650d', duration: '10d' }, false)
      await s.catalog.createDatabase(b, { vgroups: 3 }, false)
      const ia = s.catalog.getDatabase(a)
      const ib = s.catalog.getDatabase(b)
      expect(ia).toMatchObject({ name: a, precision: 'us', vgroups: 2, firstVgId: maxBefore + 1 })
      // the second database continues after the first one's two vgroups
      expect(ib).toMatchObject({ name: b, precision: 'ms', vgroups: 3, firstVgId: maxBefore + 3 })
      expect(ia?.options).toMatchObject({ precision: 'us', keep: '3650d', vgroups: 2, buffer: 256 })
      expect(s.catalog.listDatabases().map((d) => d.name)).toEqual(expect.arrayContaining([a, b]))

      await expectTd(s.catalog.createDatabase(a, {}, false), 897, 'Database already exists')
      await s.catalog.createDatabase(a, {}, true)
      expect(s.catalog.getDatabase(a)?.precision).toBe('us')

      await s.catalog.dropDatabase(a, false)
      expect(s.catalog.getDatabase(a)).toBeUndefined()
      await expectTd(s.catalog.dropDatabase(a, false), 904, 'Database not exist')
      await s.catalog.dropDatabase(a, true)
      await expectTd(s.catalog.createStable(a, 'st', METER_COLS, METER_TAGS, false), 904)
      await s.catalog.dropDatabase(b, false)
    })

    it('creates super, child and normal tables with compact tids and tag rows', async () => {
      const s = await fresh()
      const db = await meters(s)
      await expectTd(s.catalog.createStable(db, 'meters', METER_COLS, METER_TAGS, false), 864, 'STable already exists')
      await s.catalog.createStable(db, 'meters', METER_COLS, METER_TAGS, true)
      await expectTd(
        s.catalog.createStable(db, 'bad', [{ name: 'v', type: 'INT', length: 4 }], METER_TAGS, false),
        9793,
      )
      await s.catalog.createStable(db, 'other', METER_COLS, METER_TAGS, false)

      const d1 = await s.catalog.createChildTable(db, 'd1', 'meters', { location: 'Beijing', groupid: 2 }, false)
      const d2 = await s.catalog.createChildTable(db, 'd2', 'meters', { groupid: 3 }, false)
      const o1 = await s.catalog.createChildTable(db, 'o1', 'other', { location: 'x', groupid: 1 }, false)
      expect([d1.tid, d2.tid, o1.tid]).toEqual([1, 2, 1])
      expect(d2.tags).toEqual({ location: null, groupid: 3 })
      await expectTd(s.catalog.createChildTable(db, 'd1', 'meters', {}, false), 1539, 'Table already exists')
      expect((await s.catalog.createChildTable(db, 'd1', 'meters', { groupid: 9 }, true)).tid).toBe(1)
      await expectTd(s.catalog.createChildTable(db, 'd9', 'nosuch', {}, false), 866, 'STable not exist')
      await expectTd(s.catalog.createChildTable(db, 'd9', 'meters', { nosuch: 1 }, false), 9742)

      const n1 = await s.catalog.createNormalTable(db, 'n1', [TS, { name: 'v', type: 'BIGINT', length: 8 }], false)
      const n2 = await s.catalog.createNormalTable(db, 'n2', [TS], false)
      expect([n1.kind, n1.tid, n2.tid]).toEqual(['normal', 1, 2])
      await expectTd(s.catalog.createNormalTable(db, 'n1', [TS], false), 1539)
      await expectTd(s.catalog.createNormalTable(db, 'meters', [TS], false), 1539)

      expect(s.catalog.listStables(db).map((x) => x.name).sort()).toEqual(['meters', 'other'])
      expect(s.catalog.listTables(db).map((x) => x.name).sort()).toEqual(['d1', 'd2', 'n1', 'n2', 'o1'])

      const tagRows = await s.engine.query(
        `SELECT _tid, tbname, location, groupid FROM ${q(s, db, 'meters$tags')} ORDER BY _tid`,
      )
      expect(tagRows).toEqual([
        [1, 'd1', 'Beijing', 2],
        [2, 'd2', null, 3],
      ])

      await s.catalog.setTags(db, 'd2', { location: "O'Hare" })
      expect(s.catalog.getTable(db, 'd2')?.tags).toEqual({ location: "O'Hare", groupid: 3 })
      expect(await s.engine.query(`SELECT location FROM ${q(s, db, 'meters$tags')} WHERE _tid = 2`)).toEqual([
        ["O'Hare"],
      ])

      await expectTd(s.catalog.dropTable(db, 'nosuch', false), 9731, 'Table does not exist: nosuch')
      await s.catalog.dropTable(db, 'nosuch', true)
      await s.catalog.dropTable(db, 'd1', false)
      expect(s.catalog.getTable(db, 'd1')).toBeUndefined()
      expect(await s.engine.query(`SELECT count(*) FROM ${q(s, db, 'meters$tags')}`)).toEqual([[1n]])
      // a new child never takes a live child's id
      expect((await s.catalog.createChildTable(db, 'd3', 'meters', {}, false)).tid).toBe(3)

      await expectTd(s.catalog.dropStable(db, 'nosuch', false), 866)
      await s.catalog.dropStable(db, 'meters', false)
      expect(s.catalog.getStable(db, 'meters')).toBeUndefined()
      expect(s.catalog.getTable(db, 'd2')).toBeUndefined()
      expect(s.catalog.getTable(db, 'o1')?.tid).toBe(1)
      // the name is free again, and its tids start over
      await s.catalog.createStable(db, 'meters', METER_COLS, METER_TAGS, false)
      expect((await s.catalog.createChildTable(db, 'd2', 'meters', {}, false)).tid).toBe(1)
      await s.catalog.dropDatabase(db, false)
      expect(s.catalog.listTables(db)).toEqual([])
    })

    it('creates many children in one call, all or none', async () => {
      const s = await fresh()
      const db = await meters(s)
      const c = s.catalog
      expect(c.createChildTables).toBeTypeOf('function')
      const create = c.createChildTables!.bind(c)
      await c.createStable(db, 'other', METER_COLS, METER_TAGS, false)
      await c.createChildTable(db, 'c0', 'meters', { groupid: 0 }, false)
      const specs = Array.from({ length: 1200 }, (_, i) => ({
        name: `c${i}`,
        stable: i % 2 === 0 ? 'meters' : 'other',
        tags: { groupid: i, location: `loc'${i}` },
      }))
      const infos = await create(db, specs, true)
      expect(infos.map((x) => x.name)).toEqual(specs.map((x) => x.name))
      // c0 already existed with tid 1; meters children continue at 2, other's start at 1
      expect(infos[0]).toMatchObject({ tid: 1, tags: { groupid: 0, location: null } })
      expect(infos[2].tid).toBe(2)
      expect(infos[1].tid).toBe(1)
      expect(infos[1199].tid).toBe(600)
      expect(await s.engine.query(`SELECT count(*), max(_tid) FROM ${q(s, db, 'meters$tags')}`)).toEqual([[600n, 600]])
      expect(await s.engine.query(`SELECT tbname, groupid, location FROM ${q(s, db, 'other$tags')} WHERE _tid = 600`)).toEqual([
        ['c1199', 1199, "loc'1199"],
      ])
      // one bad spec: nothing is created and no id is consumed
      await expectTd(
        create(db, [{ name: 'x1', stable: 'meters', tags: {} }, { name: 'x2', stable: 'meters', tags: { bad: 1 } }], true),
        9742,
      )
      await expectTd(create(db, [{ name: 'x1', stable: 'meters', tags: {} }, { name: 'c5', stable: 'other', tags: {} }], false), 1539)
      expect(c.getTable(db, 'x1')).toBeUndefined()
      // the same new name twice in one call is created once
      const again = await create(db, [{ name: 'x1', stable: 'meters', tags: {} }, { name: 'x1', stable: 'meters', tags: {} }], true)
      expect(again.map((x) => x.tid)).toEqual([601, 601])
      expect(c.listTables(db)).toHaveLength(1201)
    })

    it('adds several columns or tags in one change, all or none', async () => {
      const s = await fresh()
      const db = await meters(s)
      const c = s.catalog
      await c.createChildTable(db, 'd1', 'meters', { groupid: 1 }, false)
      const int = (name: string) => ({ name, type: 'INT' as const, length: 4 })
      const before = c.getStable(db, 'meters')?.columns.map((x) => x.name)
      // a clash with a column, with a tag, or inside the list itself: nothing is added
      await expectTd(c.addStableColumns(db, 'meters', [int('a1'), int('current')], false), 875)
      await expectTd(c.addStableColumns(db, 'meters', [int('a1'), int('groupid')], false), 873)
      await expectTd(c.addStableColumns(db, 'meters', [int('a1'), int('a1')], false), 875)
      expect(c.getStable(db, 'meters')?.columns.map((x) => x.name)).toEqual(before)
      await c.addStableColumns(db, 'meters', [int('a1'), int('a2')], false)
      await c.addStableColumns(db, 'meters', [int('t1'), int('t2')], true)
      expect(c.getStable(db, 'meters')?.columns.map((x) => x.name)).toEqual([...(before ?? []), 'a1', 'a2'])
      expect(c.getTable(db, 'd1')?.tags).toEqual({ location: null, groupid: 1, t1: null, t2: null })
      // and storage has them: a row naming them is written
      await s.engine.exec(`INSERT INTO ${q(s, db, 'meters')} (_tid, ts, a1, a2) SELECT _tid, 1, 7, 8 FROM ${q(s, db, 'meters$tags')}`)
      expect(await s.engine.query(`SELECT a1, a2 FROM ${q(s, db, 'meters')}`)).toEqual([[7, 8]])
      expect(await s.engine.query(`SELECT t1, t2 FROM ${q(s, db, 'meters$tags')}`)).toEqual([[null, null]])
    })

    it('alters columns and tags with TDengine errors', async () => {
      const s = await fresh()
      const db = await meters(s)
      const c = s.catalog
      await c.createChildTable(db, 'd1', 'meters', { groupid: 1 }, false)
      await c.addStableColumn(db, 'meters', { name: 'extra', type: 'BIGINT UNSIGNED', length: 8 }, false)
      await c.addStableColumn(db, 'meters', { name: 'site', type: 'VARCHAR', length: 8 }, true)
      await expectTd(c.addStableColumn(db, 'meters', { name: 'extra', type: 'INT', length: 4 }, false), 875)
      await expectTd(c.addStableColumn(db, 'meters', { name: 'groupid', type: 'INT', length: 4 }, true), 873)
      expect(c.getStable(db, 'meters')?.columns.map((x) => x.name)).toEqual([
        'ts',
        'current',
        'voltage',
        'phase',
        'note',
        'extra',
      ])
      expect(c.getTable(db, 'd1')?.tags).toEqual({ location: null, groupid: 1, site: null })
      await c.setTags(db, 'd1', { site: 'north' })

      await c.widenColumn(db, 'meters', 'note', 64)
      await c.widenColumn(db, 'meters', 'site', 32)
      expect(c.getStable(db, 'meters')?.columns.find((x) => x.name === 'note')?.length).toBe(64)
      expect(c.getStable(db, 'meters')?.tags.find((x) => x.name === 'site')?.length).toBe(32)
      await expectTd(c.widenColumn(db, 'meters', 'note', 10), 9803)
      await expectTd(c.widenColumn(db, 'meters', 'voltage', 10), 9803)

      await c.dropStableColumn(db, 'meters', 'extra', false)
      await c.dropStableColumn(db, 'meters', 'location', true)
      await expectTd(c.dropStableColumn(db, 'meters', 'extra', false), 876)
      await expectTd(c.dropStableColumn(db, 'meters', 'nosuch', true), 874)
      expect(c.getTable(db, 'd1')?.tags).toEqual({ groupid: 1, site: 'north' })
      expect(await s.engine.query(`SELECT tbname, groupid, site FROM ${q(s, db, 'meters$tags')}`)).toEqual([
        ['d1', 1, 'north'],
      ])

      await c.createNormalTable(db, 'n1', [TS, { name: 'v', type: 'INT', length: 4 }], false)
      await c.addTableColumn(db, 'n1', { name: 'w', type: 'VARCHAR', length: 4 })
      await expectTd(c.addTableColumn(db, 'n1', { name: 'v', type: 'INT', length: 4 }), 875)
      await c.widenColumn(db, 'n1', 'w', 40)
      await c.dropTableColumn(db, 'n1', 'v')
      await expectTd(c.dropTableColumn(db, 'n1', 'v'), 876)
      expect(c.getTable(db, 'n1')?.columns).toEqual([TS, { name: 'w', type: 'VARCHAR', length: 40 }])
      await s.engine.writeRows([{ db, table: 'n1', columns: ['ts', 'w'], rows: [[5n, 'abc']] }])
      expect(await s.engine.query(`SELECT * FROM ${q(s, db, 'n1')}`)).toEqual([[5n, 'abc']])
      await expectTd(c.addTableColumn(db, 'd1', { name: 'z', type: 'INT', length: 4 }), 9801)
    })

    it('writeRows: last write wins, partial writes keep other columns, all-or-nothing', async () => {
      const s = await fresh()
      const db = await meters(s)
      const d1 = await s.catalog.createChildTable(db, 'd1', 'meters', { groupid: 1 }, false)
      const d2 = await s.catalog.createChildTable(db, 'd2', 'meters', { groupid: 2 }, false)
      const all = ['ts', 'current', 'voltage', 'phase', 'note']
      expect(
        await s.engine.writeRows([
          { db, table: 'meters', tid: d1.tid, columns: all, rows: [[1000n, 1.5, 220, 0.25, 'a'], [2000n, 2.5, 221, 0.5, 'b']] },
          { db, table: 'meters', tid: d2.tid, columns: all, rows: [[1000n, 9.5, 230, 1, 'z']] },
        ]),
      ).toBe(3)
      // same (tid, ts) again: the new row replaces the old one
      await s.engine.writeRows([{ db, table: 'meters', tid: d1.tid, columns: all, rows: [[1000n, 3.5, 222, 0.75, 'c']] }])
      // partial column list: only voltage changes; twice in one batch: the later row wins
      await s.engine.writeRows([
        { db, table: 'meters', tid: d1.tid, columns: ['ts', 'voltage'], rows: [[2000n, 300], [2000n, 301]] },
        // a partial write of a new timestamp leaves the unnamed columns NULL
        { db, table: 'meters', tid: d1.tid, columns: ['ts', 'note'], rows: [[3000n, 'new']] },
      ])
      const rows = await s.engine.query(
        `SELECT _tid, ts, current, voltage, phase, note FROM ${q(s, db, 'meters')} ORDER BY _tid, ts`,
      )
      expect(rows).toEqual([
        [1, 1000n, 3.5, 222, 0.75, 'c'],
        [1, 2000n, 2.5, 301, 0.5, 'b'],
        [1, 3000n, null, null, null, 'new'],
        [2, 1000n, 9.5, 230, 1, 'z'],
      ])

      // a failing batch (unknown column) rolls back the good batch written with it
      await expect(
        s.engine.writeRows([
          // a column set not written before, so any staging for it starts inside this write
          { db, table: 'meters', tid: d2.tid, columns: ['ts', 'phase', 'voltage'], rows: [[1000n, 5, 5], [5000n, 1, 1]] },
          { db, table: 'meters', tid: d2.tid, columns: ['ts', 'nosuch'], rows: [[6000n, 1]] },
        ]),
      ).rejects.toThrow()
      expect(await s.engine.query(`SELECT count(*) FROM ${q(s, db, 'meters')} WHERE _tid = 2`)).toEqual([[1n]])
      // the same column set works again after the rollback (overwrite + new key)
      await s.engine.writeRows([
        { db, table: 'meters', tid: d2.tid, columns: ['ts', 'phase', 'voltage'], rows: [[1000n, 2, 7], [5000n, 3, 8]] },
      ])
      expect(
        await s.engine.query(`SELECT ts, current, voltage, phase FROM ${q(s, db, 'meters')} WHERE _tid = 2 ORDER BY ts`),
      ).toEqual([
        [1000n, 9.5, 7, 2],
        [5000n, null, 8, 3],
      ])

      // normal tables key on the timestamp alone
      await s.catalog.createNormalTable(db, 'n1', [TS, { name: 'v', type: 'BIGINT', length: 8 }, { name: 'u', type: 'INT UNSIGNED', length: 4 }], false)
      await s.engine.writeRows([{ db, table: 'n1', columns: ['ts', 'v', 'u'], rows: [[1n, 9007199254740993n, 4294967295], [1n, -5n, 7]] }])
      await s.engine.writeRows([{ db, table: 'n1', columns: ['ts', 'u'], rows: [[1n, 8]] }])
      // the physical type of INT UNSIGNED differs (DuckDB UINTEGER -> number, PostgreSQL BIGINT ->
      // bigint); the SQL layer converts by TDengine type (plan-select.ts `converter`), so only
      // the value is backend-neutral here
      const [[nts, nv, nu]] = await s.engine.query(`SELECT ts, v, u FROM ${q(s, db, 'n1')}`)
      expect([nts, nv, Number(nu)]).toEqual([1n, -5n, 8])
      expect(['number', 'bigint']).toContain(typeof nu)
    })

    it('writeRows keeps exactly one row per key under random overlapping writes (model check)', async () => {
      // Each run: a sequence of writes of random timestamps from a small range (so keys repeat,
      // arrive out of order and overlap earlier writes), each write one column subset, possibly
      // with a restart in between; afterwards storage must equal a map of key -> last values.
      const VALUE_COLS = ['voltage', 'phase', 'note'] as const
      type Row = { ts: number; voltage: number; phase: number; note: string }
      const rowArb = fc.record({
        ts: fc.integer({ min: 0, max: 24 }),
        voltage: fc.integer({ min: -1000, max: 1000 }),
        phase: fc.double({ min: -10, max: 10, noNaN: true, noDefaultInfinity: true }),
        note: fc.string({ maxLength: 8 }),
      })
      const writeArb = fc.record({
        columns: fc.subarray([...VALUE_COLS], { minLength: 1 }),
        batches: fc.array(fc.record({ target: fc.constantFrom('d1', 'd2', 'n1'), rows: fc.array(rowArb, { minLength: 1, maxLength: 12 }) }), { minLength: 1, maxLength: 3 }),
        restartAfter: fc.boolean(),
      })
      await fc.assert(
        fc.asyncProperty(fc.array(writeArb, { minLength: 1, maxLength: 6 }), async (writes) => {
          // one storage open at a time: two DuckDB instances on one file in a process corrupt it
          let s = await open()
          try {
            const db = await meters(s)
            const d1 = await s.catalog.createChildTable(db, 'd1', 'meters', { groupid: 1 }, false)
            const d2 = await s.catalog.createChildTable(db, 'd2', 'meters', { groupid: 2 }, false)
            await s.catalog.createNormalTable(db, 'n1', METER_COLS, false)
            const tids: Record<string, number | undefined> = { d1: d1.tid, d2: d2.tid, n1: undefined }
            const model = new Map<string, Record<string, unknown>>()
            for (const w of writes) {
              const columns = ['ts', ...w.columns]
              await s.engine.writeRows(
                w.batches.map((b) => ({
                  db,
                  table: b.target === 'n1' ? 'n1' : 'meters',
                  tid: tids[b.target],
                  columns,
                  rows: b.rows.map((r: Row) => [BigInt(1000 + r.ts), ...w.columns.map((c) => r[c])]),
                })),
              )
              for (const b of w.batches) {
                for (const r of b.rows as Row[]) {
                  const key = `${b.target}/${1000 + r.ts}`
                  const cur = model.get(key) ?? { voltage: null, phase: null, note: null }
                  for (const c of w.columns) {
                    cur[c] = r[c]
                  }
                  model.set(key, cur)
                }
              }
              if (w.restartAfter && opts.persistent) {
                await s.close()
                s = await open()
              }
            }
            const stored = new Map<string, Record<string, unknown>>()
            const byTid = new Map([[d1.tid, 'd1'], [d2.tid, 'd2']])
            for (const [tid, ts, voltage, phase, note] of await s.engine.query(
              `SELECT _tid, ts, voltage, phase, note FROM ${q(s, db, 'meters')}`,
            )) {
              const key = `${byTid.get(tid as number)}/${ts}`
              expect(stored.has(key), `duplicate key ${key}`).toBe(false)
              stored.set(key, { voltage, phase, note })
            }
            for (const [ts, voltage, phase, note] of await s.engine.query(`SELECT ts, voltage, phase, note FROM ${q(s, db, 'n1')}`)) {
              const key = `n1/${ts}`
              expect(stored.has(key), `duplicate key ${key}`).toBe(false)
              stored.set(key, { voltage, phase, note })
            }
            expect(stored).toEqual(model)
            await s.catalog.dropDatabase(db, false)
          } finally {
            await s.close()
          }
        }),
        { numRuns: 20 },
      )
    })

    it('keeps ms, us and ns ticks exact as bigint', async () => {
      const s = await fresh()
      const cases: [Precision, bigint][] = [
        ['ms', 1_700_000_000_123n],
        ['us', 1_700_000_000_123_456n],
        ['ns', 1_700_000_000_123_456_789n],
      ]
      for (const [p, ts] of cases) {
        const db = await meters(s, p)
        expect(s.catalog.getDatabase(db)?.precision).toBe(p)
        const d = await s.catalog.createChildTable(db, 'd', 'meters', {}, false)
        // ts + 1 differs from ts only in the last digit: a float round-trip would merge them
        await s.engine.writeRows([
          { db, table: 'meters', tid: d.tid, columns: ['ts', 'voltage'], rows: [[ts, 1], [ts + 1n, 2], [-1n, 3]] },
        ])
        const rows = await s.engine.query(`SELECT ts, voltage FROM ${q(s, db, 'meters')} ORDER BY ts`)
        expect(rows).toEqual([
          [-1n, 3],
          [ts, 1],
          [ts + 1n, 2],
        ])
        expect(typeof rows[1][0]).toBe('bigint')
      }
    })

    it('maps values to plain JS and exposes the dialect', async () => {
      const s = await fresh()
      const d = s.engine.dialect
      expect(d.quoteIdent('a"b')).toBe('"a""b"')
      const rows = await s.engine.query(
        `SELECT CAST(1 AS BIGINT), CAST(2 AS INTEGER), CAST(1.5 AS ${d.columnType({ name: 'd', type: 'DOUBLE', length: 8 })}), CAST(0.5 AS ${d.columnType({ name: 'f', type: 'FLOAT', length: 4 })}), 'x', TRUE, NULL, ${d.quoteString("it's")}, ${d.floorDiv('CAST(-7 AS BIGINT)', 'CAST(2 AS BIGINT)')}, ${d.floorDiv('CAST(7 AS BIGINT)', 'CAST(2 AS BIGINT)')}, ${d.floorDiv('CAST(-8 AS BIGINT)', 'CAST(2 AS BIGINT)')}, ${d.floorDiv('CAST(1700000000123456789 AS BIGINT)', 'CAST(1000 AS BIGINT)')}, ${d.floorDiv('CAST(-1700000000123456789 AS BIGINT)', 'CAST(1000 AS BIGINT)')}`,
      )
      expect(rows).toEqual([
        [1n, 2, 1.5, 0.5, 'x', true, null, "it's", -4n, 3n, -4n, 1700000000123456n, -1700000000123457n],
      ])
      // FIRST/LAST skip NULL values; LAST_ROW (argMaxNull) keeps them
      const t = `(SELECT * FROM (VALUES (1, 10), (NULL, 20), (3, 5), (NULL, 1)) AS x(v, k)) AS y`
      const agg = await s.engine.query(
        `SELECT ${d.argMax('v', 'k')}, ${d.argMin('v', 'k')}${d.argMaxNull ? `, ${d.argMaxNull('v', 'k')}` : ''} FROM ${t}`,
      )
      expect(agg[0].slice(0, 2)).toEqual([1, 3])
      if (d.argMaxNull) {
        expect(agg[0][2]).toBeNull()
      }
      expect(await s.engine.healthy()).toBe(true)
      expect(await s.engine.exec(`CREATE TEMP TABLE t_exec_${seq} (a INTEGER)`)).toBe(0)
    })

    it('streams a large result in bounded chunks', async () => {
      const s = await fresh()
      const db = await meters(s)
      const d = await s.catalog.createChildTable(db, 'd', 'meters', {}, false)
      const total = 30_000
      const batches = []
      for (let start = 0; start < total; start += 10_000) {
        const rows: unknown[][] = []
        for (let i = start; i < start + 10_000; i++) {
          rows.push([BigInt(i), i % 100, i, i / 2, `n${i}`])
        }
        batches.push({ db, table: 'meters', tid: d.tid, columns: ['ts', 'current', 'voltage', 'phase', 'note'], rows })
      }
      expect(await s.engine.writeRows(batches)).toBe(total)
      let n = 0
      let chunks = 0
      let sum = 0
      let expectedTs = 0n
      let outOfOrder = 0
      for await (const chunk of s.engine.stream(`SELECT ts, voltage FROM ${q(s, db, 'meters')} ORDER BY ts`, { chunkRows: 1000 })) {
        chunks++
        expect(chunk.length).toBeGreaterThan(0)
        expect(chunk.length).toBeLessThanOrEqual(1000)
        for (const r of chunk) {
          // counted rather than expect()ed per row: 30k assertions would dominate the test time
          if (r[0] !== expectedTs) {
            outOfOrder++
          }
          expectedTs++
          sum += r[1] as number
          n++
        }
      }
      expect(n).toBe(total)
      expect(outOfOrder).toBe(0)
      expect(sum).toBe((total * (total - 1)) / 2)
      expect(chunks).toBeGreaterThanOrEqual(total / 1000)
      // stopping early releases the connection: later queries still run
      for await (const chunk of s.engine.stream(`SELECT ts FROM ${q(s, db, 'meters')}`, { chunkRows: 10 })) {
        expect(chunk.length).toBe(10)
        break
      }
      // an aborted request neither runs nor keeps a connection
      const aborted = AbortSignal.abort(new Error('client went away'))
      for (let i = 0; i < 12; i++) {
        await expect(
          (async () => {
            for await (const _chunk of s.engine.stream(`SELECT ts FROM ${q(s, db, 'meters')}`, { signal: aborted })) {
              // never reached
            }
          })(),
        ).rejects.toThrow('client went away')
        await expect(s.engine.query('SELECT 1', { signal: aborted })).rejects.toThrow('client went away')
      }
      for (let i = 0; i < 12; i++) {
        expect(await s.engine.query(`SELECT count(*) FROM ${q(s, db, 'meters')}`)).toEqual([[BigInt(total)]])
      }
    })

    it('transactions commit together or roll back', async () => {
      const s = await fresh()
      const db = await meters(s)
      await s.catalog.createNormalTable(db, 'n', [TS, { name: 'v', type: 'INT', length: 4 }], false)
      const t = q(s, db, 'n')
      await expect(
        s.engine.transaction(async (tx) => {
          await tx.exec(`INSERT INTO ${t} VALUES (1, 1)`)
          throw new Error('boom')
        }),
      ).rejects.toThrow('boom')
      expect(await s.engine.query(`SELECT count(*) FROM ${t}`)).toEqual([[0n]])
      const r = await s.engine.transaction(async (tx) => {
        await tx.exec(`INSERT INTO ${t} VALUES (1, 1)`)
        await tx.writeRows([{ db, table: 'n', columns: ['ts', 'v'], rows: [[1n, 5], [2n, 6]] }])
        return tx.query(`SELECT sum(v) FROM ${t}`)
      })
      expect(r).toEqual([[11n]])
    })

    it('serializes concurrent IF NOT EXISTS creations without failures or duplicates', async () => {
      const s = await fresh()
      const db = uniq('dbc')
      await Promise.all(Array.from({ length: 5 }, () => s.catalog.createDatabase(db, {}, true)))
      await Promise.all(Array.from({ length: 5 }, () => s.catalog.createStable(db, 'st', METER_COLS, METER_TAGS, true)))
      const infos = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          s.catalog.createChildTable(db, `c${i % 4}`, 'st', { groupid: i % 4 }, true),
        ),
      )
      expect(new Set(infos.map((x) => `${x.name}:${x.tid}`)).size).toBe(4)
      expect(infos.map((x) => x.tid).sort()).toEqual(
        [1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4],
      )
      expect(await s.engine.query(`SELECT count(*) FROM ${q(s, db, 'st$tags')}`)).toEqual([[4n]])
      // concurrent writes to one table from several requests all land
      await Promise.all(
        infos.slice(0, 4).map((t, i) =>
          s.engine.writeRows([{ db, table: 'st', tid: t.tid, columns: ['ts', 'voltage'], rows: [[BigInt(i), i]] }]),
        ),
      )
      expect(await s.engine.query(`SELECT count(*) FROM ${q(s, db, 'st')}`)).toEqual([[4n]])
      const n = await Promise.allSettled(Array.from({ length: 3 }, () => s.catalog.createDatabase(db, {}, false)))
      expect(n.every((x) => x.status === 'rejected')).toBe(true)
    })

    it('manages users with hashed passwords', async () => {
      const s = await fresh()
      const c = s.catalog
      expect(c.listUsers().find((u) => u.name === 'root')).toMatchObject({ super: true, enable: true })
      const u = uniq('u').slice(0, 23)
      await c.createUser(u, 'pass-1')
      await expectTd(c.createUser(u, 'x'), 848, 'User already exists')
      expect(await c.verifyUser(u, 'pass-1')).toBe(true)
      expect(await c.verifyUser(u, 'pass-1')).toBe(true) // cached
      expect(await c.verifyUser(u, 'pass-2')).toBe(false)
      await c.alterUserPassword(u, 'pass-2')
      expect(await c.verifyUser(u, 'pass-1')).toBe(false)
      expect(await c.verifyUser(u, 'pass-2')).toBe(true)
      await c.alterUser(u, { enable: false, createdb: true })
      expect(await c.verifyUser(u, 'pass-2')).toBe(false)
      expect(c.listUsers().find((x) => x.name === u)).toMatchObject({ enable: false, createdb: true, super: false })
      // no password material in the public listing or the catalog table in clear
      expect(JSON.stringify(c.listUsers())).not.toContain('pass-2')
      const d = s.engine.dialect
      const stored = await s.engine.query(
        `SELECT hash FROM ${d.quoteIdent(d.catalogSchema)}.${d.quoteIdent('users')} WHERE name = ${d.quoteString(u)}`,
      )
      expect(String(stored[0][0])).toMatch(/^scrypt\$/)
      expect(String(stored[0][0])).not.toContain('pass-2')
      await c.dropUser(u)
      await expectTd(c.dropUser(u), 849, 'Invalid user')
      await expectTd(c.alterUserPassword(u, 'x'), 849)
      expect(await c.verifyUser(u, 'pass-2')).toBe(false)
      expect(await c.verifyUser('nosuch', 'x')).toBe(false)
      await expectTd(c.dropUser('root'), 771)
    })

    if (opts.persistent) {
      it('keeps the catalog and data across close and reopen', async () => {
        const s1 = await open()
        const db = uniq('dbp')
        const u = uniq('p').slice(0, 23)
        await s1.catalog.createDatabase(db, { precision: 'ns', vgroups: 4, keep: '365d' }, false)
        await s1.catalog.createStable(db, 'st', METER_COLS, [...METER_TAGS, { name: 'info', type: 'JSON', length: 4095 }], false, 'meters')
        const big = 9007199254740993n
        const c1 = await s1.catalog.createChildTable(db, 'c1', 'st', { location: 'L', groupid: 7, info: { k: 'v', n: 1 } }, false)
        await s1.catalog.createChildTable(db, 'c2', 'st', { groupid: 8 }, false)
        await s1.catalog.createNormalTable(db, 'n', [TS, { name: 'b', type: 'BIGINT', length: 8 }], false, 30)
        await s1.catalog.createUser(u, 'secret-1', { sysinfo: false })
        await s1.catalog.grant(u, db, ['read', 'write'])
        await s1.catalog.revoke(u, db, ['write'])
        await s1.engine.writeRows([
          { db, table: 'st', tid: c1.tid, columns: ['ts', 'voltage'], rows: [[1_700_000_000_000_000_001n, 5]] },
          { db, table: 'n', columns: ['ts', 'b'], rows: [[1n, big]] },
        ])
        const dbInfo = s1.catalog.getDatabase(db)
        const stInfo = s1.catalog.getStable(db, 'st')
        const tables = s1.catalog.listTables(db)
        await s1.close()

        const s2 = await fresh()
        expect(s2.catalog.getDatabase(db)).toEqual(dbInfo)
        expect(s2.catalog.getStable(db, 'st')).toEqual(stInfo)
        expect(s2.catalog.listTables(db).sort((a, b) => a.name.localeCompare(b.name))).toEqual(
          tables.sort((a, b) => a.name.localeCompare(b.name)),
        )
        expect(s2.catalog.getTable(db, 'c1')?.tags).toEqual({ location: 'L', groupid: 7, info: { k: 'v', n: 1 } })
        expect(s2.catalog.getTable(db, 'n')).toMatchObject({ kind: 'normal', ttl: 30 })
        expect(await s2.catalog.verifyUser(u, 'secret-1')).toBe(true)
        expect(s2.catalog.listUsers().find((x) => x.name === u)).toMatchObject({ sysinfo: false })
        expect(s2.catalog.granted(u, db)).toEqual({ read: true, write: false })
        expect(s2.catalog.getDatabase(db)?.owner).toBe('root')
        expect(await s2.engine.query(`SELECT ts, voltage FROM ${q(s2, db, 'st')}`)).toEqual([[1_700_000_000_000_000_001n, 5]])
        expect(await s2.engine.query(`SELECT b FROM ${q(s2, db, 'n')}`)).toEqual([[big]])
        // tids continue after a restart instead of reusing live ids
        expect((await s2.catalog.createChildTable(db, 'c3', 'st', {}, false)).tid).toBe(3)
        // vgroup ids continue after the restored databases
        const db2 = uniq('dbq')
        await s2.catalog.createDatabase(db2, {}, false)
        const maxId = Math.max(...s2.catalog.listDatabases().filter((d) => d.name !== db2).map((d) => d.firstVgId + d.vgroups - 1))
        expect(s2.catalog.getDatabase(db2)?.firstVgId).toBe(maxId + 1)
        await s2.catalog.dropDatabase(db, false)
        await s2.catalog.dropDatabase(db2, false)
        // grants go with the database
        expect(s2.catalog.listPrivileges().filter((p) => p.db === db)).toEqual([])
        await s2.catalog.dropUser(u)
      })
    }
  })
}
