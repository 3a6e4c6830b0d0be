/**
 * The storage backend cannot serve the request right now: the database is down or unreachable,
 * or no pooled connection became free within the acquire bound. Not a fault of the request:
 * the REST layer answers 503 with this message, and retrying later can succeed.
 */
export class StorageUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'StorageUnavailableError'
  }
}

export function isStorageUnavailable(err: unknown): err is StorageUnavailableError {
  return err instanceof StorageUnavailableError
}

/** The StorageUnavailableError behind `err` (itself or a `cause`, e.g. wrapped as "Query failed"). */
export function storageUnavailableIn(err: unknown): StorageUnavailableError | undefined {
  let e: unknown = err
  for (let depth = 0; e instanceof Error && depth < 5; depth++) {
    if (isStorageUnavailable(e)) {
      return e
    }
    e = (e as Error).cause
  }
  return undefined
}

/** The error a statement stopped by its abort signal fails with: the signal's reason when it is one. */
export function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('query aborted')
}

/** DuckDB's error types that mean the database cannot do the work now (not that the request is wrong). */
const DUCKDB_TROUBLE = /^(IO|Out of Memory|Connection|Fatal|FATAL|Transaction|TransactionContext) Error:|(failed to|could not) (allocate|pin) .*\(\S+ \S+\/\S+ \S+ used\)|database has been invalidated/
/** SQLSTATE classes of the same for PostgreSQL: connection, rollback (serialization, deadlock), resources, operator intervention, system. */
const PG_TROUBLE = /^(08|40|53|57|58)[0-9A-Z]{3}$/
/** query_canceled: a statement stopped on purpose (timeout, client gone), not an outage */
const PG_CANCELED = '57014'
/** Node's errors of a backend connection going away. */
const NET_TROUBLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'EAI_AGAIN', 'ENOSPC', 'EIO'])

/**
 * Whether `err` (or a cause of it) is storage trouble that retrying later can fix, recognised
 * positively: StorageUnavailableError, a DuckDB I/O, memory, connection or transaction-conflict
 * error, a PostgreSQL error of those SQLSTATE classes, a connection or disk errno. Anything
 * else is the request's fault or the adapter's bug, never a 503.
 */
export function isStorageTrouble(err: unknown): boolean {
  if (storageUnavailableIn(err) !== undefined) {
    return true
  }
  let e: unknown = err
  for (let depth = 0; e instanceof Error && depth < 5; depth++) {
    if (DUCKDB_TROUBLE.test(e.message)) {
      return true
    }
    const code = (e as { code?: unknown }).code
    if (typeof code === 'string' && code !== PG_CANCELED && (PG_TROUBLE.test(code) || NET_TROUBLE.has(code))) {
      return true
    }
    e = e.cause
  }
  return false
}

/** DuckDB refuses all work after a fatal error until the database is opened again. */
export function isDatabaseInvalidated(err: unknown): boolean {
  return err instanceof Error && /database has been invalidated/.test(err.message)
}
