/**
 * @module
 * Every error answer of the HTTP layer, in one place: what went wrong (a `Problem`: its status,
 * text and extras, built from the kinds below or from a thrown error) and how each protocol writes
 * it down:
 *  - tdengine (/rest): `{"code": <TDengine code>, "desc": ...}`, Go's escaping, exact bytes;
 *  - influxdb (line protocol) and prometheus (remote write/read): `{code: <status>, desc, error, ...}`
 *    (`error` is what InfluxDB 1.x clients print; Prometheus only reads the status);
 *  - opentsdb: `{code: <status>, message, desc, ...}` as taosAdapter's OpenTSDB plugin writes it;
 *  - gateway (the app's error handler, 404s): `{code: <status>, desc}`.
 * Statuses are chosen for agents that retry 5xx and drop 4xx: bad data is 400, only storage
 * trouble (and the memory gate) 503 with a Retry-After; too large 413, too deep 400.
 */
import { TD, TdError } from '../td-error.js'
import { isStorageTrouble, storageUnavailableIn } from '../storage/errors.js'
import { DecodedTooLarge, RemoteDecodeError } from '../ingest/metricsproto/proto.js'
import { InputTooLarge } from '../ingest/read-all.js'
import { MetricsSchemaError } from '../ingest/metricsproto/store.js'
import type { WriteResult } from '../ingest/types.js'
import type { Logger } from '../logger.js'
import { GatewayError } from './gateway-error.js'

/** The status of each kind of error. */
export const STATUS = {
  badRequest: 400,
  unauthorized: 401,
  /** a user without the privilege (TDengine 0x0303 on /rest/sql, which answers it with 200) */
  forbidden: 403,
  dbMissing: 404,
  bodyTooLarge: 413,
  rejected: 400,
  internal: 500,
  storageUnavailable: 503,
  paused: 503,
  loginThrottled: 429,
  loginBusy: 503,
} as const

/** TDengine's code for errors of the adapter itself (not of the database). */
const TD_GENERIC = 65535

/** One error answer before a protocol writes it down. */
export interface Problem {
  status: number
  desc: string
  /** TDengine's code in /rest bodies (default TD_GENERIC) */
  code?: number
  /** protocol extras after the standard fields (rejected lines ...) */
  extra?: Record<string, unknown>
  headers?: Record<string, string>
  /** the body is `desc` alone as a JSON string, whatever the protocol (the memory gate's) */
  bare?: true
}

/** A request-level failure of /rest (auth, params, body): its own fixed status and TDengine code. */
export interface RestFailure {
  status: number
  code: number
  desc: string
  headers?: Record<string, string>
}

export function isFailure<T extends object>(x: T | RestFailure): x is RestFailure {
  return 'status' in x && 'desc' in x
}

export type Protocol = 'tdengine' | 'influxdb' | 'opentsdb' | 'prometheus' | 'gateway'

export const JSON_TYPE = 'application/json; charset=utf-8'

/** How long agents are asked to wait after storage trouble (seconds). */
const STORAGE_RETRY_AFTER = '1'
/** How long agents are asked to wait while the memory gate pauses them (the original's value). */
export const PAUSED_RETRY_AFTER = '120'
/** a full work budget frees up as requests finish: seconds, not minutes */
export const BUSY_RETRY_AFTER = '2'

export const problems = {
  badRequest: (desc: string): Problem => ({ status: STATUS.badRequest, desc }),
  /** `challenge`: ask for Basic credentials (WWW-Authenticate), for a request that sent none */
  unauthorized: (desc: string, challenge = false): Problem => ({
    status: STATUS.unauthorized,
    desc,
    ...(challenge ? { headers: { 'WWW-Authenticate': 'Basic realm="db-adapter"' } } : {}),
  }),
  wrongCredentials: (): Problem => ({ status: STATUS.unauthorized, desc: 'Authentication failure: wrong user name or password' }),
  /** TDengine's 0x0303 (771) as an HTTP answer: the user may not do this to this database */
  forbidden: (desc: string): Problem => ({ status: STATUS.forbidden, desc, code: TD.MND_NO_RIGHTS }),
  /** too many wrong passwords from one address (http/auth/login-throttle.ts): refused without checking */
  loginThrottled: (address: string, retryAfterMs: number): RestFailure => {
    const s = Math.max(1, Math.ceil(retryAfterMs / 1000))
    return {
      status: STATUS.loginThrottled,
      code: TD_GENERIC,
      desc: `too many failed logins from ${address}; retry in ${s} s`,
      headers: { 'Retry-After': String(s) },
    }
  },
  /** the password-verification queue is full (many addresses at once): refused, not queued */
  loginBusy: (): RestFailure => ({
    status: STATUS.loginBusy,
    code: TD_GENERIC,
    desc: 'too many logins are being verified; retry in 1 s',
    headers: { 'Retry-After': '1' },
  }),
  dbRequired: (desc: string): Problem => ({ status: STATUS.dbMissing, desc }),
  dbMissing: (db: string): Problem => ({
    status: STATUS.dbMissing,
    desc: `database does not exist: "${db}" (create it with CREATE DATABASE, or enable smlAutoCreateDB to create it on write)`,
  }),
  bodyTooLarge: (limit: number): Problem => ({ status: STATUS.bodyTooLarge, desc: `request body exceeds http.maxBodySize (${limit} bytes)` }),
  storageUnavailable: (desc: string, code?: number): Problem => ({
    status: STATUS.storageUnavailable,
    desc,
    ...(code === undefined ? {} : { code }),
    headers: { 'Retry-After': STORAGE_RETRY_AFTER },
  }),
  /** the work budget stayed full for monitor.workWait (src/monitor/work-budget.ts) */
  busy: (waitedMs: number): Problem => ({
    status: STATUS.paused,
    desc: `memory budget exhausted: requests in flight hold monitor.workMemory; waited ${waitedMs} ms`,
    headers: { 'Retry-After': BUSY_RETRY_AFTER },
  }),
  /** the memory gate: the spec's texts as JSON strings (quotes included), as the original wrote them */
  paused: (what: 'memory exceeds threshold' | 'query memory exceeds threshold'): Problem => ({
    status: STATUS.paused,
    desc: what,
    headers: { 'Retry-After': PAUSED_RETRY_AFTER },
    bare: true,
  }),
  /** 400 for a partly or wholly bad body: the first bad line (or item), how many were rejected and written */
  rejected: (result: WriteResult, unit: 'line' | 'item' = 'line'): Problem => {
    const first = result.errors[0]
    const written = result.written === 0 ? 'nothing was written' : `the other ${result.written} ${unit}(s) were written`
    const where = unit === 'item' ? { item: first === undefined || first.line === 0 ? null : first.line - 1 } : { line: first?.line ?? 0 }
    return {
      status: STATUS.rejected,
      desc: `${result.rejected} ${unit}(s) rejected, ${written}; first error: ${first?.message ?? 'unknown'}`,
      extra: { ...where, rejected: result.rejected, written: result.written, errors: result.errors },
    }
  },
}

/**
 * An error thrown while working through the input itself: a stack overflow on deeply nested or
 * extremely long input (V8's RangeError "Maximum call stack size exceeded"), or a string or
 * array too long to build. The input's fault: 400, never a 503 that agents retry forever.
 */
export function inputTooComplex(err: unknown): string | undefined {
  if (err instanceof RangeError) {
    const why = /call stack/i.test(err.message) ? 'input nested too deeply or too long to process' : 'input too large to process'
    return `${why}: ${err.message}`
  }
  return undefined
}

/**
 * A failed schemaless or remote write or read: undecodable or unstorable data 400, input too
 * deep 400, a body that would inflate past http.maxBodySize 413, a missing database 404, other
 * database errors 400, the gateway's own errors their status; 503 only for storage trouble
 * recognised as such (isStorageTrouble), anything else is our bug (500). `logged` says whether
 * the server's log needs it (the client only sees the status and text).
 */
function writeProblem(err: unknown, db: string): Problem & { logged?: true } {
  if (err instanceof RemoteDecodeError || err instanceof MetricsSchemaError) {
    return problems.badRequest(err.message)
  }
  if (err instanceof DecodedTooLarge) {
    return { status: STATUS.bodyTooLarge, desc: `${err.message}: the decoded request body exceeds http.maxBodySize (${err.limit} bytes)` }
  }
  if (err instanceof InputTooLarge) {
    return problems.bodyTooLarge(err.limit)
  }
  if (err instanceof TdError) {
    if (err.code === TD.MND_DB_NOT_EXIST) {
      return problems.dbMissing(db)
    }
    if (err.code === TD.MND_NO_RIGHTS) {
      return problems.forbidden(err.desc)
    }
    return problems.badRequest(`[0x${err.code.toString(16)}] ${err.desc}`)
  }
  if (err instanceof GatewayError) {
    return { status: err.status, desc: err.message }
  }
  const tooComplex = inputTooComplex(err)
  if (tooComplex !== undefined) {
    return problems.badRequest(tooComplex)
  }
  const detail = err instanceof Error ? err.message : String(err)
  if (isStorageTrouble(err)) {
    return { ...problems.storageUnavailable(`storage unavailable, retry later: ${detail}`), logged: true }
  }
  return { status: STATUS.internal, desc: `internal error: ${detail}`, logged: true }
}

/** writeProblem as `protocol`'s answer; storage trouble and internal errors are logged. */
export function writeFailed(protocol: Protocol, err: unknown, db: string, logger: Logger): Response {
  const problem = writeProblem(err, db)
  if (problem.logged === true) {
    logger.error({ err, db, status: problem.status }, 'schemaless write failed')
  }
  const { logged: _logged, ...answer } = problem
  return respond(protocol, answer)
}

/**
 * HTTP status of a database error (`TdError`) or generic adapter error (65535) on `/rest`.
 * With `httpCodeServerError=false` (the default) every such error is HTTP 200 with the code in
 * the body, which is what TDengine clients expect (`@tdengine/rest` only reads 200 bodies).
 * With `true`: taosAdapter's table (sql-dialect.md 8.1), everything else 500.
 */
export function statusForDbError(code: number, httpCodeServerError: boolean): 200 | 400 | 401 | 500 | 502 {
  if (!httpCodeServerError) {
    return 200
  }
  switch (code) {
    case 534: // TSC_SQL_SYNTAX_ERROR
    case 539: // TSC_LINE_SYNTAX_ERROR
    case 9728: // PAR_SYNTAX_ERROR
    case 1547: // TDB_TIMESTAMP_OUT_OF_RANGE
    case 548: // TSC_VALUE_OUT_OF_RANGE
    case 9787: // PAR_INVALID_FILL_TIME_RANGE
      return 400
    case 11: // RPC_NETWORK_UNAVAIL
      return 502
    default:
      // MND_USER_ALREADY_EXIST .. MND_AUTH_FAILURE (0x0350..0x0357)
      return code >= 848 && code <= 855 ? 401 : 500
  }
}

/**
 * A failed statement on /rest: storage down 503 (retry later), database errors (`TdError`) and
 * unexpected errors (65535 with their message) with the status of `httpCodeServerError`.
 */
export function sqlProblem(err: unknown, httpCodeServerError: boolean): Problem {
  const unavailable = storageUnavailableIn(err)
  if (unavailable) {
    // the database is down or the pool is exhausted: not the request's fault
    return problems.storageUnavailable(unavailable.message, TD_GENERIC)
  }
  if (err instanceof TdError) {
    return { status: statusForDbError(err.code, httpCodeServerError), code: err.code, desc: err.desc }
  }
  const message = err instanceof Error ? err.message : String(err)
  return { status: statusForDbError(TD_GENERIC, httpCodeServerError), code: TD_GENERIC, desc: message }
}

/** TDengine's error body, escaped as Go's encoding/json does (`<`, `>`, `&` as \u00XX). */
function tdengineBody(code: number, desc: string): string {
  const d = JSON.stringify(desc).replace(/[<>&]/g, (ch) => (ch === '<' ? '\\u003c' : ch === '>' ? '\\u003e' : '\\u0026'))
  return `{"code":${code},"desc":${d}}`
}

/** The body of `problem` as `protocol` writes it. */
export function problemBody(protocol: Protocol, problem: Problem): string {
  if (problem.bare === true) {
    return JSON.stringify(problem.desc)
  }
  switch (protocol) {
    case 'tdengine':
      return tdengineBody(problem.code ?? TD_GENERIC, problem.desc)
    case 'influxdb':
    case 'prometheus':
      return JSON.stringify({ code: problem.status, desc: problem.desc, error: problem.desc, ...problem.extra })
    case 'opentsdb':
      return JSON.stringify({ code: problem.status, message: problem.desc, desc: problem.desc, ...problem.extra })
    case 'gateway':
      return JSON.stringify({ code: problem.status, desc: problem.desc })
  }
}

/** `problem` as `protocol`'s answer. */
export function respond(protocol: Protocol, problem: Problem): Response {
  return new Response(problemBody(protocol, problem), {
    status: problem.status,
    headers: { 'Content-Type': JSON_TYPE, ...problem.headers },
  })
}
