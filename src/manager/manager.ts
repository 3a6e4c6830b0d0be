/**
 * @module
 * The management server's parts, put together: the events store in the backend, the HTTP app,
 * the adapter's health as events and the purge of old resolved events. src/lifecycle.ts listens
 * on manager.port with it and drains it with the adapter's own server.
 */
import type { Hono } from 'hono'
import type { Registry } from 'prom-client'
import type { AppConfig } from '../config/types.js'
import type { LoginGuard } from '../http/auth/login-guard.js'
import type { Logger } from '../logger.js'
import type { Gate } from '../monitor/gate.js'
import type { Engine } from '../storage/types.js'
import { createEventMetrics } from './event-metrics.js'
import { EventStore } from './event-store.js'
import { HealthEvents, type HealthProbes } from './health-events.js'
import { createManagerRoutes } from './routes.js'

/** How often resolved events past manager.eventRetention are purged. */
const PURGE_EVERY_MS = 3_600_000

export interface ManagerDeps {
  config: AppConfig
  engine: Engine
  logins: LoginGuard
  gate: Gate
  logger: Logger
  registry: Registry
  /** what the health events read besides the gate */
  probes: Omit<HealthProbes, 'gateState'>
  /** the adapter's identity: monitor.identity, else hostname:port */
  elementId: string
}

export interface Manager {
  app: Hono
  store: EventStore
  health: HealthEvents
  /** creates the events table (when storage answers), starts the health checks and the purge, in the background */
  start(): void
  /** stops the checks (a running one finishes); storage is closed by the caller afterwards */
  stop(): Promise<void>
  /** deletes resolved events resolved more than manager.eventRetention ago; returns how many */
  purge(): Promise<number>
}

export function createManager(deps: ManagerDeps): Manager {
  const { config, logger } = deps
  const log = logger.child({ component: 'manager' })
  const store = new EventStore(deps.engine)
  const metrics = createEventMetrics(deps.registry)
  const app = createManagerRoutes({ store, logins: deps.logins, metrics, gate: deps.gate, logger: log, maxBodySize: config.http.maxBodySize })
  const health = new HealthEvents({
    store,
    metrics,
    logger: log,
    probes: { ...deps.probes, gateState: () => deps.gate.state },
    elementId: deps.elementId,
    intervalMs: config.manager.healthInterval,
    cpuThreshold: config.manager.cpuThreshold,
    cpuDurationMs: config.manager.cpuDuration,
  })
  // a pause is recorded when it happens, not at the next periodic check
  deps.gate.onPause(() => void health.check())
  let purging: NodeJS.Timeout | undefined

  const purge = async (): Promise<number> => {
    const n = await store.purge(Date.now() - config.manager.eventRetention)
    if (n > 0) {
      log.info({ events: n, retentionMs: config.manager.eventRetention }, 'resolved events past manager.eventRetention purged')
    }
    return n
  }
  const purgeQuietly = (): void => {
    purge().catch((err: unknown) => log.warn({ err }, 'purging old events failed (tried again later)'))
  }

  return {
    app,
    store,
    health,
    start() {
      // storage down at start (PostgreSQL): the first request or check that reaches it creates the
      // table; nothing here waits for the backend, so a slow one cannot hold up the start
      store.init().catch((err: unknown) => log.warn({ err }, 'events table not created yet: storage refused; tried again on next use'))
      // the first check runs in the background: a slow or unreachable backend must not hold up the start
      void health.start()
      purgeQuietly()
      purging = setInterval(purgeQuietly, PURGE_EVERY_MS)
      purging.unref()
    },
    async stop() {
      clearInterval(purging)
      await health.stop()
    },
    purge,
  }
}
