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
