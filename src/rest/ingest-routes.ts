/**
 * @module
 * The schemaless HTTP write endpoints as route modules for src/http/app.ts:
 * `/lineproto/v1/write` (src/rest/lineproto.ts) and `/tsdbproto/v1/put/{json,telnet}/{db}`
 * (src/rest/tsdbproto.ts), `/metricsproto/v1/remote_{write,read}/{db}` (src/rest/metricsproto.ts).
 * A disabled protocol (`lineproto.enable` / `tsdbproto.enable` / `metricsproto.enable` false)
 * registers no routes, so its paths answer the app's JSON 404.
 */
import type { Hono } from 'hono'
import { createSchemaless } from '../ingest/schemaless/schemaless.js'
import type { IngestDeps } from './ingest-deps.js'
import { createLineprotoRoutes } from './lineproto.js'
import { createMetricsprotoRoutes } from './metricsproto.js'
import { createTsdbprotoRoutes } from './tsdbproto.js'

/** A route module, where it is mounted and which memory gate stands in front of it. */
export interface IngestRoutes {
  prefix: string
  app: Hono
  /** write: refused while all-paused; query: also while query-paused (src/monitor/gate-middleware.ts) */
  gate: 'write' | 'query'
}

export function createIngestRoutes(deps: IngestDeps): IngestRoutes[] {
  const schemaless = deps.schemaless ?? createSchemaless(deps.storage, { autoCreateDb: deps.config.smlAutoCreateDB, ...deps.config.schemaless })
  const routes: IngestRoutes[] = []
  if (deps.config.lineproto.enable) {
    routes.push({ prefix: '/lineproto/v1', app: createLineprotoRoutes({ ...deps, schemaless }), gate: 'write' })
  }
  if (deps.config.tsdbproto.enable) {
    routes.push({ prefix: '/tsdbproto/v1', app: createTsdbprotoRoutes({ ...deps, schemaless }), gate: 'write' })
  }
  if (deps.config.metricsproto.enable) {
    const remote = createMetricsprotoRoutes(deps)
    routes.push({ prefix: '/metricsproto/v1', app: remote.write, gate: 'write' })
    routes.push({ prefix: '/metricsproto/v1', app: remote.read, gate: 'query' })
  }
  return routes
}
