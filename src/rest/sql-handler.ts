import type { Context } from 'hono'
import { TD, TdError } from '../td-error.js'
import type { SqlResult } from '../sql/result.js'
import { isFailure, problems, respond, sqlProblem } from '../http/error-table.js'
import '../http/context.js'
import { acceptsGzip } from '../http/middleware/gzip.js'
import { execBody, JSON_CONTENT_TYPE } from './encode/bodies.js'
import { encodeQueryBody } from './encode/query-body.js'
import { parseReqId, parseTz } from './params.js'
import { jsonText } from './json-response.js'
import type { RestDeps } from './rest-deps.js'

const EMPTY_BODY = { status: 400, code: 4358, desc: 'request is empty' }
const NO_SQL = { status: 400, code: 4359, desc: 'no sql input' }

/** Passwords must never reach the logs (`CREATE USER u PASS '...'`, `ALTER USER u PASS '...'`). */
export function redactSql(sql: string): string {
  return sql.replace(/(\bpass\s+)(['"`])(?:\\.|(?!\2).)*\2/gi, '$1$2***$2')
}

/** Database errors are the client's business (debug); anything else is our bug (error). */
function logFailure(deps: RestDeps, err: unknown, reqId: bigint, msg: string): void {
  if (err instanceof TdError) {
    deps.logger.debug({ code: err.code, desc: err.desc, reqId: reqId.toString() }, msg)
  } else {
    deps.logger.error({ err, reqId: reqId.toString() }, msg)
  }
}

/**
 * Memory gate hook, checked BEFORE executing (taosAdapter checks after, so a refused query had
 * already run; we refuse without running it). Only statements with a result set are queries;
 * writes and DDL pass while only the query threshold is exceeded.
 */
function queryGateRefuses(deps: RestDeps, sql: string): boolean {
  if (deps.gate === undefined || !deps.gate.queryPaused()) {
    return false
  }
  try {
    return deps.sql.classify(sql) === 'query'
  } catch {
    // unparsable SQL: let execute() report the syntax error
    return false
  }
}

/** "database / super table / table does not exist": maybe just created by another replica */
const MISS_CODES = new Set<number>([TD.MND_DB_NOT_EXIST, TD.MND_STB_NOT_EXIST, TD.PAR_TABLE_NOT_EXIST])

/**
 * Runs the statement; when it fails because a database or table is missing and the catalog is
 * shared with other replicas (PostgreSQL), re-reads the catalog (rate-limited) and runs it once
 * more, so a table created through another replica a moment ago is found even before its
 * NOTIFY arrives. Statements fail on a missing name before they write, and writes overwrite
 * by (table, ts), so the second run does not duplicate anything.
 */
async function executeSeeingReplicas(
  deps: RestDeps,
  sql: string,
  opts: Parameters<RestDeps['sql']['execute']>[1],
): Promise<SqlResult> {
  try {
    return await deps.sql.execute(sql, opts)
  } catch (err) {
    const catalog = deps.storage.catalog as { refreshOnMiss?: () => Promise<boolean> }
    if (err instanceof TdError && MISS_CODES.has(err.code) && typeof catalog.refreshOnMiss === 'function') {
      if (await catalog.refreshOnMiss()) {
        return deps.sql.execute(sql, opts)
      }
    }
    throw err
  }
}

/**
 * `POST /rest/sql`, `/rest/sql/`, `/rest/sql/{db}`: auth (routes.ts) -> tz -> req_id -> body -> gate ->
 * execute -> exec body or streamed query body (adapter-behaviour 2.4).
 */
export async function handleSql(c: Context, deps: RestDeps): Promise<Response> {
  const user = c.get('user')
  const tz = parseTz(c.req.query('tz'))
  if (isFailure(tz)) {
    return respond('tdengine', tz)
  }
  const reqId = parseReqId(c.req.query('req_id'))
  if (isFailure(reqId)) {
    return respond('tdengine', reqId)
  }
  // read under the caps by the route's middleware (sql-body.ts); a UTF-8 BOM is dropped as
  // Request.text() would
  const raw = new TextDecoder().decode(c.get('body').bytes)
  if (raw.length === 0) {
    return respond('tdengine', EMPTY_BODY)
  }
  const sql = raw.trim()
  if (sql === '') {
    return respond('tdengine', NO_SQL)
  }
  if (queryGateRefuses(deps, sql)) {
    return respond('tdengine', problems.paused('query memory exceeds threshold'))
  }
  const db = c.req.param('db')
  const defaultDb = db === undefined || db === '' ? undefined : db
  const log = deps.logger
  // `log.enableRecordHttpSql`: one line per statement in the SQL log (passwords redacted).
  deps.sqlLogger?.info({ reqId: reqId.reqId.toString(), user: user, db: defaultDb, sql: redactSql(sql) }, 'sql')
  if (log.isLevelEnabled('debug')) {
    log.debug({ reqId: reqId.reqId.toString(), user: user, db: defaultDb, sql: redactSql(sql) }, 'rest sql')
  }
  let result: SqlResult
  try {
    result = await executeSeeingReplicas(deps, sql, { user: user, defaultDb, signal: c.req.raw.signal })
  } catch (err) {
    logFailure(deps, err, reqId.reqId, 'rest sql failed')
    return respond('tdengine', sqlProblem(err, deps.config.httpCodeServerError))
  }
  if (result.kind === 'exec') {
    return jsonText(execBody(result.affectedRows), 200)
  }
  // gzip is done by the encoder, part by part where each part is encoded (src/http/gzip-parts.ts);
  // the Content-Encoding set here makes the gzip middleware leave the body alone
  const gzip = acceptsGzip(c.req.header('Accept-Encoding'))
  const parts = encodeQueryBody(result, {
    tz: tz.tz,
    rowLimit: deps.config.restfulRowLimit,
    gzip,
    ...(deps.encodeOffload ? { offload: deps.encodeOffload } : {}),
  })
  // The first engine chunk is fetched before the status line is sent, so errors raised when the
  // query starts producing rows still get a proper error body instead of a cut-off 200.
  let first: IteratorResult<Uint8Array, void>
  try {
    first = await parts.next()
  } catch (err) {
    logFailure(deps, err, reqId.reqId, 'rest sql failed on first chunk')
    return respond('tdengine', sqlProblem(err, deps.config.httpCodeServerError))
  }
  if (first.done === true) {
    // unreachable: the encoder always yields the closing part
    return jsonText('', 500)
  }
  let pending: Uint8Array | undefined = first.value
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (pending !== undefined) {
          controller.enqueue(pending)
          pending = undefined
          return
        }
        const n = await parts.next()
        if (n.done === true) {
          controller.close()
        } else {
          controller.enqueue(n.value)
        }
      } catch (err) {
        // Mid-stream failure after the 200 went out: cut the body so the client sees a broken
        // response instead of a well-formed, silently truncated one (taosAdapter's bug).
        log.error({ err, reqId: reqId.reqId.toString() }, 'rest sql failed while streaming')
        controller.error(err)
      }
    },
    async cancel() {
      await parts.return(undefined)
    },
  })
  const headers: Record<string, string> = { 'Content-Type': JSON_CONTENT_TYPE, Vary: 'Accept-Encoding' }
  if (gzip) {
    headers['Content-Encoding'] = 'gzip'
  }
  return new Response(body, { status: 200, headers })
}
