/**
 * @module
 * Work-budget admission as middleware (src/monitor/work-budget.ts): a request reserves what it
 * will hold in memory before its body is read, waits at most monitor.workWait for room, and is
 * otherwise refused with 503 and Retry-After. The reservation is released when the handler is
 * done; a streamed query result reserves its own share (src/rest/sql-handler.ts).
 */
import type { Context, MiddlewareHandler } from 'hono'
import type { WorkBudget } from '../../monitor/work-budget.js'
import { problems, respond, type Protocol } from '../error-table.js'

export interface WorkAdmission {
  budget: WorkBudget
  /** monitor.workWait, ms */
  waitMs: number
  /** http.maxBodySize: what a body of undeclared length may reach */
  maxBodySize: number
  /** counts refusals by route class */
  refused?: (kind: string) => void
}

/**
 * Memory a body of `declared` bytes costs while parsed (decoded rows, strings, queued batches):
 * measured at 3-5 times the wire size for line protocol. Undeclared (chunked) bodies are counted
 * as 1 MiB, what agents send: a body may grow past its estimate, but never past maxBodySize.
 */
const PARSE_FACTOR = 4
const UNDECLARED_BYTES = 2 ** 20

export function bodyCost(c: Context, maxBodySize: number): number {
  const header = c.req.header('content-length')
  const declared = header === undefined ? NaN : Number(header)
  // a body over the cap is refused by the route before it is read: it never costs more than the cap
  const cap = maxBodySize > 0 ? maxBodySize : Infinity
  const bytes = Math.min(cap, Number.isFinite(declared) && declared >= 0 ? declared : UNDECLARED_BYTES)
  // gzip bodies inflate before parsing
  const inflate = c.req.header('content-encoding')?.toLowerCase().includes('gzip') === true ? 8 : 1
  return bytes * inflate * PARSE_FACTOR
}

const RESERVED = new WeakSet<Request>()

export function reserveWork(work: WorkAdmission, kind: string, format: Protocol, extra = 0): MiddlewareHandler {
  return async function reserveWork(c, next) {
    // modules mounted on one prefix (remote write and read) each run their middleware: the body
    // is counted once, a query's share by the module that serves queries
    const cost = (RESERVED.has(c.req.raw) ? 0 : bodyCost(c, work.maxBodySize)) + extra
    RESERVED.add(c.req.raw)
    if (cost === 0) {
      await next()
      return
    }
    const started = Date.now()
    const held = await work.budget.reserve(cost, { waitMs: work.waitMs, signal: c.req.raw.signal })
    if (held === undefined) {
      work.refused?.(kind)
      return respond(format, problems.busy(Date.now() - started))
    }
    try {
      await next()
    } finally {
      // the body is parsed and written by now; a streamed query result holds its own reservation
      held.release()
    }
  }
}
