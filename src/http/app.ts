/**
 * @module
 * The HTTP shell: global middleware in the original's order (request log + metrics, then gzip,
 * then CORS), health and metrics endpoints, the route modules, a JSON 404 and one error handler.
 * Route modules stay unaware of all of this; they arrive as plain Hono apps.
 */
import { Hono } from 'hono'
import type { AppConfig } from '../config/types.js'
import type { Logger } from '../logger.js'
import type { Gate } from '../monitor/gate.js'
import { createHealthRoutes } from '../monitor/health.js'
import { createMetricsRoutes } from '../monitor/metrics.js'
import type { HttpMetrics } from '../monitor/metrics.js'
import { createErrorHandler, notFoundHandler } from './errors.js'
import { accessLog } from './middleware/access-log.js'
import { cors } from './middleware/cors.js'
import { gunzip } from './middleware/gunzip.js'
import { gzip } from './middleware/gzip.js'
import { httpMetrics } from './middleware/http-metrics.js'
import { requestId } from './middleware/request-id.js'
import './context.js'

export interface MountedRoutes {
  /** mount point, e.g. `/influxdb/v1` (use `/` for modules that carry full paths) */
  prefix: string
  app: Hono
}

export interface AppDeps {
  config: AppConfig
  logger: Logger
  metrics: HttpMetrics
  gate: Gate
  /** `/rest/*` routes (src/rest/routes.ts), mounted at `/rest` */
  rest?: Hono
  /** further route modules (ingest protocols ...), mounted in order */
  routes?: MountedRoutes[]
  /** storage readiness for `/-/ping?action=query` (Storage.healthy) */
  storageHealthy?: () => Promise<boolean>
  /** the backend's fatal error for `/-/live` (Engine.fatalError) */
  storageFatal?: () => Promise<string | undefined>
}

export function createApp({ config, logger, metrics, gate, rest, routes = [], storageHealthy, storageFatal }: AppDeps): Hono {
  const app = new Hono()

  app.use(requestId())
  app.use(accessLog({ logger }))
  app.use(httpMetrics({ metrics }))
  // One compression layer for every response, /metrics included: prom-client does not compress by
  // itself, so nothing is compressed twice (the original could double-gzip /metrics).
  app.use(gzip())
  app.use(cors(config.cors))
  app.use(gunzip({ maxBodySize: config.http.maxBodySize }))

  app.route('/', createHealthRoutes({ gate, ...(storageHealthy ? { storageHealthy } : {}), ...(storageFatal ? { storageFatal } : {}) }))
  app.route('/', createMetricsRoutes({ metrics }))
  if (rest) {
    app.route('/rest', rest)
  }
  for (const mounted of routes) {
    app.route(mounted.prefix, mounted.app)
  }

  app.notFound(notFoundHandler())
  app.onError(createErrorHandler(logger))
  return app
}
