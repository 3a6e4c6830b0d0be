/**
 * Long synchronous work (parsing a large body, appending many rows) gives the event loop a turn
 * every few milliseconds, so other requests, readiness probes among them, are not held up.
 */

/** Resolves after pending I/O callbacks (incoming requests among them) have run. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

/**
 * Work between yields is kept to about this long. A readiness probe that arrives meanwhile
 * waits for the rest of it, so it bounds probe latency (target p99 5 ms with the scheduler's
 * and the garbage collector's delays on top); a setImmediate turn costs a few microseconds,
 * nothing next to a millisecond of work.
 */
export const WORK_SLICE_MS = 1

/**
 * A clock for loops of many small synchronous steps (decoding parsed slices, say) that yields
 * only once a step finds the slice's time used up, instead of after every step.
 */
export class WorkSlice {
  private started = performance.now()

  constructor(private readonly budgetMs = WORK_SLICE_MS) {}

  /** Yields to the event loop when this slice's time is used up; then a new slice starts. */
  async pause(): Promise<void> {
    if (performance.now() - this.started < this.budgetMs) {
      return
    }
    await yieldToEventLoop()
    this.started = performance.now()
  }
}
