/**
 * @module
 * What the schemaless write routes (lineproto.ts, tsdbproto.ts, metricsproto.ts) are built from;
 * src/lifecycle.ts provides it through createIngestRoutes (ingest-routes.ts).
 */
import type { AppConfig } from '../config/types.js'
import type { LineProtoWorkers } from '../ingest/lineproto/worker-pool.js'
import type { Schemaless } from '../ingest/types.js'
import type { LoginGuard } from '../http/auth/login-guard.js'
import type { Logger } from '../logger.js'
import type { IngestMetrics } from '../monitor/ingest-metrics.js'
import type { Storage } from '../sql/catalog/types.js'

export interface IngestDeps {
  config: AppConfig
  storage: Storage
  logger: Logger
  /** optional: the process's one login guard, shared by /rest and the write routes (one per module without it) */
  logins?: LoginGuard
  /** optional: share one schemaless core with other ingestion paths (built from config when absent) */
  schemaless?: Schemaless
  /** optional: rows written and rejected by protocol on /metrics */
  metrics?: IngestMetrics
  /** optional: line-protocol bodies are parsed on these worker threads (else on the main thread) */
  lineprotoWorkers?: LineProtoWorkers
}
