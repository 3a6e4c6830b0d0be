/**
 * @module
 * One signal per /rest/sql statement that stops its backend query (DuckDB interrupt, PostgreSQL
 * cancel) when the client goes away or `rest.queryTimeout` passes. The reason is the TDengine
 * error the statement then fails with, so the engines need not know why they were stopped.
 */
import { formatDuration } from '../config/values.js'
import { TD, TdError } from '../td-error.js'

export interface QueryDeadline {
  /** aborted on timeout or client disconnect; its reason is a TdError */
  readonly signal: AbortSignal
  /** true once the timeout fired (not a client disconnect) */
  timedOut(): boolean
  /** stops the timer and detaches from the client's signal; call when the answer is complete */
  done(): void
  /** stops the query now with `reason` (the memory gate's all-paused) */
  cancel(reason: Error): void
}

export function queryDeadline(client: AbortSignal | undefined, timeoutMs: number): QueryDeadline {
  const controller = new AbortController()
  let timedOut = false
  const onClientGone = (): void => {
    controller.abort(new TdError(TD.TSC_QUERY_KILLED, 'Query killed: the client closed the connection'))
  }
  if (client?.aborted === true) {
    onClientGone()
  } else {
    client?.addEventListener('abort', onClientGone, { once: true })
  }
  const timer =
    timeoutMs > 0
      ? setTimeout(() => {
          timedOut = true
          controller.abort(new TdError(TD.TSC_QUERY_KILLED, `Query killed: it ran longer than rest.queryTimeout (${formatDuration(timeoutMs)})`))
        }, timeoutMs)
      : undefined
  // a pending timeout alone must not keep a stopping process alive
  timer?.unref()
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    done() {
      clearTimeout(timer)
      client?.removeEventListener('abort', onClientGone)
    },
    cancel(reason) {
      controller.abort(reason)
    },
  }
}
