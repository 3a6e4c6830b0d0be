/**
 * @module
 * `POST /lineproto/v1/write?db=&precision=&u=&p=&ttl=&req_id=`: InfluxDB v1 line protocol through
 * the schemaless core (adapter-behaviour 4, sql-dialect 9).
 *
 * Order: memory pause 503 (src/lifecycle.ts) -> req_id 400 -> precision 400 -> credentials missing 401 -> db missing
 * 404 -> ttl 400 -> Content-Length over http.maxBodySize 413 -> credentials wrong 401 -> read body
 * (413 past the cap, decompressed size included) -> parse + write -> 204.
 *
 * Status codes are chosen for Telegraf-style clients, which retry 5xx and drop 4xx: bad data
 * (malformed lines, type conflicts) is 400 and never retried; only storage trouble is 503.
 * When some lines are bad the good ones are still written and the 400 body says so.
 *
 * Error body: the spec's `{"code": <int>, "desc": <text>}`, plus `error` (what InfluxDB 1.x
 * clients print) and, for rejected lines, `line`, `rejected`, `written` and `errors`.
 */
import { Hono } from 'hono'
import type { Context, MiddlewareHandler } from 'hono'
import { problems, respond, writeFailed, type Problem } from '../http/error-table.js'
import { LineProtoParser } from '../ingest/lineproto/parse.js'
import { parsedHere } from '../ingest/lineproto/worker-pool.js'
import { parseRequestPrecision } from '../ingest/schemaless/precision.js'
import { basicCredentials, verifyUser } from '../http/middleware/auth.js'
import { declaredSize, readBody } from '../http/middleware/body.js'
import { BodyLease, BodyPool } from '../ingest/body-pool.js'
import type { Schemaless, WriteOptions, WriteResult } from '../ingest/schemaless/schemaless.js'
import type { LaneMiss } from '../ingest/schemaless/columnar.js'
import type { IngestDeps } from './ingest-routes.js'
import { countRows } from '../monitor/ingest-metrics.js'
import { Mutex } from '../mutex.js'
import { parseReqId, parseTtl } from './params.js'

type LineprotoDeps = IngestDeps & { schemaless: Schemaless }

const refuse = (problem: Problem): Response => respond('influxdb', problem)
const credentialsRequired = (): Response =>
  refuse(problems.unauthorized('authentication required: send HTTP Basic credentials or the u and p query parameters', true))

export function createLineprotoRoutes(deps: LineprotoDeps): Hono {
  const app = new Hono()
  // each parse() call runs to its end without awaiting, so one reused parser serves every
  // request of this process even when their slices interleave
  const parser = new LineProtoParser()
  // writes of this route being parsed or written now
  const writing = new WriteLoad()
  const lanes = new ColumnarLanes()
  const limit = deps.config.http.maxBodySize
  app.post(
    '/write',
    checkRequest,
    // Basic credentials first, then u / p override each part (taosAdapter's order)
    basicCredentials({ queryOverride: true, refuse: credentialsRequired }),
    checkTarget,
    declaredSize(limit, (n) => refuse(problems.bodyTooLarge(n))),
    verifyUser(deps.storage.catalog, () => refuse(problems.wrongCredentials())),
    readBody({ limit, pool: new BodyPool(), refuse: (r) => refuse({ status: r.status, desc: r.message }) }),
    (c) => handleWrite(c, deps, parser, writing, lanes),
  )
  return app
}

/**
 * Writes of this route being parsed or written now, and whether writes have been overlapping
 * lately: a client sending back to back on two connections has moments with one write in
 * flight, and those writes are still part of a concurrent load. A body gets a parse share on the
 * main thread (slices for the lane, points for the row path) only when its write runs alone.
 * (When this also chose the columnar lane, counting only the writes in flight sent ~30% of
 * gen_lp's writes at concurrency 2 down the row path with a share; with the overlap remembered,
 * 648-784k vs 542-704k points/s.)
 */
export class WriteLoad {
  /** how long after two writes last overlapped a write counts as concurrent */
  static readonly OVERLAP_MS = 1000
  private count = 0
  private overlappedAt = -Infinity

  constructor(private readonly clock: () => number = () => performance.now()) {}

  /** Counts a write in; true when it runs alone (no other write now nor lately). */
  start(): boolean {
    this.count++
    const now = this.clock()
    if (this.count > 1) {
      this.overlappedAt = now
      return false
    }
    return now - this.overlappedAt > WriteLoad.OVERLAP_MS
  }

  end(): void {
    this.count--
  }
}

/**
 * Which databases' writes try the columnar lane (schemaless/columnar.ts). After a body the lane
 * could not take (a string field, a new column, a bad line ...), the next SKIP_AFTER_MISS writes
 * to that database take the row path directly instead of waiting for every slice first. A body
 * of series without tables yet does not count: the row path creates them, and the next body of
 * those series takes the lane (a run of gen_lp into a new database sent 9 of its 200 bodies at
 * concurrency 1, and 10 at 2, down the row path, at about twice the main thread's work a point).
 */
class ColumnarLanes {
  private static readonly SKIP_AFTER_MISS = 8
  private static readonly MAX_DATABASES = 1000
  private readonly skip = new Map<string, number>()

  /**
   * Lane writes reach the engine in the order their bodies were read. The lane appends a body
   * only when its rows are newer than each child's stored ones, and an agent's concurrent bodies
   * are in time order: a body that overtook the one before it (it was parsed sooner, or its lane
   * took fewer turns of the event loop) sent that one, and the SKIP_AFTER_MISS writes after it,
   * down the row path, at about twice the main thread's work a point. gen_lp at concurrency 2
   * showed no such overtaking in 4 runs, but 5-7 a run once the main thread parsed parts of
   * bodies (an experiment not kept).
   */
  readonly order = new Mutex()

  want(db: string): boolean {
    const left = this.skip.get(db)
    if (left === undefined) {
      return true
    }
    if (left <= 1) {
      this.skip.delete(db)
    } else {
      this.skip.set(db, left - 1)
    }
    return false
  }

  missed(db: string): void {
    if (this.skip.size >= ColumnarLanes.MAX_DATABASES) {
      this.skip.clear()
    }
    this.skip.set(db, ColumnarLanes.SKIP_AFTER_MISS)
  }
}

/** Parameters of a write, checked before credentials are verified and the body is read. */
interface WriteParams {
  db: string
  opts: WriteOptions
}

type LineprotoEnv = { Variables: { params: WriteParams } }

/** req_id 400 -> precision 400 (before credentials are looked at). */
const checkRequest: MiddlewareHandler<LineprotoEnv> = async (c, next) => {
  const reqId = parseReqId(c.req.query('req_id'))
  if ('status' in reqId) {
    return refuse(problems.badRequest(reqId.desc))
  }
  const precisionRaw = c.req.query('precision')
  const precision = parseRequestPrecision(precisionRaw)
  if (precision === undefined) {
    return refuse(problems.badRequest(`illegal param: precision ${JSON.stringify(precisionRaw)} is not one of h, m, s, ms, u, us, µ, n, ns`))
  }
  const db = c.req.query('db') ?? ''
  c.set('params', { db, opts: { precision } })
  await next()
}

/** db 404 -> ttl 400 (after credentials are present, before they are verified). */
const checkTarget: MiddlewareHandler<LineprotoEnv> = async (c, next) => {
  const params = c.get('params')
  if (params.db === '') {
    return refuse(problems.dbRequired('db required: the db query parameter names the target database'))
  }
  const ttl = parseTtl(c.req.query('ttl'))
  if (typeof ttl === 'string') {
    return refuse(problems.badRequest(ttl))
  }
  params.opts.ttl = ttl
  await next()
}

async function handleWrite(
  c: Context<LineprotoEnv>,
  deps: LineprotoDeps,
  parser: LineProtoParser,
  writing: WriteLoad,
  lanes: ColumnarLanes,
): Promise<Response> {
  const { db, opts } = c.get('params')
  let result: WriteResult
  const alone = writing.start()
  try {
    result = await writeBody(c.get('body'), db, opts, deps, parser, alone, lanes)
  } catch (err) {
    return writeFailed('influxdb', err, db, deps.logger)
  } finally {
    writing.end()
  }
  countRows(deps.metrics, 'lineproto', result.written, result.rejected)
  if (result.rejected > 0) {
    return refuse(problems.rejected(result))
  }
  return c.body(null, 204)
}

/**
 * Parses and writes a body: by the workers when there are workers, through the columnar lane when
 * it can take the body, else as points (the main thread parsing a share of a large body, as
 * slices for the lane or as points, when no other write runs); without workers here, a slice at
 * a time.
 */
async function writeBody(
  read: BodyLease,
  db: string,
  opts: WriteOptions,
  deps: LineprotoDeps,
  parser: LineProtoParser,
  alone: boolean,
  lanes: ColumnarLanes,
): Promise<WriteResult> {
  const workers = deps.lineprotoWorkers
  if (workers === undefined) {
    return deps.schemaless.write(db, parsedHere(read.bytes, parser).source(), opts)
  }
  // The workers parse whole bodies for the lane, which halves the main thread's work per point
  // (gen_lp at concurrency 2: 563-835k vs 505-637k points/s through the row path, alternating
  // runs). A write alone takes the lane too: since the encoder got faster it beats the main
  // thread parsing a share for the row path (concurrency 1, alternating runs: 567-688k vs
  // 475-579k points/s, 1.41-1.77 vs 1.96-2.62 us of CPU a point). The main thread, which would
  // wait for the worker, encodes the first part of a large lone body into slices itself
  // (concurrency 1, alternating runs: 491-633k, mean 548k, vs 469-543k, mean 496k points/s).
  // (PostgreSQL has no columnar lane: Schemaless.columnar)
  // (lineproto.columnarLane false: every body takes the row path)
  const lane = deps.config.lineproto.columnarLane && deps.schemaless.columnar && lanes.want(db)
  const parsed = workers.parse(read.bytes, alone ? (lane ? 'slices' : 'points') : 'none', read)
  if (lane) {
    const place = lanes.order.reserve()
    let written: WriteResult | LaneMiss | undefined
    try {
      // (no slices: a worker failed and a part is parsed here instead)
      const slices = await parsed.allSlices()
      await place.turn
      written = slices === undefined ? undefined : await deps.schemaless.writeColumnar(db, slices, opts)
    } finally {
      place.release()
    }
    if (typeof written === 'object') {
      return written
    }
    if (written === 'body') {
      lanes.missed(db)
    }
  }
  return deps.schemaless.write(db, parsed.source(), opts)
}
