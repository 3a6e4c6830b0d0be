/**
 * @module
 * Prometheus Alertmanager's webhook (payload version 4) as events: a firing alert opens, or
 * counts again, the event keyed by its fingerprint; a resolved alert resolves it. The mapping:
 * severity from the `severity` label, elementId from `instance` (else `job`), title from
 * `alertname`, message from the `summary` and `description` annotations, labels as they are.
 */
import type { EventStore } from './event-store.js'
import type { EventMetrics } from './event-metrics.js'
import type { EventSeverity, RaisedCondition } from './event-types.js'

export class BadPayload extends Error {
  constructor(readonly field: string, message: string) {
    super(message)
    this.name = 'BadPayload'
  }
}

export interface AlertsResult {
  received: number
  opened: number
  updated: number
  resolved: number
}

interface Alert {
  status: 'firing' | 'resolved'
  fingerprint: string
  labels: Record<string, string>
  annotations: Record<string, string>
}

/** Alerts in one payload; Alertmanager sends a group's alerts together (max_alerts caps it). */
const MAX_ALERTS = 10_000
const MAX_LABELS = 128
const MAX_TEXT = 16_384

/** The condition key of an alert: its fingerprint, under the source's own prefix. */
export const ALERT_KEY_PREFIX = 'alertmanager:'

/** Text that storage takes as it is: no NUL (PostgreSQL refuses it), no lone surrogate, bounded. */
function clean(s: string, max = MAX_TEXT): string {
  const wellFormed = Buffer.from(s.replaceAll('\u0000', ''), 'utf8').toString('utf8')
  return wellFormed.length > max ? `${wellFormed.slice(0, max - 1)}…` : wellFormed
}

function stringMap(v: unknown, field: string, required: boolean): Record<string, string> {
  if (v === undefined && !required) {
    return {}
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw new BadPayload(field, `${field} must be an object of strings`)
  }
  const entries = Object.entries(v)
  if (entries.length > MAX_LABELS) {
    throw new BadPayload(field, `${field} has ${entries.length} entries, at most ${MAX_LABELS} are accepted`)
  }
  const out: Record<string, string> = {}
  for (const [k, val] of entries) {
    if (typeof val !== 'string') {
      throw new BadPayload(`${field}.${k}`, `${field}.${k} must be a string`)
    }
    out[clean(k, 256)] = clean(val)
  }
  return out
}

/** Checks a parsed body is a version 4 payload; the error names the field. */
export function parseWebhook(body: unknown): Alert[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new BadPayload('body', 'the body must be a JSON object (Alertmanager webhook payload)')
  }
  const b = body as Record<string, unknown>
  if (b.version !== '4') {
    throw new BadPayload('version', `version must be "4" (Alertmanager's webhook payload), got ${JSON.stringify(b.version ?? null)}`)
  }
  if (!Array.isArray(b.alerts)) {
    throw new BadPayload('alerts', 'alerts must be an array')
  }
  if (b.alerts.length > MAX_ALERTS) {
    throw new BadPayload('alerts', `alerts has ${b.alerts.length} items, at most ${MAX_ALERTS} are accepted`)
  }
  return b.alerts.map((a: unknown, i): Alert => {
    const at = `alerts[${i}]`
    if (typeof a !== 'object' || a === null || Array.isArray(a)) {
      throw new BadPayload(at, `${at} must be an object`)
    }
    const alert = a as Record<string, unknown>
    if (alert.status !== 'firing' && alert.status !== 'resolved') {
      throw new BadPayload(`${at}.status`, `${at}.status must be "firing" or "resolved"`)
    }
    if (typeof alert.fingerprint !== 'string' || alert.fingerprint === '' || alert.fingerprint.length > 256) {
      throw new BadPayload(`${at}.fingerprint`, `${at}.fingerprint must be a non-empty string (at most 256 characters)`)
    }
    return {
      status: alert.status,
      fingerprint: clean(alert.fingerprint, 256),
      labels: stringMap(alert.labels, `${at}.labels`, true),
      annotations: stringMap(alert.annotations, `${at}.annotations`, false),
    }
  })
}

/** Alertmanager has no fixed severities: the usual words map onto the API's three. */
export function severityOf(label: string | undefined): EventSeverity {
  switch ((label ?? '').toLowerCase()) {
    case 'critical':
    case 'error':
    case 'page':
    case 'high':
    case 'emergency':
      return 'critical'
    case 'info':
    case 'informational':
    case 'low':
    case 'none':
      return 'info'
    default:
      return 'warning'
  }
}

export function alertCondition(a: Alert): RaisedCondition {
  const { summary, description } = a.annotations
  const message = [summary, description].filter((t) => t !== undefined && t !== '').join('\n')
  return {
    key: `${ALERT_KEY_PREFIX}${a.fingerprint}`,
    source: 'alertmanager',
    severity: severityOf(a.labels.severity),
    elementId: a.labels.instance ?? a.labels.job ?? 'alertmanager',
    title: a.labels.alertname ?? `alert ${a.fingerprint}`,
    message,
    labels: a.labels,
  }
}

/** Applies a payload's alerts in order. */
export async function applyAlerts(store: EventStore, metrics: EventMetrics, alerts: Alert[]): Promise<AlertsResult> {
  const result: AlertsResult = { received: alerts.length, opened: 0, updated: 0, resolved: 0 }
  for (const a of alerts) {
    if (a.status === 'firing') {
      const { opened } = await store.raise(alertCondition(a))
      if (opened) {
        result.opened++
        metrics.opened.inc({ source: 'alertmanager' })
      } else {
        result.updated++
      }
    } else if ((await store.resolveCondition(`${ALERT_KEY_PREFIX}${a.fingerprint}`, 'alertmanager')) !== undefined) {
      result.resolved++
      metrics.resolved.inc({ source: 'alertmanager' })
    }
  }
  return result
}
