import type { PoolClient } from 'pg'
import Cursor from 'pg-cursor'
import { abortError } from '../errors.js'
import type { QueryOptions, RowChunk } from '../types.js'
import { isConnectionError, noop, sqlState } from './connection-errors.js'
import type { Connections } from './connections.js'
import { pgTypes } from './type-parsers.js'

/** Closes the cursor (its portal on the server): false when that failed or took longer than `ms`. */
async function closeCursor(cursor: Cursor, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  try {
    return await Promise.race([
      cursor.close().then(
        () => true,
        () => false,
      ),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), ms)
      }),
    ])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Server-side cursor: at most `chunkRows` rows are in memory per chunk. On `tx`, the current
 * transaction's connection, when there is one; else on a connection borrowed and given back.
 * `closeTimeoutMs` bounds closing the cursor.
 */
export async function* streamCursor(
  connections: Connections,
  tx: PoolClient | undefined,
  sql: string,
  opts: QueryOptions | undefined,
  closeTimeoutMs: number,
): AsyncGenerator<RowChunk> {
  const size = Math.max(1, opts?.chunkRows ?? 4096)
  if (opts?.signal?.aborted) {
    // before borrowing a connection: nothing to run, nothing to give back
    throw abortError(opts.signal)
  }
  const c = tx ?? (await connections.acquire())
  let failure: unknown
  let stop = noop
  const cursor = c.query(new Cursor<unknown[]>(sql, undefined, { rowMode: 'array', types: pgTypes }))
  try {
    stop = connections.watchAbort(c, opts?.signal)
    for (;;) {
      if (opts?.signal?.aborted) {
        throw abortError(opts.signal)
      }
      let rows: unknown[][]
      try {
        rows = await cursor.read(size)
      } catch (err) {
        if (opts?.signal?.aborted && sqlState(err) === '57014') {
          throw abortError(opts.signal)
        }
        throw isConnectionError(err) ? connections.unavailable(err) : err
      }
      if (rows.length === 0) {
        break
      }
      yield rows
      if (rows.length < size) {
        break
      }
    }
  } catch (err) {
    failure = err
    throw err
  } finally {
    stop()
    // After a failure the connection's protocol state is unknown (closing the portal may wait
    // forever on a dead socket): discard it. A normal end or an early break closes the portal,
    // within a bound.
    if (failure === undefined && !(await closeCursor(cursor, closeTimeoutMs))) {
      failure = new Error('closing the cursor timed out')
    }
    if (!tx) {
      if (failure === undefined) {
        connections.release(c)
      } else {
        c.release(failure instanceof Error ? failure : true)
      }
    }
  }
}
