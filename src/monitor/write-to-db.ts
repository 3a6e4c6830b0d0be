/**
 * @module
 * `monitor.writeToDB`: every `monitor.writeInterval`, the adapter's own `db_adapter_*` metrics go
 * into database `log` through the schemaless core (the same path line protocol takes), so they are
 * super tables with typed columns and one child table per label set.
 *
 * Layout: one super table per metric, named as the metric (`db_adapter_http_requests_total`,
 * `db_adapter_memory_percent`, `db_adapter_cpu_percent`, `db_adapter_gate_state`, ...). Tags: the
 * metric's labels (route template, method, status ...) plus `endpoint` = `monitor.identity`, or
 * `<hostname, at most 39 chars>:<port>` when empty. Counters and gauges have one DOUBLE column
 * `value`; histograms have `count` and `sum` (their buckets stay on /metrics).
 *
 * Differences from the original, on purpose: counters are written as their running totals (the
 * original decremented its request gauges after each write, so /metrics showed counts since the
 * last write only); `/metrics` stays a proper Prometheus counter. Errors (bad monitor credentials,
 * storage trouble) are logged and the next tick tries again; they never stop the adapter.
 */
import os from 'node:os'
import type { MetricObjectWithValues, MetricValue, Registry } from 'prom-client'
import { createSchemaless } from '../ingest/schemaless/schemaless.js'
import type { Schemaless } from '../ingest/types.js'
import type { Field, Point } from '../ingest/point.js'
import type { Logger } from '../logger.js'
import type { Storage } from '../sql/catalog/types.js'

export const MONITOR_DB = 'log'
const METRIC_PREFIX = 'db_adapter_'

export interface WriteToDbOptions {
  storage: Storage
  registry: Registry
  logger: Logger
  user: string
  password: string
  /** the `endpoint` tag */
  identity: string
  intervalMs: number
  now?: () => number
}

export interface MetricsWriter {
  start(): void
  stop(): void
  /** one write now; resolves with the points written (0 on a logged failure) */
  writeOnce(): Promise<number>
}

/** `monitor.identity`, or `hostname:port` with the hostname cut to 39 characters (as the original). */
export function monitorIdentity(identity: string, port: number, hostname: string = os.hostname()): string {
  return identity !== '' ? identity : `${hostname.slice(0, 39)}:${port}`
}

/** The registry's `db_adapter_*` metrics as points (pure apart from reading the registry). */
export async function metricsToPoints(registry: Registry, identity: string, ts: bigint): Promise<Point[]> {
  const metrics = (await registry.getMetricsAsJSON()) as Array<MetricObjectWithValues<MetricValue<string>>>
  const points: Point[] = []
  for (const m of metrics) {
    if (!m.name.startsWith(METRIC_PREFIX)) {
      continue
    }
    const type = String(m.type)
    if (type === 'histogram' || type === 'summary') {
      // one point per label set: count and sum (buckets/quantiles are not rows)
      const bySeries = new Map<string, { tags: Array<[string, string]>; count?: number; sum?: number }>()
      for (const v of m.values) {
        const metricName = (v as { metricName?: string }).metricName ?? m.name
        const isCount = metricName.endsWith('_count')
        const isSum = metricName.endsWith('_sum')
        if (!isCount && !isSum) {
          continue
        }
        const tags = tagsOf(v.labels, identity)
        const key = JSON.stringify(tags)
        const entry = bySeries.get(key) ?? { tags }
        entry[isCount ? 'count' : 'sum'] = v.value
        bySeries.set(key, entry)
      }
      for (const s of bySeries.values()) {
        const fields: Field[] = []
        if (s.count !== undefined) {
          fields.push({ name: 'count', type: 'DOUBLE', value: s.count })
        }
        if (s.sum !== undefined && Number.isFinite(s.sum)) {
          fields.push({ name: 'sum', type: 'DOUBLE', value: s.sum })
        }
        points.push({ measurement: m.name, tags: s.tags, fields, ts })
      }
      continue
    }
    for (const v of m.values) {
      if (!Number.isFinite(v.value)) {
        continue // NaN before the first sample
      }
      points.push({ measurement: m.name, tags: tagsOf(v.labels, identity), fields: [{ name: 'value', type: 'DOUBLE', value: v.value }], ts })
    }
  }
  return points
}

function tagsOf(labels: Partial<Record<string, string | number>>, identity: string): Array<[string, string]> {
  const tags: Array<[string, string]> = [['endpoint', identity]]
  for (const [k, v] of Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (v !== undefined && k !== 'endpoint') {
      tags.push([k, String(v)])
    }
  }
  return tags
}

export function createMetricsWriter(opts: WriteToDbOptions): MetricsWriter {
  const now = opts.now ?? Date.now
  // its own schemaless core: the monitor may create `log` (smlAutoCreateDB does not apply to it)
  const schemaless: Schemaless = createSchemaless(opts.storage, { autoCreateDb: true })
  let timer: NodeJS.Timeout | undefined
  let running: Promise<number> | undefined
  let lastError: string | undefined

  async function write(): Promise<number> {
    if (!(await opts.storage.catalog.verifyUser(opts.user, opts.password, 'monitor.writeToDB'))) {
      throw new Error(`monitor.user ${JSON.stringify(opts.user)}: authentication failed (check monitor.user / monitor.password)`)
    }
    const points = await metricsToPoints(opts.registry, opts.identity, BigInt(now()))
    if (points.length === 0) {
      return 0
    }
    const res = await schemaless.write(MONITOR_DB, points, { user: opts.user, precision: 'ms' })
    if (res.rejected > 0) {
      opts.logger.warn({ rejected: res.rejected, errors: res.errors.slice(0, 5) }, 'monitor.writeToDB: some metric rows were rejected')
    }
    return res.written
  }

  function writeOnce(): Promise<number> {
    // never two writes at once: a slow storage makes ticks skip, not pile up
    running ??= write()
      .then((n) => {
        if (lastError !== undefined) {
          opts.logger.info('monitor.writeToDB: writing metrics works again')
          lastError = undefined
        }
        return n
      })
      .catch((err: unknown) => {
        const msg = err instanceof Error ? err.message : String(err)
        // the same failure every tick is logged once, at error; it is only ever logged
        if (msg !== lastError) {
          opts.logger.error({ err }, 'monitor.writeToDB: writing metrics failed')
          lastError = msg
        }
        return 0
      })
      .finally(() => {
        running = undefined
      })
    return running
  }

  return {
    start(): void {
      timer ??= setInterval(() => {
        void writeOnce()
      }, opts.intervalMs)
      timer.unref()
    },
    stop(): void {
      if (timer) {
        clearInterval(timer)
        timer = undefined
      }
    },
    writeOnce,
  }
}
