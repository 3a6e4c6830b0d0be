import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { openStorage } from '../../sql/catalog/open.js'
import type { Storage } from '../../sql/catalog/types.js'
import { LineProtoParser } from '../lineproto/parse.js'
import { SliceDictionary, decodeSlice } from '../lineproto/slice-decoder.js'
import { SliceEncoder } from '../lineproto/slice-encoder.js'
import { lineSlices } from '../slices.js'
import type { LaneMiss, ReceivedSlice, Schemaless, WriteOptions } from '../types.js'
import { createSchemaless } from './schemaless.js'

/** A body cut into slices as a parse worker sends them (one encoder and dictionary per "worker"). */
class FakeWorker {
  private readonly parser = new LineProtoParser()
  private readonly encoder = new SliceEncoder()
  private readonly dictionary = new SliceDictionary()

  slices(body: string, sliceBytes = 256): ReceivedSlice[] {
    const out: ReceivedSlice[] = []
    for (const { slice, lineOffset, last } of lineSlices(Buffer.from(body), sliceBytes)) {
      this.parser.parse(
        slice,
        (p, line) => this.encoder.add(p, line, this.parser.seriesText()),
        (e) => this.encoder.addError(e),
        lineOffset,
      )
      out.push(this.dictionary.receive(this.encoder.take(1, last).message))
    }
    return out
  }
}

interface Side {
  storage: Storage
  sl: Schemaless
  worker: FakeWorker
}

const opened: Storage[] = []

afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()))
})

async function side(): Promise<Side> {
  const storage = await openStorage('duckdb::memory:', { rootPassword: 'taosdata' })
  opened.push(storage)
  return { storage, sl: createSchemaless(storage, { autoCreateDb: true }), worker: new FakeWorker() }
}

function rowPath(s: Side, db: string, body: string, opts: WriteOptions) {
  const slices = s.worker.slices(body)
  return s.sl.write(db, (onPoint, onError) => slices.forEach((x) => decodeSlice(x, onPoint, onError)), opts)
}

/**
 * Every stored row of every super table of `db`, by child and time (tids match: both sides
 * created the children alike). Not physical order: the row path appends a child's rows with
 * different field sets separately.
 */
async function contents(s: Side, db: string): Promise<unknown[][]> {
  const out: unknown[][] = []
  for (const st of s.storage.catalog.listStables(db)) {
    out.push([st.name, st.columns.map((c) => `${c.name} ${c.type}`)])
    out.push(...(await s.storage.engine.query(`SELECT * FROM td_${db}."${st.name}" ORDER BY _tid, _ts`)))
  }
  return out
}

const MS: WriteOptions = { user: 'root', precision: 'ms' }
const T0 = 1_700_000_000_000

/** The lane and the row path side by side, each on its own storage after the same set-up writes. */
async function pair(db: string, setup: string[], opts: WriteOptions = MS): Promise<{ lane: Side; rows: Side }> {
  const lane = await side()
  const rows = await side()
  for (const s of [lane, rows]) {
    await s.storage.catalog.createDatabase(db, { precision: 'ms' }, true)
    for (const body of setup) {
      const r = await rowPath(s, db, body, opts)
      expect(r.rejected).toBe(0)
    }
  }
  return { lane, rows }
}

const SETUP = [
  [
    `cpu,host=a,dc=x usage=1.5,count=1i,total=2u,up=true ${T0}`,
    `cpu,host=b,dc=x usage=2.5,count=2i,total=3u,up=false ${T0}`,
    `mem,host=a free=10i ${T0}`,
  ].join('\n'),
]

describe('columnar lane: the rows the row path would write, or nothing', () => {
  it('writes known series with numeric, BIGINT, BIGINT UNSIGNED and BOOL fields, absent fields as NULL', async () => {
    const { lane, rows } = await pair('d1', SETUP)
    const body = [
      `cpu,host=a,dc=x usage=3.25,count=-7i,total=18446744073709551615u,up=true ${T0 + 1000}`,
      `cpu,host=b,dc=x usage=4 ${T0 + 1000}`,
      // the same child with its tags in another order: one child, rows in line order
      `cpu,dc=x,host=a count=9i ${T0 + 2000}`,
      `mem,host=a free=11i ${T0 + 1000}`,
      `cpu,host=b,dc=x up=true,usage=5.5 ${T0 + 3000}`,
    ].join('\n')
    const got = await lane.sl.writeColumnar('d1', lane.worker.slices(body), MS)
    const want = await rowPath(rows, 'd1', body, MS)
    expect(got).toEqual({ written: 5, rejected: 0, errors: [] })
    expect(got).toEqual(want)
    expect(await contents(lane, 'd1')).toEqual(await contents(rows, 'd1'))
  })

  it('writes a body of more rows than one appender flush in one transaction', async () => {
    const { lane, rows } = await pair('d5', SETUP)
    const lines = Array.from({ length: 20_000 }, (_, i) => `cpu,host=${i % 2 === 0 ? 'a' : 'b'},dc=x usage=${i},count=${i}i ${T0 + 1000 * (1 + Math.floor(i / 2))}`)
    const body = lines.join('\n')
    const got = await lane.sl.writeColumnar('d5', lane.worker.slices(body, 64 * 1024), MS)
    expect(got).toEqual(await rowPath(rows, 'd5', body, MS))
    expect(got).toMatchObject({ written: 20_000 })
    expect(await contents(lane, 'd5')).toEqual(await contents(rows, 'd5'))
  })

  it('resolves the series of one worker dictionary again once the catalog changed between requests', async () => {
    const { lane, rows } = await pair('d7', SETUP)
    const step = async (body: string, written: number): Promise<void> => {
      const got = await lane.sl.writeColumnar('d7', lane.worker.slices(body), MS)
      expect(got).toMatchObject({ written })
      expect(got).toEqual(await rowPath(rows, 'd7', body, MS))
    }
    await step(`cpu,host=a,dc=x usage=1 ${T0 + 1000}\ncpu,host=b,dc=x usage=2 ${T0 + 1000}`, 2)
    // host=a's child dropped and created again: a new table id
    for (const s of [lane, rows]) {
      const child = s.storage.catalog.listTables('d7').find((t) => t.stable === 'cpu' && t.tags?.host === 'a')
      await s.storage.catalog.dropTable('d7', child?.name ?? '', false)
      expect((await rowPath(s, 'd7', `cpu,host=a,dc=x usage=7 ${T0 + 500}`, MS)).rejected).toBe(0)
    }
    await step(`cpu,host=a,dc=x usage=3 ${T0 + 2000}\ncpu,host=b,dc=x usage=4 ${T0 + 2000}`, 2)
    // the super table dropped and created again with other columns
    for (const s of [lane, rows]) {
      await s.storage.catalog.dropStable('d7', 'cpu', false)
      expect((await rowPath(s, 'd7', `cpu,host=b,dc=x other=1 ${T0}`, MS)).rejected).toBe(0)
    }
    await step(`cpu,host=b,dc=x other=5 ${T0 + 3000}`, 1)
    expect(await contents(lane, 'd7')).toEqual(await contents(rows, 'd7'))
  })

  // a body split between workers (lineproto.parseWorkers > 1, or a share parsed on the main
  // thread) reaches the lane as slices of several dictionaries, each with its own ids for the same
  // series: the lane must still see one child per table, in line order
  const split: Array<[string, string, string]> = [
    ['a repeated timestamp across the parts (the later line wins)', `cpu,host=a,dc=x usage=1 ${T0 + 1000}`, `cpu,host=a,dc=x usage=2 ${T0 + 1000}`],
    ['timestamps out of order across the parts', `cpu,host=a,dc=x usage=1 ${T0 + 2000}`, `cpu,host=a,dc=x usage=2 ${T0 + 1000}`],
    ['rising timestamps across the parts', `cpu,host=a,dc=x usage=1 ${T0 + 1000}\ncpu,host=b,dc=x usage=3 ${T0 + 1000}`, `cpu,host=b,dc=x usage=4 ${T0 + 2000}\ncpu,dc=x,host=a usage=2 ${T0 + 2000}`],
  ]
  for (const [what, first, second] of split) {
    it(`writes what the row path writes for a body parsed by two workers: ${what}`, async () => {
      const { lane, rows } = await pair('d8', SETUP)
      const other = new FakeWorker()
      const slices = [...lane.worker.slices(first), ...other.slices(second)]
      const laned = await lane.sl.writeColumnar('d8', slices, MS)
      const got = typeof laned === 'object' ? laned : await lane.sl.write('d8', (onPoint, onError) => slices.forEach((x) => decodeSlice(x, onPoint, onError)), MS)
      expect(got).toEqual(await rowPath(rows, 'd8', `${first}\n${second}`, MS))
      expect(await contents(lane, 'd8')).toEqual(await contents(rows, 'd8'))
      // and a later write of a timestamp the body stored is a rewrite on both sides
      const later = `cpu,host=a,dc=x usage=7 ${T0 + 1000}\ncpu,host=a,dc=x usage=8 ${T0 + 2000}`
      const lanedNext = await lane.sl.writeColumnar('d8', lane.worker.slices(later), MS)
      const next = typeof lanedNext === 'object' ? lanedNext : await rowPath(lane, 'd8', later, MS)
      expect(next).toEqual(await rowPath(rows, 'd8', later, MS))
      expect(await contents(lane, 'd8')).toEqual(await contents(rows, 'd8'))
    })
  }

  it('converts timestamps to the database precision and takes lines without one at the server time', async () => {
    const { lane } = await pair('d2', SETUP)
    const before = BigInt(Date.now())
    const got = await lane.sl.writeColumnar('d2', lane.worker.slices(`cpu,host=a,dc=x usage=1 ${(T0 + 5000) * 1000}\ncpu,host=b,dc=x usage=2`), { user: 'root',
      precision: 'us',
    })
    expect(got).toMatchObject({ written: 2 })
    const ts = (await lane.storage.engine.query('SELECT _ts FROM td_d2.cpu ORDER BY _ts')).map((r) => r[0] as bigint)
    expect(ts).toContain(BigInt(T0 + 5000))
    expect(ts[ts.length - 1]).toBeGreaterThanOrEqual(before)
  })

  // (the row path creates missing tables, so the next body of those series takes the lane: the
  // route counts only the body's other misses against the lane, ColumnarLanes.missed)
  const fallbacks: Array<[string, string, LaneMiss]> = [
    ['a new series (no child table yet)', `cpu,host=b,dc=x usage=1 ${T0 + 1000}\ncpu,host=c,dc=x usage=1 ${T0 + 1000}`, 'tables'],
    ['a new measurement', `disk,host=a used=1 ${T0 + 1000}`, 'tables'],
    ['a new field', `cpu,host=a,dc=x usage=1,extra=2 ${T0 + 1000}`, 'body'],
    ['a string field', `cpu,host=a,dc=x usage=1,note="x" ${T0 + 1000}`, 'body'],
    ['a field of another type', `cpu,host=a,dc=x count=1.5 ${T0 + 1000}`, 'body'],
    ['a field twice in a line', `cpu,host=a,dc=x usage=1,usage=2 ${T0 + 1000}`, 'body'],
    ['a bad line', `cpu,host=a,dc=x usage=1 ${T0 + 1000}\ncpu,host=a,dc=x usage=oops ${T0 + 2000}`, 'body'],
    ['a repeated timestamp of one series', `cpu,host=a,dc=x usage=1 ${T0 + 1000}\ncpu,host=a,dc=x usage=2 ${T0 + 1000}`, 'body'],
    ['timestamps out of order', `cpu,host=a,dc=x usage=1 ${T0 + 2000}\ncpu,host=a,dc=x usage=2 ${T0 + 1000}`, 'body'],
    ['a rewrite of a stored timestamp', `cpu,host=a,dc=x usage=9 ${T0}`, 'body'],
    ['an older row than stored', `cpu,host=b,dc=x usage=9 ${T0 - 1000}`, 'body'],
  ]
  for (const [what, body, why] of fallbacks) {
    it(`leaves ${what} to the row path and writes nothing`, async () => {
      const { lane, rows } = await pair('d3', SETUP)
      const before = await contents(lane, 'd3')
      expect(await lane.sl.writeColumnar('d3', lane.worker.slices(body), MS)).toBe(why)
      expect(await contents(lane, 'd3')).toEqual(before)
      // and the row path then writes it as it would have
      await rowPath(lane, 'd3', body, MS)
      await rowPath(rows, 'd3', body, MS)
      expect(await contents(lane, 'd3')).toEqual(await contents(rows, 'd3'))
    })
  }

  it('leaves a timestamp the database precision cannot hold to the row path', async () => {
    const { lane } = await pair('d4', SETUP)
    // 10^16 hours is past the 64-bit milliseconds of the database
    expect(await lane.sl.writeColumnar('d4', lane.worker.slices('cpu,host=a,dc=x usage=1 10000000000000000'), { user: 'root', precision: 'h' })).toBe('body')
  })

  it('leaves every body to the row path on an engine without a column append (PostgreSQL)', async () => {
    const { lane } = await pair('d6', SETUP)
    const engine = Object.assign(Object.create(lane.storage.engine) as object, { appendColumns: undefined })
    const sl = createSchemaless({ ...lane.storage, engine } as Storage, { autoCreateDb: true })
    const before = await contents(lane, 'd6')
    expect(await sl.writeColumnar('d6', lane.worker.slices(`cpu,host=a,dc=x usage=1 ${T0 + 1000}`), MS)).toBe('body')
    expect(await contents(lane, 'd6')).toEqual(before)
  })

  it('leaves a body for a database that does not exist to the row path (which creates or refuses it)', async () => {
    const s = await side()
    expect(await s.sl.writeColumnar('nowhere', s.worker.slices(`cpu v=1 ${T0}`), MS)).toBe('tables')
    expect(s.storage.catalog.getDatabase('nowhere')).toBeUndefined()
  })

  it('gives the row path’s rows for generated bodies of known series (property)', async () => {
    const series = ['host=a,dc=x', 'host=b,dc=x', 'dc=x,host=a']
    const lineArb = fc.record({
      series: fc.integer({ min: 0, max: series.length - 1 }),
      step: fc.integer({ min: 1, max: 3 }),
      usage: fc.option(fc.double({ noNaN: true, noDefaultInfinity: true }), { nil: undefined }),
      count: fc.option(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), { nil: undefined }),
      up: fc.option(fc.boolean(), { nil: undefined }),
    })
    let run = 0
    await fc.assert(
      fc.asyncProperty(fc.array(lineArb, { minLength: 1, maxLength: 40 }), async (lines) => {
        const db = `p${++run}`
        const { lane, rows } = await pair(db, SETUP)
        // per child (host=a in either tag order is one child) the timestamps rise
        const clock = new Map<string, number>()
        const body = lines
          .map((l) => {
            const child = series[l.series].includes('host=a') ? 'a' : 'b'
            const ts = (clock.get(child) ?? T0) + l.step * 1000
            clock.set(child, ts)
            const fields = [
              l.usage === undefined ? undefined : `usage=${l.usage}`,
              l.count === undefined ? undefined : `count=${l.count}i`,
              l.up === undefined ? undefined : `up=${l.up}`,
            ].filter((f) => f !== undefined)
            return `cpu,${series[l.series]} ${fields.length > 0 ? fields.join(',') : 'usage=0'} ${ts}`
          })
          .join('\n')
        const got = await lane.sl.writeColumnar(db, lane.worker.slices(body, 64), MS)
        const want = await rowPath(rows, db, body, MS)
        expect(got).toEqual(want)
        expect(await contents(lane, db)).toEqual(await contents(rows, db))
      }),
      { numRuns: 25 },
    )
  })
})
