import { ServerResponse } from 'node:http'
import { sqlClient } from './sql-client.js'
import type { Context } from 'hono'
import { TD, TdError } from '../td-error.js'
import type { SqlResult } from '../sql/result.js'
import { isFailure, problems, respond, sqlProblem } from '../http/error-table.js'
import '../http/context.js'
import { acceptsGzip, GZIP_MIN_BYTES } from '../http/middleware/gzip.js'
import { execBody, JSON_CONTENT_TYPE } from './encode/bodies.js'
import { encodeQueryBody } from './encode/query-body.js'
import { parseReqId, parseTz } from './params.js'
import { jsonText } from './json-response.js'
import type { RestDeps } from './rest-deps.js'
import { queryDeadline, type QueryDeadline } from './query-deadline.js'

const EMPTY_BODY = { status: 400, code: 4358, desc: 'request is empty' }
const NO_SQL = { status: 400, code: 4359, desc: 'no sql input' }

/** Passwords must never reach the logs (`CREATE USER u PASS '...'`, `ALTER USER u PASS '...'`). */
export function redactSql(sql: string): string {
  return sql.replace(/(\bpass\s+)(['"`])(?:\\.|(?!\2).)*\2/gi, '$1$2***$2')
}

/** Database errors are the client's business (debug); anything else is our bug (error). */
function logFailure(deps: RestDeps, err: unknown, reqId: bigint, msg: string): void {
  if (err instanceof TdError && err.cause instanceof Error && !(err.cause instanceof TdError)) {
    // a backend failure mapped to TDengine's words (sql/select/backend-errors.ts): the client
    // never sees the backend's text, the operator does
    deps.logger.warn({ code: err.code, desc: err.desc, reqId: reqId.toString(), backend: err.cause.message }, msg)
  } else if (err instanceof TdError) {
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

/** Cancels a query whose reservation the gate revokes on all-paused. */
const MEMORY_KILLED = (): TdError => new TdError(TD.TSC_QUERY_KILLED, 'Query killed: memory exceeds threshold (the memory gate went all-paused)')

/**
 * A query's share of the work budget, held until its answer is complete (finisher), revoked
 * (the query cancelled) when the gate goes all-paused. Statements that are not queries reserve
 * nothing here: their body was reserved by the route's middleware.
 */
async function reserveQuery(deps: RestDeps, sql: string, deadline: QueryDeadline): Promise<(() => void) | 'refused'> {
  const work = deps.work
  if (work === undefined) {
    return () => {}
  }
  let kind: string
  try {
    kind = deps.sql.classify(sql)
  } catch {
    return () => {}
  }
  if (kind !== 'query') {
    return () => {}
  }
  const held = await work.budget.reserve(work.queryBytes, {
    waitMs: work.waitMs,
    signal: deadline.signal,
    onRevoke: () => deadline.cancel(MEMORY_KILLED()),
  })
  if (held === undefined) {
    work.refused?.('query')
    return 'refused'
  }
  return held.release
}

interface Statement {
  reqId: bigint
  user: string
  db: string | undefined
  sql: string
}

/**
 * What runs once when a statement's answer is complete (or failed): the deadline is released,
 * a timeout is logged, and a statement slower than `log.slowQueryThreshold` is logged.
 */
function finisher(deps: RestDeps, deadline: QueryDeadline, stmt: Statement, release: () => void): (err?: unknown) => void {
  const started = performance.now()
  let finished = false
  return (err) => {
    if (finished) {
      return
    }
    finished = true
    deadline.done()
    release()
    const ms = Math.round(performance.now() - started)
    const fields = { reqId: stmt.reqId.toString(), user: stmt.user, db: stmt.db, ms }
    // a statement that ignores the signal (INSERT, DDL) and completed is merely slow
    if (err !== undefined && deadline.timedOut()) {
      deps.logger.warn({ ...fields, sql: logText(stmt.sql) }, `query cancelled after rest.queryTimeout (${ms} ms)`)
      return
    }
    const threshold = deps.config.log.slowQueryThreshold
    if (threshold > 0 && ms >= threshold) {
      const outcome = err === undefined ? 'ok' : deadline.signal.aborted ? 'client gone' : 'failed'
      deps.logger.warn({ ...fields, outcome, sql: logText(stmt.sql) }, `slow query (${ms} ms)`)
    }
  }
}

/** Node's response behind a Hono context served by @hono/node-server (absent under app.request). */
function nodeOutgoing(env: unknown): ServerResponse | undefined {
  const outgoing = (env as { outgoing?: unknown } | undefined)?.outgoing
  return outgoing instanceof ServerResponse ? outgoing : undefined
}

/** The SQL as logged: passwords redacted, long statements shortened. */
function logText(sql: string): string {
  const text = redactSql(sql)
  return text.length > 2048 ? `${text.slice(0, 2048)}... (${text.length} chars)` : text
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
  // stops the backend query on rest.queryTimeout or when the client goes away
  const deadline = queryDeadline(c.req.raw.signal, deps.config.rest.queryTimeout)
  const held = await reserveQuery(deps, sql, deadline)
  if (held === 'refused') {
    deadline.done()
    return respond('tdengine', problems.busy(deps.work?.waitMs ?? 0))
  }
  const done = finisher(deps, deadline, { reqId: reqId.reqId, user, db: defaultDb, sql }, held)
  let result: SqlResult
  try {
    const client = sqlClient(c.env, c.req.header('User-Agent'))
    result = await executeSeeingReplicas(deps, sql, { user: user, defaultDb, signal: deadline.signal, ...(client ? { client } : {}) })
  } catch (err) {
    done(err)
    logFailure(deps, err, reqId.reqId, 'rest sql failed')
    return respond('tdengine', sqlProblem(err, deps.config.httpCodeServerError))
  }
  if (result.kind === 'exec') {
    done()
    return jsonText(execBody(result.affectedRows), 200)
  }
  // gzip is done by the encoder, part by part where each part is encoded (src/http/gzip-parts.ts);
  // the Content-Encoding set here makes the gzip middleware leave the body alone
  const gzip = acceptsGzip(c.req.header('Accept-Encoding'))
  let plain = false
  const parts = encodeQueryBody(result, {
    tz: tz.tz,
    rowLimit: deps.config.restfulRowLimit,
    gzip,
    // below the gzip middleware's threshold a small answer goes out plain, as any other small body
    gzipMinBytes: GZIP_MIN_BYTES,
    onPlain: () => {
      plain = true
    },
    ...(deps.encodeOffload ? { offload: deps.encodeOffload } : {}),
  })
  // The first engine chunk is fetched before the status line is sent, so errors raised when the
  // query starts producing rows still get a proper error body instead of a cut-off 200. The
  // encoder yields parts of ~64 KiB and the rest at the end: when the second pull ends the body,
  // the whole answer goes out in one write with its length (streamed, the head, the part and
  // the closing chunk are three writes: ~0.3 ms of a 60-row TSBS answer's ~2.5 ms on the main thread).
  let first: IteratorResult<Uint8Array, void>
  let second: IteratorResult<Uint8Array, void>
  try {
    first = await parts.next()
    second = first.done === true ? first : await parts.next()
  } catch (err) {
    done(err)
    logFailure(deps, err, reqId.reqId, 'rest sql failed on first chunk')
    return respond('tdengine', sqlProblem(err, deps.config.httpCodeServerError))
  }
  if (first.done === true) {
    // unreachable: the encoder always yields the closing part
    done()
    return jsonText('', 500)
  }
  const headers: Record<string, string> = { 'Content-Type': JSON_CONTENT_TYPE, Vary: 'Accept-Encoding' }
  if (gzip && !plain) {
    headers['Content-Encoding'] = 'gzip'
  }
  if (second.done === true) {
    done()
    if (plain) {
      // with its length, so the gzip middleware leaves it alone (below its threshold)
      headers['Content-Length'] = String(first.value.byteLength)
    }
    return new Response(first.value, { status: 200, headers })
  }
  const pending = [first.value, second.value]
  // set when the response stream is cancelled (the client went away): from then on nothing may
  // be enqueued, and the query's own failure (it was interrupted) is no error of ours
  let cancelled = false
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = pending.shift()
        if (next !== undefined) {
          controller.enqueue(next)
          return
        }
        const n = await parts.next()
        if (cancelled) {
          return
        }
        if (n.done === true) {
          done()
          controller.close()
        } else {
          controller.enqueue(n.value)
        }
      } catch (err) {
        done(err)
        if (cancelled) {
          return
        }
        // Mid-stream failure after the 200 went out: cut the body so the client sees a broken
        // response instead of a well-formed, silently truncated one (taosAdapter's bug).
        // A timeout or a memory-gate cancel is expected (done() or the gate logged it); anything
        // else is ours.
        // KILL QUERY is expected as well
        const killed = err instanceof TdError && err.code === TD.TSC_QUERY_KILLED
        if (!deadline.signal.aborted && !killed) {
          log.error({ err, reqId: reqId.reqId.toString() }, 'rest sql failed while streaming')
        }
        // Under @hono/node-server the socket is closed without the last chunk (every client then
        // reports an incomplete body; with an errored stream the server would end the chunked
        // body normally after an error text, and a gzip-decoding client waits forever).
        const outgoing = nodeOutgoing(c.env)
        if (outgoing !== undefined) {
          outgoing.destroy()
          controller.close()
        } else {
          controller.error(err)
        }
      }
    },
    async cancel() {
      cancelled = true
      done(new TdError(TD.TSC_QUERY_KILLED, 'Query killed: the client closed the connection'))
      await parts.return(undefined)
    },
  })
  return new Response(body, { status: 200, headers })
}
