/**
 * Long synchronous work (parsing a large body, appending many rows) gives the event loop a turn
 * every few milliseconds, so other requests, readiness probes among them, are not held up.
 */

/** Resolves after pending I/O callbacks (incoming requests among them) have run. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}
