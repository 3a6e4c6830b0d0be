/**
 * @module
 * Body admission of the /rest routes that read one (/rest/sql, POST vgid), through the shared
 * middleware (src/http/middleware/body.ts), so nothing is read past its cap:
 *  - a declared Content-Length over http.maxBodySize answers 413 before anything is read;
 *  - a chunked (or gzip) body is counted as it arrives and refused the moment it passes the cap;
 *  - SQL also has TDengine's own limit (1 MiB, `SQL statement too long`, 0x0219) on top: a longer
 *    statement is refused the same way, declared or counted, with TDengine's error.
 * Refusals are TDengine bodies (`{"code":..,"desc":..}`).
 */
import type { MiddlewareHandler } from 'hono'
import { MAX_SQL_LENGTH, sqlTooLong, TD } from '../td-error.js'
import { problems, respond, sqlProblem } from '../http/error-table.js'
import { declaredSize, readBody } from '../http/middleware/body.js'
import type { BodyRefusal } from '../http/body-read.js'

function refused(r: BodyRefusal): Response {
  return respond('tdengine', { status: r.status, code: TD.GENERIC, desc: r.message })
}

function tooLarge(limit: number): Response {
  return respond('tdengine', { ...problems.bodyTooLarge(limit), code: TD.GENERIC })
}

/** The body of a /rest request under http.maxBodySize (`limit`, 0: no cap). */
export function restBody(limit: number): MiddlewareHandler[] {
  return [declaredSize(limit, tooLarge), readBody({ limit, refuse: refused })]
}

/**
 * The body of /rest/sql: under http.maxBodySize and under TDengine's statement limit, whichever
 * is smaller is the reading cap (16 concurrent 60 MB literals are refused after 1 MiB each).
 */
export function sqlBody(limit: number, httpCodeServerError: boolean): MiddlewareHandler[] {
  const statementLimitFirst = limit <= 0 || limit > MAX_SQL_LENGTH
  const cap = statementLimitFirst ? MAX_SQL_LENGTH : limit
  const tooLong = (): Response => respond('tdengine', sqlProblem(sqlTooLong(), httpCodeServerError))
  return [
    declaredSize(limit, tooLarge),
    declaredSize(MAX_SQL_LENGTH, tooLong),
    readBody({
      limit: cap,
      // past the cap while counting: the statement limit when it is the smaller one
      refuse: (r) => (r.status === 413 && statementLimitFirst ? tooLong() : refused(r)),
    }),
  ]
}
