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
import { problems, respond, writeFailed, type Problem } from '../http/error-table.js'
import { LoginGuard } from '../http/auth/login-guard.js'
import { basicCredentials, verifyUser, type CredentialsProblem } from '../http/middleware/auth.js'
import { declaredSize, readBody } from '../http/middleware/body.js'
import type { Schemaless } from '../ingest/types.js'
import { TsdbStream, type TsdbFormat } from '../ingest/tsdbproto/stream.js'
import { authorizeIngest } from './ingest-authorize.js'
import type { IngestDeps } from './ingest-deps.js'
import { countRows } from '../monitor/ingest-metrics.js'
import { parseReqId, parseTtl } from './params.js'

type TsdbDeps = IngestDeps & { schemaless: Schemaless }

const refuse = (problem: Problem): Response => respond('opentsdb', problem)
const credentialsRefused = (problem: CredentialsProblem): Response =>
  problem === 'absent'
    ? refuse(problems.unauthorized('auth needed', true))
    : refuse(problems.unauthorized('invalid Authorization: expected Basic base64(user:password)'))

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
    return refuse(problems.badRequest(reqId.desc))
  }
  const db = c.req.param('db') ?? ''
  if (db === '') {
    return refuse(problems.dbRequired('db required'))
  }
  const ttl = parseTtl(c.req.query('ttl'))
  if (typeof ttl === 'string') {
    return refuse(problems.badRequest(ttl))
  }
  c.set('params', { db, ttl })
  await next()
}

export function createTsdbprotoRoutes(deps: TsdbDeps): Hono {
  const app = new Hono()
  const stream = new TsdbStream(deps.schemaless)
  const limit = deps.config.http.maxBodySize
  const admission = [
    basicCredentials({ refuse: credentialsRefused }),
    checkParams,
    declaredSize(limit, (n) => refuse(problems.bodyTooLarge(n))),
    verifyUser(deps.logins ?? new LoginGuard(deps.storage.catalog), refuse),
    authorizeIngest(deps, (c) => (c as Context<TsdbEnv>).get('params').db, 'write', refuse),
    readBody({ limit, refuse: (r) => refuse({ status: r.status, desc: r.message }) }),
  ] as const
  app.post('/put/json/:db', ...admission, (c) => handlePut(c, deps, stream, 'json'))
  app.post('/put/telnet/:db', ...admission, (c) => handlePut(c, deps, stream, 'telnet'))
  return app
}

async function handlePut(c: Context<TsdbEnv>, deps: TsdbDeps, stream: TsdbStream, format: TsdbFormat): Promise<Response> {
  const { db, ttl } = c.get('params')
  try {
    const result = await stream.write(db, format, c.get('body').bytes, ttl, c.get('user'))
    countRows(deps.metrics, `tsdbproto_${format}`, result.written, result.rejected)
    return result.rejected > 0 ? refuse(problems.rejected(result, format === 'json' ? 'item' : 'line')) : c.body(null, 204)
  } catch (err) {
    return writeFailed('opentsdb', err, db, deps.logger)
  }
}
