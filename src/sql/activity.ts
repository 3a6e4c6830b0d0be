import { TD, TdError } from '../td-error.js'
import type { SqlContext } from './result.js'

/**
 * What performance_schema shows: the connections that ran SQL here and are still open, and the
 * statements running now (a streamed query runs until its last row is sent). One per executor,
 * so each server of a process keeps its own.
 */

export interface ConnectionRow {
  id: number
  user: string
  app: string
  endpoint: string
  loginMs: number
  lastMs: number
}

export interface QueryRow {
  /** `KILL QUERY` id: `<conn_id>:<query_id>` */
  killId: string
  id: number
  connId: number
  user: string
  app: string
  endpoint: string
  startMs: number
  /** performance.now() at the start, for exec_usec */
  startHr: number
  sql: string
  stopped: boolean
  abort: AbortController
}

/** Ends a query's entry; calling it again does nothing. */
export type QueryEnd = () => void

export class SqlActivity {
  private readonly conns = new Map<number, ConnectionRow>()
  private readonly running = new Map<number, QueryRow>()
  private nextQuery = 1
  /** statements of callers that name no connection (internal callers, tests) share id 0 */
  private readonly anonymous = 0

  connections(): ConnectionRow[] {
    return [...this.conns.values()]
  }

  queries(): QueryRow[] {
    return [...this.running.values()]
  }

  /**
   * Registers a statement of `ctx` and returns the context it runs with (its signal also fires on
   * KILL QUERY) and the function that ends its entry.
   */
  begin(sql: string, ctx: SqlContext): { ctx: SqlContext; end: QueryEnd } {
    const now = Date.now()
    const client = ctx.client
    const connId = client?.connId ?? this.anonymous
    if (client !== undefined) {
      const known = this.conns.get(connId)
      if (known === undefined) {
        this.conns.set(connId, { id: connId, user: ctx.user, app: client.app ?? '', endpoint: client.endpoint, loginMs: now, lastMs: now })
        client.onClose?.(() => this.conns.delete(connId))
      } else {
        known.lastMs = now
        known.user = ctx.user
        known.app = client.app ?? known.app
      }
    }
    const id = this.nextQuery++
    const abort = new AbortController()
    const outer = ctx.signal
    const relay = (): void => abort.abort(outer?.reason)
    if (outer?.aborted === true) {
      relay()
    } else {
      outer?.addEventListener('abort', relay, { once: true })
    }
    const row: QueryRow = {
      killId: `${connId}:${id}`,
      id,
      connId,
      user: ctx.user,
      app: client?.app ?? '',
      endpoint: client?.endpoint ?? '',
      startMs: now,
      startHr: performance.now(),
      sql,
      stopped: false,
      abort,
    }
    this.running.set(id, row)
    const end = (): void => {
      if (this.running.delete(id)) {
        outer?.removeEventListener('abort', relay)
      }
    }
    // an aborted statement whose result is never read still leaves the list
    abort.signal.addEventListener('abort', end, { once: true })
    return { ctx: { ...ctx, signal: abort.signal }, end }
  }

  /** KILL QUERY: aborts the statement (its owner or a super user only; the caller checks) */
  kill(killId: string): QueryRow {
    const row = [...this.running.values()].find((q) => q.killId === killId)
    if (row === undefined) {
      throw new TdError(TD.MND_INVALID_QUERY_ID, 'Invalid query id')
    }
    row.stopped = true
    row.abort.abort(new TdError(TD.TSC_QUERY_KILLED, 'Query killed'))
    return row
  }
}
