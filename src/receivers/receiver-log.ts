/**
 * @module
 * What every receiver counts and logs: the per-receiver counters on /metrics and an error log
 * that says each kind of trouble at most once per interval.
 */
import type { Counter, Registry } from 'prom-client'
import { Counter as PromCounter } from 'prom-client'
import type { Logger } from '../logger.js'

export interface ReceiverMetrics {
  /** datagrams, connections' lines or scrapes: accepted | malformed | dropped */
  packets: Counter<'receiver' | 'result'>
  /** points: written | rejected | dropped */
  points: Counter<'receiver' | 'result'>
  /** TCP receivers' connections: accepted | refused (over maxTCPConnections) | idle (timed out) */
  connections: Counter<'receiver' | 'result'>
}

export function createReceiverMetrics(registry: Registry): ReceiverMetrics {
  return {
    packets: new PromCounter({
      name: 'db_adapter_receiver_packets_total',
      help: 'Datagrams (or lines, scrapes) a receiver got, by result: accepted, malformed (could not be decoded, wholly or partly), dropped (memory gate or full queue)',
      labelNames: ['receiver', 'result'],
      registers: [registry],
    }),
    points: new PromCounter({
      name: 'db_adapter_receiver_points_total',
      help: 'Points a receiver decoded, by result: written, rejected (refused by the schema, e.g. a type conflict), dropped (memory gate, full queue, bad credentials, storage errors)',
      labelNames: ['receiver', 'result'],
      registers: [registry],
    }),
    connections: new PromCounter({
      name: 'db_adapter_receiver_connections_total',
      help: 'TCP connections a receiver got, by result: accepted, refused (closed at once: maxTCPConnections open), idle (closed after a silence)',
      labelNames: ['receiver', 'result'],
      registers: [registry],
    }),
  }
}

/** Logs a kind of error at most once per interval, with how many were held back meanwhile. */
export class ThrottledLog {
  readonly #last = new Map<string, { at: number; held: number }>()
  constructor(
    private readonly logger: Logger,
    private readonly intervalMs = 10_000,
  ) {}

  error(kind: string, fields: Record<string, unknown>, message: string): void {
    const now = Date.now()
    const seen = this.#last.get(kind)
    if (seen !== undefined && now - seen.at < this.intervalMs) {
      seen.held++
      return
    }
    this.#last.set(kind, { at: now, held: 0 })
    this.logger.error({ ...fields, ...(seen !== undefined && seen.held > 0 ? { suppressedSinceLast: seen.held } : {}) }, message)
  }
}
