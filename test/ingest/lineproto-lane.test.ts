/**
 * A line-protocol write that runs alone (no other write in flight, as from an agent sending one
 * body at a time) of series that already exist: the parse worker parses the body (a large one
 * with the main thread, a part each) and the columnar lane appends it, the way concurrent writes
 * go. It costs less CPU per point than the main thread parsing a share for the row path
 * (bench/README.md), so the route must keep choosing it; the points must be stored exactly as sent.
 */
import type { Hono } from 'hono'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { defaultConfig } from '../../src/config/load.js'
import { LineProtoParser } from '../../src/ingest/lineproto/parse.js'
import { createLineProtoWorkers, parsedHere, splitBody, type LineProtoWorkers } from '../../src/ingest/lineproto/worker-pool.js'
import { createSchemaless } from '../../src/ingest/schemaless/schemaless.js'
import { createLineprotoRoutes } from '../../src/rest/lineproto.js'
import { openStorage } from '../../src/sql/catalog/open.js'
import type { Storage } from '../../src/sql/catalog/types.js'
import { selectRows } from '../sql/select-rows.js'

const HOSTS = 20
const T0 = 1_700_000_000_000

/** Second k of every host: usage k + h/100, n k*100 + h, at T0 + k seconds. */
function body(k: number): string {
  const lines: string[] = []
  for (let h = 0; h < HOSTS; h++) {
    lines.push(`cpu,host=h${h},dc=d${h % 3} usage=${k + h / 100},n=${k * 100 + h}i ${T0 + k * 1000}`)
  }
  return lines.join('\n')
}

/**
 * Storage, `workerCount` parse workers and the route's app, opened before the describe's tests;
 * with `db`, its super table and children (second 0) are created by the schemaless core itself,
 * so the tests' writes through the route find them.
 */
function laneSetUp(db: string | undefined, workerCount: number, columnarLane = true): { storage: () => Storage; workers: () => LineProtoWorkers; app: () => Hono } {
  const logger = pino({ level: 'silent' })
  let storage: Storage
  let workers: LineProtoWorkers
  let app: Hono

  beforeAll(async () => {
    storage = await openStorage('duckdb::memory:', { rootPassword: 'taosdata' })
    workers = createLineProtoWorkers(workerCount, logger)
    const schemaless = createSchemaless(storage, { autoCreateDb: true })
    if (db !== undefined) {
      const first = await schemaless.write(db, parsedHere(Buffer.from(body(0)), new LineProtoParser()).source(), { user: 'root', precision: 'ms', ttl: 0 })
      expect(first).toMatchObject({ written: HOSTS, rejected: 0 })
    }
    const config = defaultConfig()
    config.lineproto.columnarLane = columnarLane
    app = createLineprotoRoutes({ config, storage, logger, schemaless, lineprotoWorkers: workers })
  })

  afterAll(async () => {
    await workers.close()
    await storage.close()
  })

  return { storage: () => storage, workers: () => workers, app: () => app }
}

describe('a line-protocol write alone, of known series', () => {
  const { storage, workers, app } = laneSetUp('solo', 1)

  it('is parsed wholly by the worker and appended through the columnar lane', async () => {
    const append = vi.spyOn(storage().engine, 'appendColumns')
    const parse = vi.spyOn(workers(), 'parse')
    for (let k = 1; k <= 3; k++) {
      const res = await app().request('/write?db=solo&precision=ms&u=root&p=taosdata', { method: 'POST', body: body(k) })
      expect(res.status).toBe(204)
    }
    // a lone body is shared with the main thread as slices for the lane (these are too small to
    // cut), and each body appended as columns
    expect(parse.mock.calls.map((c) => c[1])).toEqual(['slices', 'slices', 'slices'])
    expect(append).toHaveBeenCalledTimes(3)
    expect(await Promise.all(append.mock.results.map((r) => r.value))).toEqual([HOSTS, HOSTS, HOSTS])

    expect(await selectRows(storage(), 'select count(*) from solo.cpu')).toEqual([[BigInt(4 * HOSTS)]])
    // (the database was auto-created, so its precision is ns: ms timestamps are stored as ns)
    expect(await selectRows(storage(), "select _ts, usage, n, dc from solo.cpu where host = 'h7' order by _ts")).toEqual(
      [0, 1, 2, 3].map((k) => [BigInt(T0 + k * 1000) * 1_000_000n, k + 0.07, BigInt(k * 100 + 7), 'd1']),
    )
  })
})

/** Seconds from..to of every host, usage as given, n k*100 + h: one line each, newline-terminated. */
function seconds(from: number, to: number, usage: (k: number, h: number) => number): string {
  const lines: string[] = []
  for (let k = from; k <= to; k++) {
    for (let h = 0; h < HOSTS; h++) {
      lines.push(`cpu,host=h${h},dc=d${h % 3} usage=${usage(k, h)},n=${k * 100 + h}i ${T0 + k * 1000}`)
    }
  }
  return lines.join('\n') + '\n'
}

/**
 * A large body written alone is cut into a part for the main thread (which would otherwise wait)
 * and one per parse worker; on a machine of 3 or more cores lineproto.parseWorkers (-1) starts 2
 * or more workers. The columnar lane then gets slices of several dictionaries, each with its own
 * ids for the same series. A series whose timestamp repeats across the parts must be one child
 * table to the lane, so the repeat is seen and the later line overwrites the earlier one (as the
 * row path stores it), not stored twice.
 */
for (const workerCount of [1, 2]) {
  const parts = workerCount + 1
  const db = `split${workerCount}`

  describe(`a large line-protocol write alone, cut between the main thread and ${workerCount} parse worker(s)`, () => {
    const { storage, workers, app } = laneSetUp(db, workerCount)

    it('stores a timestamp repeated across the first cut once, with the later value', async () => {
      const parse = vi.spyOn(workers(), 'parse')
      // each part's timestamps rise per series; second m ends the first part and starts the
      // rest (with other values), so only the parts together repeat it
      const m = Math.floor(300 / parts)
      const rest = seconds(m, 300, (k, h) => 100_000 + k + h / 100)
      let first = seconds(1, m, (k, h) => k + h / 100)
      // a comment line before the first part puts the first cut right after it: the cut is the
      // first newline from a parts-th of the body on
      first = `#${'-'.repeat(Math.ceil((rest.length + parts) / (parts - 1)) - first.length - 2)}\n${first}`
      const text = first + rest
      expect(splitBody(Buffer.from(text), parts)[0].end).toBe(first.length)

      const res = await app().request(`/write?db=${db}&precision=ms&u=root&p=taosdata`, { method: 'POST', body: text })
      expect(res.status).toBe(204)
      expect(parse.mock.calls.map((c) => c[1])).toEqual(['slices'])
      expect(await selectRows(storage(), `select count(*) from ${db}.cpu`)).toEqual([[BigInt(301 * HOSTS)]])
      expect(await selectRows(storage(), `select _ts, usage from ${db}.cpu where host = 'h7' and _ts between ${T0 + (m - 1) * 1000}000000 and ${T0 + (m + 1) * 1000}000000 order by _ts`)).toEqual([
        [BigInt(T0 + (m - 1) * 1000) * 1_000_000n, m - 1 + 0.07],
        [BigInt(T0 + m * 1000) * 1_000_000n, 100_000 + m + 0.07],
        [BigInt(T0 + (m + 1) * 1000) * 1_000_000n, 100_000 + m + 1 + 0.07],
      ])
    })

  })

  describe(`a large line-protocol write alone, rising across the cuts between the main thread and ${workerCount} parse worker(s)`, () => {
    const rise = `rise${workerCount}`
    const { storage, app } = laneSetUp(rise, workerCount)

    it('goes through the lane, every line once', async () => {
      const append = vi.spyOn(storage().engine, 'appendColumns')
      const text = seconds(301, 600, (k, h) => k + h / 100)
      expect(splitBody(Buffer.from(text), parts)).toHaveLength(parts)
      const res = await app().request(`/write?db=${rise}&precision=ms&u=root&p=taosdata`, { method: 'POST', body: text })
      expect(res.status).toBe(204)
      expect(append).toHaveBeenCalledTimes(1)
      expect(await append.mock.results[0].value).toBe(300 * HOSTS)
      expect(await selectRows(storage(), `select count(*), min(_ts), max(_ts), sum(n) from ${rise}.cpu where _ts > ${T0 + 300_000}000000`)).toEqual([
        [BigInt(300 * HOSTS), BigInt(T0 + 301_000) * 1_000_000n, BigInt(T0 + 600_000) * 1_000_000n, BigInt(Array.from({ length: 300 }, (_, i) => (301 + i) * 100 * HOSTS + (HOSTS * (HOSTS - 1)) / 2).reduce((a, b) => a + b, 0))],
      ])
    })
  })
}

/**
 * Two writes at once through the lane: the second, a body of later timestamps, arrives just after
 * the first has been read, and is parsed first (the first waits for the second's append, or
 * 300 ms at most). The lane appends a body only when its rows are newer than the stored ones, so
 * the second overtaking the first sent the first down the row path (and the writes after it:
 * ColumnarLanes.missed); lane writes take turns in the order their bodies arrived instead
 * (ColumnarLanes.order).
 */
describe('concurrent line-protocol writes through the lane', () => {
  const { storage, workers, app } = laneSetUp('arrive', 2)

  it('reach the engine in the order their bodies arrived, each appended as columns', async () => {
    const url = '/write?db=arrive&precision=ms&u=root&p=taosdata'
    const early = seconds(1, 100, (k, h) => k + h / 100)
    const late = seconds(101, 101, (k, h) => k + h / 100)
    const engine = storage().engine
    const appendColumns = engine.appendColumns?.bind(engine) as NonNullable<typeof engine.appendColumns>
    let lateAppending = (): void => {}
    const lateAppend = new Promise<void>((resolve) => (lateAppending = resolve))
    const append = vi.spyOn(engine, 'appendColumns').mockImplementation((batches) => {
      if (batches[0].count === HOSTS) {
        lateAppending()
      }
      return appendColumns(batches)
    })
    const pool = workers()
    const parse = pool.parse.bind(pool)
    let second: Promise<Response> | undefined
    vi.spyOn(pool, 'parse').mockImplementationOnce((...args) => {
      const parsed = parse(...args)
      second = Promise.resolve(app().request(url, { method: 'POST', body: late }))
      const allSlices = parsed.allSlices.bind(parsed)
      parsed.allSlices = async () => {
        const slices = await allSlices()
        await Promise.race([lateAppend, new Promise((resolve) => setTimeout(resolve, 300))])
        return slices
      }
      return parsed
    })
    const first = await app().request(url, { method: 'POST', body: early })
    expect([first.status, (await (second as Promise<Response>)).status]).toEqual([204, 204])
    expect(await Promise.all(append.mock.results.map((r) => r.value))).toEqual([100 * HOSTS, HOSTS])
    expect(await selectRows(storage(), 'select count(*), max(_ts) from arrive.cpu')).toEqual([[BigInt(102 * HOSTS), BigInt(T0 + 101_000) * 1_000_000n]])
  })
})

/**
 * A body the lane cannot take sends the next ColumnarLanes.SKIP_AFTER_MISS writes to that database
 * straight down the row path, except when it only lacked tables: the row path creates them, and
 * the next body of those series takes the lane.
 */
describe('line-protocol writes after a body the lane could not take', () => {
  const { storage: opened, app } = laneSetUp(undefined, 1)

  const write = async (db: string, text: string): Promise<void> => {
    const res = await app().request(`/write?db=${db}&precision=ms&u=root&p=taosdata`, { method: 'POST', body: text })
    expect(res.status).toBe(204)
  }

  it('take the lane at once when that body only lacked tables (series new to a new database)', async () => {
    const append = vi.spyOn(opened().engine, 'appendColumns')
    await write('fresh', body(0))
    expect(append).not.toHaveBeenCalled()
    await write('fresh', body(1))
    expect(await Promise.all(append.mock.results.map((r) => r.value))).toEqual([HOSTS])
    expect(await selectRows(opened(), 'select count(*) from fresh.cpu')).toEqual([[BigInt(2 * HOSTS)]])
    append.mockRestore()
  })

  it('take the row path for a while after a body of a string field', async () => {
    await write('strings', body(0))
    const append = vi.spyOn(opened().engine, 'appendColumns')
    await write('strings', `cpu,host=h0,dc=d0 usage=1,note="x" ${T0 + 1000}`)
    await write('strings', body(2))
    expect(append).not.toHaveBeenCalled()
    expect(await selectRows(opened(), "select count(*), last(note) from strings.cpu")).toEqual([[BigInt(2 * HOSTS + 1), 'x']])
    append.mockRestore()
  })
})

/**
 * lineproto.columnarLane false: the same writes of known series take the row path (nothing is
 * appended as columns) and store exactly the rows the lane stores.
 */
describe('lineproto.columnarLane', () => {
  const on = laneSetUp('flag', 1, true)
  const off = laneSetUp('flag', 1, false)

  it('false sends every body down the row path, storing exactly the same rows', async () => {
    const url = '/write?db=flag&precision=ms&u=root&p=taosdata'
    const appendOn = vi.spyOn(on.storage().engine, 'appendColumns')
    const appendOff = vi.spyOn(off.storage().engine, 'appendColumns')
    const bodies = [body(1), seconds(2, 40, (k, h) => k + h / 100), body(41)]
    for (const text of bodies) {
      expect((await on.app().request(url, { method: 'POST', body: text })).status).toBe(204)
      expect((await off.app().request(url, { method: 'POST', body: text })).status).toBe(204)
    }
    expect(appendOn).toHaveBeenCalledTimes(bodies.length)
    expect(appendOff).not.toHaveBeenCalled()
    const all = 'select tbname, _ts, usage, n, host, dc from flag.cpu order by tbname, _ts'
    const stored = await selectRows(off.storage(), all)
    expect(stored).toHaveLength(42 * HOSTS)
    expect(stored).toEqual(await selectRows(on.storage(), all))
  })
})
