/**
 * @module
 * Prometheus metrics of the HTTP server: one private registry (never prom-client's global one, so
 * tests and several adapters in one process do not collide), process metrics, and the HTTP family
 * declared here beside the middleware that bumps it (`src/http/middleware/http-metrics.ts`).
 */
import { isIP } from 'node:net'
import { Hono } from 'hono'
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import type { Metric, OpenMetricsContentType } from 'prom-client'

export type HttpLabel = 'method' | 'route' | 'status'

export interface HttpMetrics {
  registry: Registry
  requests: Counter<HttpLabel>
  duration: Histogram<HttpLabel>
  inFlight: Gauge
  /** requests by client address; absent when client IPs are not collected */
  byClient?: ClientIpCounter
}

/** Route label of requests that matched no route, so raw URLs never become label values. */
export const UNMATCHED_ROUTE = 'unmatched'

const PROMETHEUS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE
const OPENMETRICS_CONTENT_TYPE = Registry.OPENMETRICS_CONTENT_TYPE

export interface MetricsOptions {
  /** collect process_* and nodejs_* metrics (default true) */
  processMetrics?: boolean
  /**
   * count requests by client IP in a metric of its own (lifecycle: unless
   * monitor.disableCollectClientIP); default false
   */
  clientIp?: boolean
  /** distinct client IPs given a series of their own; later ones count as "other" (default 100) */
  maxClientIps?: number
}

/** `client_ip` of requests past the distinct-address bound. */
const OTHER_CLIENTS = 'other'
/** `client_ip` of requests without a usable address (none known, or not an IP). */
const UNKNOWN_CLIENT = 'unknown'

/**
 * `db_adapter_http_requests_by_client_total{client_ip}`: a separate metric, so the client address
 * never multiplies the route/status series. Cardinality is bounded: the first `max` distinct
 * addresses get a series each, any later one counts under `client_ip="other"`. The address comes
 * from X-Forwarded-For / X-Real-IP when sent (as in the access log), so values that are not an IP
 * count as "unknown" rather than becoming label text.
 */
export class ClientIpCounter {
  readonly #seen = new Set<string>()
  constructor(
    readonly counter: Counter<'client_ip'>,
    readonly max: number,
  ) {}

  inc(ip: string): void {
    this.counter.inc({ client_ip: this.label(ip) })
  }

  label(ip: string): string {
    if (isIP(ip) === 0) {
      return UNKNOWN_CLIENT
    }
    if (this.#seen.has(ip)) {
      return ip
    }
    if (this.#seen.size >= this.max) {
      return OTHER_CLIENTS
    }
    this.#seen.add(ip)
    return ip
  }
}

export function createHttpMetrics({ processMetrics = true, clientIp = false, maxClientIps = 100 }: MetricsOptions = {}): HttpMetrics {
  const registry = new Registry()
  if (processMetrics) {
    collectDefaultMetrics({ register: registry })
  }
  const labelNames: HttpLabel[] = ['method', 'route', 'status']
  const requests = new Counter<HttpLabel>({
    name: 'db_adapter_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status',
    labelNames,
    registers: [registry],
  })
  const duration = new Histogram<HttpLabel>({
    name: 'db_adapter_http_request_duration_seconds',
    help: 'HTTP request latency in seconds, by method, route template and status',
    labelNames,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  })
  const inFlight = new Gauge({
    name: 'db_adapter_http_requests_in_flight',
    help: 'HTTP requests being processed',
    registers: [registry],
  })
  const byClient = clientIp
    ? new ClientIpCounter(
        new Counter({
          name: 'db_adapter_http_requests_by_client_total',
          help: `HTTP requests answered, by client IP (X-Forwarded-For, X-Real-IP, else the peer); at most ${maxClientIps} addresses, later ones under client_ip="${OTHER_CLIENTS}"`,
          labelNames: ['client_ip'],
          registers: [registry],
        }),
        maxClientIps,
      )
    : undefined
  return { registry, requests, duration, inFlight, ...(byClient ? { byClient } : {}) }
}

export interface BuildInfo {
  /** the adapter's version (package.json) */
  version: string
  /** the storage engine: duckdb or postgres */
  storage: string
}

/**
 * `db_adapter_build_info{version,node,storage} 1`: which release, on which Node.js, over which
 * engine each pod runs, for dashboards and for alerts that join on it during rollouts.
 */
export function createBuildInfo(registry: Registry, info: BuildInfo): Gauge<'version' | 'node' | 'storage'> {
  const gauge = new Gauge<'version' | 'node' | 'storage'>({
    name: 'db_adapter_build_info',
    help: 'always 1; the labels say the adapter version, the Node.js version and the storage engine',
    labelNames: ['version', 'node', 'storage'],
    registers: [registry],
  })
  gauge.set({ version: info.version, node: process.versions.node, storage: info.storage }, 1)
  return gauge
}

/** True when the Accept header asks for OpenMetrics (any version, any q > 0). */
export function wantsOpenMetrics(accept: string | undefined): boolean {
  if (!accept) {
    return false
  }
  return accept.split(',').some((part) => {
    const [type, ...params] = part.split(';').map((s) => s.trim().toLowerCase())
    if (type !== 'application/openmetrics-text') {
      return false
    }
    const q = params.find((p) => p.startsWith('q='))
    return q === undefined || Number(q.slice(2)) > 0
  })
}

/**
 * Renders the registry. OpenMetrics is rendered through a throw-away registry of thin views:
 * prom-client's OpenMetrics mode renames counters in place (strips `_total`), which would corrupt
 * later Prometheus-format scrapes of the shared metric objects.
 */
export async function renderMetrics(
  registry: Registry,
  openMetrics: boolean,
): Promise<{ contentType: string; body: string }> {
  if (!openMetrics) {
    return { contentType: PROMETHEUS_CONTENT_TYPE, body: await registry.metrics() }
  }
  const view = new Registry<OpenMetricsContentType>()
  view.setContentType(OPENMETRICS_CONTENT_TYPE)
  for (const metric of registry.getMetricsAsArray()) {
    view.registerMetric(metricView(metric as unknown as MetricLike))
  }
  return { contentType: OPENMETRICS_CONTENT_TYPE, body: await view.metrics() }
}

interface MetricLike {
  name: string
  type: string
  get(): Promise<{ name: string }>
}

function metricView(source: MetricLike): Metric {
  const view = {
    name: source.name,
    // the view registry decides OpenMetrics counter naming by `type`
    type: source.type,
    async get() {
      const data = await source.get()
      // the view's (possibly standardised) name wins over the source object's own name
      return { ...data, name: view.name }
    },
  }
  return view as unknown as Metric
}

export interface MetricsRouteDeps {
  metrics: HttpMetrics
}

/** `GET /metrics`: Prometheus text 0.0.4, or OpenMetrics 1.0.0 when the Accept header asks. */
export function createMetricsRoutes({ metrics }: MetricsRouteDeps): Hono {
  const app = new Hono()
  app.get('/metrics', async function metricsHandler(c) {
    const { contentType, body } = await renderMetrics(
      metrics.registry,
      wantsOpenMetrics(c.req.header('Accept')),
    )
    return c.body(body, 200, { 'Content-Type': contentType })
  })
  return app
}
