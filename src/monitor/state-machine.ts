/**
 * @module
 * The memory-protection state machine of the spec's "States and transitions" table, as one pure
 * function.
 *
 * Threshold semantics (decided here):
 * - "use exceeds T" is `use > T`, "use falls below T" is `use < T`, exactly as the spec words them
 *   (the original compared with `>=`; the spec wins). A sample EQUAL to a threshold therefore
 *   changes nothing: the state holds. That equality band is the only hysteresis: no extra band,
 *   because any band would move the spec's transition points.
 * - Thresholds are -1..100 percent (validated by the config loader). No value is special-cased:
 *   -1 (and 0) is always exceeded, so that pause is always on (what the original did with values
 *   <= 0); 100 is never exceeded, so 100 switches that pause off.
 * - When an all-paused adapter falls below the all threshold, the query threshold decides between
 *   query-paused and normal; a use exactly at the query threshold stays query-paused (it has not
 *   fallen below it).
 * - The all threshold is checked first, so a query threshold set above the all threshold cannot
 *   keep writes open.
 */
import type { GateState } from './gate.js'

export interface Thresholds {
  /** monitor.pauseQueryMemoryThreshold */
  query: number
  /** monitor.pauseAllMemoryThreshold */
  all: number
}

/** The state after one memory sample `use` (percent) taken in state `state`. */
export function nextGateState(state: GateState, use: number, t: Thresholds): GateState {
  if (Number.isNaN(use)) {
    return state // a failed sample changes nothing
  }
  if (use > t.all) {
    return 'all-paused'
  }
  switch (state) {
    case 'all-paused':
      if (use >= t.all) {
        return 'all-paused' // equal: has not fallen below
      }
      return use < t.query ? 'normal' : 'query-paused'
    case 'query-paused':
      return use < t.query ? 'normal' : 'query-paused'
    case 'normal':
      return use > t.query ? 'query-paused' : 'normal'
  }
}

/** Gauge value of a state: 0 normal, 1 query-paused, 2 all-paused. */
export function gateStateCode(state: GateState): number {
  return state === 'normal' ? 0 : state === 'query-paused' ? 1 : 2
}
