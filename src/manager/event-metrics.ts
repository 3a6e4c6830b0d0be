/**
 * @module
 * The management server's counters on the adapter's /metrics: events opened and resolved, by
 * source (health, alertmanager). A resolve through the API counts under the event's source.
 */
import { Counter } from 'prom-client'
import type { Registry } from 'prom-client'

export interface EventMetrics {
  opened: Counter<'source'>
  resolved: Counter<'source'>
}

export function createEventMetrics(registry: Registry): EventMetrics {
  return {
    opened: new Counter({
      name: 'db_adapter_events_opened_total',
      help: 'events the management server opened, by source: health (the adapter itself) or alertmanager',
      labelNames: ['source'],
      registers: [registry],
    }),
    resolved: new Counter({
      name: 'db_adapter_events_resolved_total',
      help: 'events resolved, by the source of the event (by the source itself or by a user through the API)',
      labelNames: ['source'],
      registers: [registry],
    }),
  }
}
