/**
 * The events API's contract (../shared/spec/events-api.md): an event as the API shows it
 * (`EventDTO`), a page of them (`PageOfEventDTO`), what a list may filter on, and what a source
 * (the adapter's own health, Alertmanager) reports.
 */

export const EVENT_STATUSES = ['active', 'acknowledged', 'resolved'] as const
export type EventStatus = (typeof EVENT_STATUSES)[number]

export const EVENT_SEVERITIES = ['critical', 'warning', 'info'] as const
export type EventSeverity = (typeof EVENT_SEVERITIES)[number]

/** Where events come from; /metrics counts them by this. */
export type EventSource = 'health' | 'alertmanager'

/** One event; times are Unix milliseconds, null where the step did not happen. */
export interface EventDTO {
  id: string
  status: EventStatus
  severity: EventSeverity
  elementId: string
  source: string
  title: string
  message: string
  labels: Record<string, string>
  createdAt: number
  updatedAt: number
  acknowledgedAt: number | null
  acknowledgedBy: string | null
  resolvedAt: number | null
  resolvedBy: string | null
  /** how many times the same condition was seen again while the event was open */
  count: number
}

export interface PageOfEventDTO {
  total: number
  pageNum: number
  pageSize: number
  items: EventDTO[]
}

export interface EventFilter {
  /** creation time, Unix ms, inclusive */
  from?: number
  /** creation time, Unix ms, inclusive */
  to?: number
  status?: EventStatus
  severity?: EventSeverity
  elementId?: string
}

/** Page numbers start at 1. */
export interface PageRequest {
  pageNum: number
  pageSize: number
}

export const DEFAULT_PAGE_SIZE = 20
export const MAX_PAGE_SIZE = 1000

/**
 * A condition a source reports as open. `key` identifies the condition: while an event with it
 * is open (active or acknowledged), reporting it again counts instead of opening another.
 */
export interface RaisedCondition {
  key: string
  source: EventSource
  severity: EventSeverity
  elementId: string
  title: string
  message: string
  labels: Record<string, string>
}
