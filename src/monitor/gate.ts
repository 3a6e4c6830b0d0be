/**
 * @module
 * Memory-protection state shared by every endpoint that the spec gates (see the spec's
 * "States and transitions"). A plain state holder: src/monitor/sampler.ts drives it through
 * src/monitor/state-machine.ts; handlers, src/monitor/gate-middleware.ts and `/-/ping` read it.
 */

export type GateState = 'normal' | 'query-paused' | 'all-paused'

export class Gate {
  #state: GateState = 'normal'
  #draining = false
  readonly #onPause: Array<(state: GateState) => void> = []

  get state(): GateState {
    return this.#state
  }

  set(state: GateState): void {
    const before = this.#state
    this.#state = state
    // entering a pause, or a stricter one: what holds memory gets the chance to give it back
    if (state !== before && state !== 'normal' && before !== 'all-paused') {
      for (const fn of this.#onPause) {
        fn(state)
      }
    }
  }

  /** `fn` runs each time the gate enters query-paused or all-paused (not while it stays there) */
  onPause(fn: (state: GateState) => void): void {
    this.#onPause.push(fn)
  }

  /** Queries are refused when either the query pause or the full pause is on (the spec's rule). */
  queryPaused(): boolean {
    return this.#state !== 'normal'
  }

  allPaused(): boolean {
    return this.#state === 'all-paused'
  }

  /**
   * True once shutdown has begun: readiness (`/-/ping`) reports 503 so load balancers stop sending
   * work while in-flight requests finish. Liveness (`/-/live`) ignores it.
   */
  get draining(): boolean {
    return this.#draining
  }

  startDraining(): void {
    this.#draining = true
  }
}
