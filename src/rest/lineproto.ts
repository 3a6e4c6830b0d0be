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
import { LoginGuard } from '../http/auth/login-guard.js'
import { basicCredentials, verifyUser } from '../http/middleware/auth.js'
import { declaredSize, readBody } from '../http/middleware/body.js'
import { BodyPool } from '../ingest/body-pool.js'
import { LineProtoStream } from '../ingest/lineproto/stream.js'
import { parseRequestPrecision } from '../ingest/schemaless/precision.js'
import type { Schemaless, WriteOptions } from '../ingest/types.js'
import { countRows } from '../monitor/ingest-metrics.js'
import { authorizeIngest } from './ingest-authorize.js'
import type { IngestDeps } from './ingest-deps.js'
import { parseReqId, parseTtl } from './params.js'

const refuse = (problem: Problem): Response => respond('influxdb', problem)

/** Parameters of a write, checked before credentials are verified and the body is read. */
type LineprotoEnv = { Variables: { params: { db: string; opts: Omit<WriteOptions, 'user'> } } }

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
  c.set('params', { db: c.req.query('db') ?? '', opts: { precision } })
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

export function createLineprotoRoutes(deps: IngestDeps & { schemaless: Schemaless }): Hono {
  const stream = new LineProtoStream({
    schemaless: deps.schemaless,
    columnarLane: deps.config.lineproto.columnarLane,
    ...(deps.lineprotoWorkers ? { workers: deps.lineprotoWorkers } : {}),
  })
  const limit = deps.config.http.maxBodySize
  const app = new Hono()
  app.post(
    '/write',
    checkRequest,
    // Basic credentials first, then u / p override each part (taosAdapter's order)
    basicCredentials({
      queryOverride: true,
      refuse: () => refuse(problems.unauthorized('authentication required: send HTTP Basic credentials or the u and p query parameters', true)),
    }),
    checkTarget,
    declaredSize(limit, (n) => refuse(problems.bodyTooLarge(n))),
    verifyUser(deps.logins ?? new LoginGuard(deps.storage.catalog), refuse),
    authorizeIngest(deps, (c) => (c as Context<LineprotoEnv>).get('params').db, 'write', refuse),
    // bodies of declared length are read into shared slabs, handed to the parse workers uncopied
    readBody({ limit, pool: new BodyPool(), refuse: (r) => refuse({ status: r.status, desc: r.message }) }),
    async (c) => {
      const { db, opts } = c.get('params')
      try {
        const result = await stream.write(db, c.get('body'), { ...opts, user: c.get('user') })
        countRows(deps.metrics, 'lineproto', result.written, result.rejected)
        return result.rejected > 0 ? refuse(problems.rejected(result)) : c.body(null, 204)
      } catch (err) {
        return writeFailed('influxdb', err, db, deps.logger)
      }
    },
  )
  return app
}
