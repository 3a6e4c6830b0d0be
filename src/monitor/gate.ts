/**
 * @module
 * Memory-protection state shared by every endpoint that the spec gates (see the spec's
 * "States and transitions"). The sampler that drives it arrives in its own issue; for now this is a
 * plain state holder so handlers and `/-/ping` can already read it.
 */

export type GateState = 'normal' | 'query-paused' | 'all-paused'

export class Gate {
  #state: GateState = 'normal'
  #draining = false

  get state(): GateState {
    return this.#state
  }

  set(state: GateState): void {
    this.#state = state
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
