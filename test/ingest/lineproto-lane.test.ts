/**
 * A line-protocol write that runs alone (no other write in flight, as from an agent sending one
 * body at a time) of series that already exist: the parse worker parses the whole body and the
 * columnar lane appends it, the way concurrent writes go. At concurrency 1 this took 15% less CPU
 * per point than the main thread parsing a share for the row path (gen_lp, alternating runs), so
 * the route must keep choosing it; the points must be stored exactly as sent.
 */
import type { Hono } from 'hono'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { defaultConfig } from '../../src/config/load.js'
import { LineProtoParser } from '../../src/ingest/lineproto/parse.js'
import { createLineProtoWorkers, parsedHere, splitBody, type LineProtoWorkers } from '../../src/ingest/lineproto/worker-pool.js'
import { createSchemaless } from '../../src/ingest/schemaless/schemaless.js'
import { createLineprotoRoutes } from '../../src/rest/lineproto.js'
import { openStorage, type Storage } from '../../src/storage/index.js'
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
 * Storage, `workerCount` parse workers and the route's app for `db`, opened before the describe's
 * tests: the super table and its children (second 0) are created by the schemaless core itself (a
 * first write through the route would try the lane, miss, and send the next writes down the row
 * path).
 */
function laneSetUp(db: string, workerCount: number): { storage: () => Storage; workers: () => LineProtoWorkers; app: () => Hono } {
  const logger = pino({ level: 'silent' })
  let storage: Storage
  let workers: LineProtoWorkers
  let app: Hono

  beforeAll(async () => {
    storage = await openStorage('duckdb::memory:', { rootPassword: 'taosdata' })
    workers = createLineProtoWorkers(workerCount, logger)
    const schemaless = createSchemaless(storage, { autoCreateDb: true })
    const first = await schemaless.write(db, parsedHere(Buffer.from(body(0)), new LineProtoParser()).source(), { precision: 'ms', ttl: 0 })
    expect(first).toMatchObject({ written: HOSTS, rejected: 0 })
    app = createLineprotoRoutes({ config: defaultConfig(), storage, logger, schemaless, lineprotoWorkers: workers })
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
    // no share of the body parsed on the main thread, and each body appended as columns
    expect(parse.mock.calls.map((c) => c[1])).toEqual([false, false, false])
    expect(append).toHaveBeenCalledTimes(3)
    expect(await Promise.all(append.mock.results.map((r) => r.value))).toEqual([HOSTS, HOSTS, HOSTS])

    expect(await selectRows(storage(), 'select count(*) from solo.cpu')).toEqual([[BigInt(4 * HOSTS)]])
    // (the database was auto-created, so its precision is ns: ms timestamps are stored as ns)
    expect(await selectRows(storage(), "select _ts, usage, n, dc from solo.cpu where host = 'h7' order by _ts")).toEqual(
      [0, 1, 2, 3].map((k) => [BigInt(T0 + k * 1000) * 1_000_000n, k + 0.07, BigInt(k * 100 + 7), 'd1']),
    )
  })
})

/**
 * On a machine of 3 or more cores lineproto.parseWorkers (-1) starts 2 or more workers, and a
 * body from 128 KiB up is split between them: the columnar lane then gets slices of several
 * worker dictionaries, each with its own ids for the same series. A series whose timestamp
 * repeats across the parts must be one child table to the lane, so the repeat is seen and the
 * later line overwrites the earlier one (as the row path stores it), not stored twice.
 */
describe('a line-protocol write split between two parse workers', () => {
  const { storage, workers, app } = laneSetUp('split', 2)

  it('stores a timestamp repeated across the parts once, with the later value', async () => {
    const parse = vi.spyOn(workers(), 'parse')
    const seconds = (from: number, to: number, usage: (k: number, h: number) => number): string => {
      const lines: string[] = []
      for (let k = from; k <= to; k++) {
        for (let h = 0; h < HOSTS; h++) {
          lines.push(`cpu,host=h${h},dc=d${h % 3} usage=${usage(k, h)},n=${k * 100 + h}i ${T0 + k * 1000}`)
        }
      }
      return lines.join('\n') + '\n'
    }
    // each part's timestamps rise per series; second 150 ends the first part and starts the
    // second (with other values), so only the two parts together repeat it
    let first = seconds(1, 150, (k, h) => k + h / 100)
    const second = seconds(150, 300, (k, h) => 100_000 + k + h / 100)
    // a comment line before the first part centres the cut on its end
    first = `#${'-'.repeat(second.length + 4 - first.length - 2)}\n${first}`
    const text = first + second
    expect(splitBody(Buffer.from(text), 2)[0].end).toBe(first.length)

    const res = await app().request('/write?db=split&precision=ms&u=root&p=taosdata', { method: 'POST', body: text })
    expect(res.status).toBe(204)
    expect(parse).toHaveBeenCalledTimes(1)
    expect(await selectRows(storage(), 'select count(*) from split.cpu')).toEqual([[BigInt(301 * HOSTS)]])
    expect(await selectRows(storage(), `select _ts, usage from split.cpu where host = 'h7' and _ts between ${T0 + 149_000}000000 and ${T0 + 151_000}000000 order by _ts`)).toEqual([
      [BigInt(T0 + 149_000) * 1_000_000n, 149.07],
      [BigInt(T0 + 150_000) * 1_000_000n, 100_150.07],
      [BigInt(T0 + 151_000) * 1_000_000n, 100_151.07],
    ])
  })
})
