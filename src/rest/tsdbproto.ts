/**
 * @module
 * OpenTSDB HTTP writes through the schemaless core (adapter-behaviour 5, sql-dialect 9.2):
 *  - `POST /tsdbproto/v1/put/json/{db}`: one `{metric, timestamp, value, tags}` object or an array;
 *  - `POST /tsdbproto/v1/put/telnet/{db}`: lines `[put ]<metric> <ts> <value> k=v ...` (CRLF and
 *    repeated spaces as collectd's write_tsdb sends them).
 *
 * Order: memory pause 503 (src/lifecycle.ts) -> Basic credentials missing/malformed 401 -> req_id 400 -> ttl 400 ->
 * Content-Length over http.maxBodySize 413 -> credentials wrong 401 -> read body (413 past the
 * cap) -> empty body: 204 without touching the database -> parse + write -> 204.
 * Bad data is 400 (never retried by agents), storage trouble 503.
 *
 * Error body: `{"code": <status>, "message": <text>}` as taosAdapter's OpenTSDB plugin writes it
 * (missing credentials: exactly `{"code":401,"message":"auth needed"}` in meaning), plus the spec's
 * `desc` with the same text, plus `line`/`rejected`/`written`/`errors` for rejected lines.
 */
import { Hono } from 'hono'
import type { Context, MiddlewareHandler } from 'hono'
import { GatewayError } from '../http/errors.js'
import { basicCredentials, verifyUser, type CredentialsProblem } from '../http/middleware/auth.js'
import { declaredSize, readBody } from '../http/middleware/body.js'
import type { PointSource, Schemaless, WriteResult } from '../ingest/schemaless/schemaless.js'
import { forEachLineSlice } from '../ingest/slices.js'
import { OpenTsdbJsonParser } from '../ingest/tsdbproto/json.js'
import { TelnetParser } from '../ingest/tsdbproto/telnet.js'
import { TD, TdError } from '../td-error.js'
import type { IngestDeps } from './ingest-routes.js'
import { countRows } from '../monitor/ingest-metrics.js'
import { parseReqId, parseTtl } from './params.js'

type TsdbDeps = IngestDeps & { schemaless: Schemaless }

type Format = 'json' | 'telnet'

interface Parsers {
  telnet: TelnetParser
  json: OpenTsdbJsonParser
}

const credentialsRefused = (problem: CredentialsProblem): Response =>
  problem === 'absent'
    ? tsdbError(401, 'auth needed', {}, { 'WWW-Authenticate': 'Basic realm="db-adapter"' })
    : tsdbError(401, 'invalid Authorization: expected Basic base64(user:password)')

/** Parameters of a put, checked before credentials are verified and the body is read. */
interface PutParams {
  db: string
  ttl: number
}

type TsdbEnv = { Variables: { params: PutParams } }

/** req_id 400 -> db 404 -> ttl 400 (after credentials are present). */
const checkParams: MiddlewareHandler<TsdbEnv> = async (c, next) => {
  const reqId = parseReqId(c.req.query('req_id'))
  if ('status' in reqId) {
    return tsdbError(400, reqId.desc)
  }
  const db = c.req.param('db') ?? ''
  if (db === '') {
    return tsdbError(404, 'db required')
  }
  const ttl = parseTtl(c.req.query('ttl'))
  if (typeof ttl === 'string') {
    return tsdbError(400, ttl)
  }
  c.set('params', { db, ttl })
  await next()
}

export function createTsdbprotoRoutes(deps: TsdbDeps): Hono {
  const app = new Hono()
  // each parse() call runs to its end without awaiting, so one reused parser per format serves
  // every request of this process even when their slices interleave
  const parsers: Parsers = { telnet: new TelnetParser(), json: new OpenTsdbJsonParser() }
  const limit = deps.config.http.maxBodySize
  const admission = [
    basicCredentials({ refuse: credentialsRefused }),
    checkParams,
    declaredSize(limit, (n) => tsdbError(413, `request body exceeds http.maxBodySize (${n} bytes)`)),
    verifyUser(deps.storage.catalog, () => tsdbError(401, 'Authentication failure: wrong user name or password')),
    readBody({ limit, refuse: (r) => tsdbError(r.status, r.message) }),
  ] as const
  app.post('/put/json/:db', ...admission, (c) => handlePut(c, deps, parsers, 'json'))
  app.post('/put/telnet/:db', ...admission, (c) => handlePut(c, deps, parsers, 'telnet'))
  return app
}

function tsdbError(status: number, message: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): Response {
  const body = JSON.stringify({ code: status, message, desc: message, ...extra })
  return new Response(body, { status, headers: { 'Content-Type': 'application/json; charset=utf-8', ...headers } })
}

async function handlePut(c: Context<TsdbEnv>, deps: TsdbDeps, parsers: Parsers, format: Format): Promise<Response> {
  const { db, ttl } = c.get('params')
  const read = c.get('body').bytes
  const body = read.toString('utf8')
  // an empty body is a successful no-op that does not touch the database (taosAdapter's behaviour)
  if (body.trim() === '') {
    return c.body(null, 204)
  }
  const source: PointSource =
    format === 'json'
      ? (onPoint, onError) => {
          // items are numbered from 0 by the parser; the core numbers points from 1
          parsers.json.parse(
            body,
            (p, index) => {
              onPoint(p, index + 1)
            },
            (e) => {
              onError({ line: e.index === undefined ? 0 : e.index + 1, message: e.message })
            },
          )
        }
      : (onPoint, onError) =>
          forEachLineSlice(read, (slice, lineOffset) => {
            parsers.telnet.parse(slice, onPoint, onError, lineOffset)
          })
  let result: WriteResult
  try {
    // OpenTSDB points carry millisecond timestamps (seconds are scaled by the parser)
    result = await deps.schemaless.write(db, source, {
      precision: 'ms',
      ttl,
      ...(format === 'json' ? { where: (n: number) => `item ${n - 1}` } : {}),
    })
  } catch (err) {
    return failure(err, db, deps)
  }
  countRows(deps.metrics, `tsdbproto_${format}`, result.written, result.rejected)
  if (result.rejected > 0) {
    const unit = format === 'json' ? 'item' : 'line'
    const first = result.errors[0]
    const written = result.written === 0 ? 'nothing was written' : `the other ${result.written} ${unit}(s) were written`
    return tsdbError(400, `${result.rejected} ${unit}(s) rejected, ${written}; first error: ${first?.message ?? 'unknown'}`, {
      ...(format === 'json' ? { item: first === undefined || first.line === 0 ? null : first.line - 1 } : { line: first?.line ?? 0 }),
      rejected: result.rejected,
      written: result.written,
      errors: result.errors,
    })
  }
  return c.body(null, 204)
}

function failure(err: unknown, db: string, deps: IngestDeps): Response {
  if (err instanceof TdError) {
    if (err.code === TD.MND_DB_NOT_EXIST) {
      return tsdbError(
        404,
        `database does not exist: "${db}" (create it with CREATE DATABASE, or enable smlAutoCreateDB to create it on write)`,
      )
    }
    return tsdbError(400, `[0x${err.code.toString(16)}] ${err.desc}`)
  }
  if (err instanceof GatewayError) {
    return tsdbError(err.status, err.message)
  }
  deps.logger.error({ err, db }, 'schemaless write failed')
  const detail = err instanceof Error ? err.message : String(err)
  return tsdbError(503, `storage unavailable, retry later: ${detail}`, {}, { 'Retry-After': '1' })
}
