/**
 * @module
 * Starts and stops one adapter: logger, storage, SQL executor, route modules, HTTP server.
 * Everything is built from the one validated config (no module globals), so tests can run several
 * adapters in one process on port 0 and read the bound port back.
 *
 * Shutdown order (reverse of start): readiness goes 503 (draining), the listener stops accepting,
 * responses carry `Connection: close`, accepted requests get up to `shutdown.gracePeriod` to finish
 * (then their sockets are cut; src/http/drain.ts), receivers flush, storage closes, logs are
 * flushed.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { getRequestListener } from '@hono/node-server'
import { Hono } from 'hono'
import type { MiddlewareHandler } from 'hono'
import type { AppConfig } from './config/types.js'
import { packageVersion } from './config/index.js'
import { createApp } from './http/app.js'
import { trackConnections, type ConnectionTracker } from './http/drain.js'
import { createProbeFastPath, type ProbeFastPath } from './http/probe-fast-path.js'
import { applyServerLimits, DEFAULT_SERVER_LIMITS } from './http/server-limits.js'
import { createLogger } from './logger.js'
import type { Logger, LoggerHandle } from './logger.js'
import { Gate } from './monitor/gate.js'
import { queryGate, writeGate } from './http/middleware/gate.js'
import { createIngestMetrics } from './monitor/ingest-metrics.js'
import { createBuildInfo, createHttpMetrics } from './monitor/metrics.js'
import type { HttpMetrics } from './monitor/metrics.js'
import { createMonitorGauges, createResourceProbe, createSampler } from './monitor/sampler.js'
import type { Sampler } from './monitor/sampler.js'
import { createStorageGroupCommitMetrics, createStorageMemoryMetrics, createStoragePoolMetrics, createStorageUpMetric, createStorageWalMetrics } from './monitor/storage-metrics.js'
import { nameSpanByRoute, tracedFetch, traceStorage } from './monitor/tracing.js'
import { createMetricsWriter, monitorIdentity } from './monitor/write-to-db.js'
import type { MetricsWriter } from './monitor/write-to-db.js'
import { createSchemaless } from './ingest/schemaless/schemaless.js'
import { startCollagentReceiver, type RunningReceiver } from './receivers/collagent.js'
import { createScrapeMetrics, startHostexporter } from './receivers/hostexporter.js'
import { createReceiverMetrics } from './receivers/point-writer.js'
import { startStatsagentReceiver } from './receivers/statsagent.js'
import { createKernelDropsMetric } from './receivers/udp-drops.js'
import { startTelnetReceivers } from './receivers/tsdbproto-telnet.js'
import { AUTO_WORKERS_MIN_MEMORY, createLineProtoWorkers, parseWorkerCount, type LineProtoWorkers } from './ingest/lineproto/worker-pool.js'
import { usableCores } from './monitor/cgroup.js'
import { budgetShares, detectMemoryLimit, queryShare } from './monitor/memory-budget.js'
import { createWorkMetrics, WorkBudget } from './monitor/work-budget.js'
import { reserveWork, type WorkAdmission } from './http/middleware/work.js'
import { createIngestRoutes } from './rest/ingest-routes.js'
import { createRowsOffload } from './rest/encode/offload.js'
import type { RowsOffloadHandle } from './rest/encode/rows-offload.js'
import { createRestRoutes } from './rest/routes.js'
import { createSqlExecutor } from './sql/executor.js'
import { openStorage } from './sql/catalog/open.js'
import type { Storage } from './sql/catalog/types.js'
import { LoginGuard } from './http/auth/login-guard.js'
import { createManager, type Manager } from './manager/manager.js'

export interface RunningAdapter {
  /** the bound port (the real one when config.port is 0) */
  port: number
  /** base URL for clients on this host, e.g. `http://127.0.0.1:6041` */
  url: string
  app: Hono
  /** the memory gate the app reads (the sampler drives it; tests may set it) */
  gate: Gate
  metrics: HttpMetrics
  /** the memory/CPU sampler; undefined with monitor.disable */
  sampler?: Sampler
  /** the enabled UDP/TCP receivers, with their bound ports */
  receivers: RunningReceiver[]
  /** the management server (manager.enable): its bound port and base URL */
  manager?: { port: number; url: string; parts: Manager }
  /** graceful shutdown; safe to call more than once */
  stop(): Promise<void>
}

export interface StartOptions {
  /** use this logger instead of building one from `log.*` (its flushing is then the caller's) */
  logger?: Logger
  /** with `logger`: the HTTP SQL log to use (see `createLogger`) */
  sqlLogger?: Logger
  /**
   * trace HTTP requests and engine calls; main.ts sets it when `startTracing()` turned the
   * OpenTelemetry SDK on (the SDK is per process, adapters are per call)
   */
  tracing?: boolean
  /** directory standing for `/` when locating the cgroup (tests: fixture trees) */
  cgroupRoot?: string
  /**
   * `--auth.rootPassword` was given (LoadResult.given), not left at its default: a different
   * stored root password is replaced at start (src/sql/catalog/root-password.ts). Default false.
   */
  rootPasswordGiven?: boolean
}

/** While the gate stays paused, storage memory is given back this often. */
const RELEASE_WHILE_PAUSED_MS = 5000

/** Memory is read this often between samples, so a burst pauses the gate at once (src/monitor/sampler.ts). */
const WATCH_MS = 100

export async function startAdapter(config: AppConfig, opts: StartOptions = {}): Promise<RunningAdapter> {
  const logHandle: LoggerHandle | undefined = opts.logger ? undefined : createLogger(config)
  const logger = opts.logger ?? (logHandle as LoggerHandle).logger
  const sqlLogger = opts.logger ? opts.sqlLogger : logHandle?.sqlLogger

  let storage: Storage | undefined
  let server: Server | undefined
  let managerServer: Server | undefined
  let manager: Manager | undefined
  let sampler: Sampler | undefined
  const receivers: RunningReceiver[] = []
  let lineprotoWorkers: LineProtoWorkers | undefined
  let encodeOffload: RowsOffloadHandle | undefined
  try {
    // the memory budget: DuckDB's share and what requests in flight may hold (memory-budget.ts)
    const memoryLimit = detectMemoryLimit(opts.cgroupRoot ?? '/')
    const shares = budgetShares(memoryLimit.bytes, {
      inMemory: config.storage.url === 'duckdb::memory:' || config.storage.url === 'duckdb:',
      storage: config.storage.memoryLimit,
      work: config.monitor.workMemory,
    })
    const duckdb = config.storage.url.startsWith('duckdb:')
    logger.info({
      memoryLimitBytes: memoryLimit.bytes,
      source: memoryLimit.source,
      ...(duckdb ? { storageMemoryLimitBytes: shares.storageBytes } : {}),
      ...(!duckdb && config.storage.memoryLimit > 0 ? { postgresMemoryLimitBytes: config.storage.memoryLimit } : {}),
      workMemoryBytes: shares.workBytes,
    }, 'memory budget')
    const backgroundLogged = new Map<string, number>()
    storage = await openStorage(config.storage.url, {
      // PostgreSQL's memory is the server's, not this process's: only a given limit applies there
      ...(duckdb ? { memoryLimitBytes: shares.storageBytes } : config.storage.memoryLimit > 0 ? { memoryLimitBytes: config.storage.memoryLimit } : {}),
      // at most one line a minute of each kind (its first word: a failed checkpoint, cancelled
      // reads): a checkpoint that keeps failing is tried after every write
      onBackgroundFailure: (what, err) => {
        const kind = what.split(' ')[0]
        if (Date.now() - (backgroundLogged.get(kind) ?? 0) >= 60_000) {
          backgroundLogged.set(kind, Date.now())
          logger.warn({ err }, `storage: ${what}`)
        }
      },
      rootPassword: config.auth.rootPassword,
      rootPasswordGiven: opts.rootPasswordGiven === true,
      onRootPasswordApplied: () => logger.warn('root password set from --auth.rootPassword (it differed from the stored one; the flag is the source of truth)'),
      pool: config.pool,
    })
    const tracing = opts.tracing === true
    // engine calls of SQL and ingest get spans through one wrapped engine
    const used = tracing ? traceStorage(storage) : storage
    const sql = createSqlExecutor(used)
    const gate = new Gate()
    // DuckDB keeps its buffer pool and allocator cache after a burst; without giving them back a
    // paused gate may never see memory fall below its threshold again. Released on entering a
    // pause and again every few seconds while it lasts: what a burst still held at the pause is
    // given back once the burst is over
    let releasing: NodeJS.Timeout | undefined
    const release = (state: string): void => {
      storage?.engine.releaseMemory?.().then(
        () => logger.info({ state }, 'memory gate paused: storage memory released'),
        (err: unknown) => logger.warn({ err }, 'memory gate paused: releasing storage memory failed'),
      )
    }
    gate.onPause((state) => {
      release(state)
      releasing ??= setInterval(() => {
        if (gate.state === 'normal') {
          clearInterval(releasing)
          releasing = undefined
          return
        }
        release(gate.state)
      }, RELEASE_WHILE_PAUSED_MS)
      releasing.unref()
    })
    const metrics = createHttpMetrics({ clientIp: !config.monitor.disableCollectClientIP })
    const budget = new WorkBudget(shares.workBytes)
    const refused = createWorkMetrics(metrics.registry, budget)
    const work: WorkAdmission = { budget, waitMs: config.monitor.workWait, maxBodySize: config.http.maxBodySize, refused }
    const queryBytes = queryShare(shares.workBytes)
    // all-paused: running queries are cancelled so what they hold is freed before the kernel acts
    gate.onPause((state) => {
      if (state === 'all-paused') {
        // and when the gate reopens, work is let in a share at a time (sampler's onSample below)
        budget.narrow()
        const n = budget.revokeAll(new Error('all-paused'))
        if (n > 0) {
          logger.warn({ queries: n }, 'memory gate all-paused: running queries cancelled')
        }
      }
    })
    createBuildInfo(metrics.registry, { version: packageVersion(), storage: duckdb ? 'duckdb' : 'postgres' })
    createStoragePoolMetrics(metrics.registry, storage.engine)
    createStorageWalMetrics(metrics.registry, storage.engine)
    createStorageMemoryMetrics(metrics.registry, storage.engine)
    createStorageGroupCommitMetrics(metrics.registry, storage.engine)
    // the /rest handlers write the HTTP SQL log themselves (with passwords redacted)
    const cores = usableCores(opts.cgroupRoot ?? '/')
    // a second core encodes large query results beside the main thread (none to share on one core)
    // (nor under a small memory limit: a worker's heap is tens of MB there, see AUTO_WORKERS_MIN_MEMORY)
    encodeOffload = cores > 1 && memoryLimit.bytes >= AUTO_WORKERS_MIN_MEMORY ? createRowsOffload(logger) : undefined
    // one login back-off per process, whichever route a guess arrives on
    const logins = new LoginGuard(used.catalog)
    const restRoutes = createRestRoutes({
      config,
      storage: used,
      logins,
      sql,
      logger,
      gate,
      ...(sqlLogger ? { sqlLogger } : {}),
      ...(encodeOffload ? { encodeOffload } : {}),
      work: { budget, queryBytes, waitMs: config.monitor.workWait, refused },
    })
    // the /rest module gates itself (restRetryAfter: all-paused before anything else; its SQL
    // handler classifies statements for the query pause)
    const rest = guarded(restRoutes, [reserveWork(work, 'rest', 'tdengine')], tracing)
    // one schemaless core for the HTTP write endpoints and the receivers
    const schemaless = createSchemaless(used, { autoCreateDb: config.smlAutoCreateDB, ...config.schemaless })
    const ingestMetrics = createIngestMetrics(metrics.registry)
    const workerCount = config.lineproto.enable
      ? parseWorkerCount(config.lineproto.parseWorkers, cores, memoryLimit.bytes)
      : 0
    lineprotoWorkers = workerCount > 0 ? createLineProtoWorkers(workerCount, logger) : undefined
    const routes = createIngestRoutes({
      config,
      storage: used,
      logins,
      logger,
      schemaless,
      metrics: ingestMetrics,
      ...(lineprotoWorkers ? { lineprotoWorkers } : {}),
    }).map((r) => ({
      prefix: r.prefix,
      // the memory gate of the route's class, before auth and body reading
      app: guarded(r.app, [
        r.gate === 'query' ? queryGate(gate) : writeGate(gate),
        // a query route (remote read) also holds a result's share while it builds the answer
        reserveWork(work, r.gate, 'gateway', r.gate === 'query' ? queryBytes : 0),
      ], tracing),
    }))
    const opened = storage
    const storageHealthy = opened.healthy ? () => (opened.healthy as () => Promise<boolean>)() : undefined
    // an embedded database DuckDB invalidated after a fatal error refuses all work until reopened:
    // liveness fails so the orchestrator restarts the process (acknowledged writes are in the WAL)
    let fatalLogged = false
    const storageFatal = opened.engine.fatalError
      ? async (): Promise<string | undefined> => {
          const fatal = await opened.engine.fatalError?.()
          if (fatal !== undefined && !fatalLogged) {
            fatalLogged = true
            logger.fatal({ err: fatal }, 'storage failed for good: /-/live answers 503 so the process is restarted')
          }
          return fatal
        }
      : undefined
    createStorageUpMetric(metrics.registry, storageHealthy, storageFatal)
    const app = createApp({ config, logger, metrics, gate, rest, routes, ...(storageHealthy ? { storageHealthy } : {}), ...(storageFatal ? { storageFatal } : {}) })

    if (!config.monitor.disable) {
      // sampled before listening, so the first request already meets the right gate state
      sampler = createSampler({
        probe: createResourceProbe({ incgroup: config.monitor.incgroup, logger, ...(opts.cgroupRoot ? { root: opts.cgroupRoot } : {}) }),
        gate,
        thresholds: { query: config.monitor.pauseQueryMemoryThreshold, all: config.monitor.pauseAllMemoryThreshold },
        intervalMs: config.monitor.collectDuration,
        logger,
        gauges: createMonitorGauges(metrics.registry),
        relaxAfter: 2,
        watchMs: Math.min(config.monitor.collectDuration, WATCH_MS),
        onSample: (state) => {
          if (state === 'normal') {
            budget.widen()
          }
        },
      })
      sampler.start()
    }

    // probes skip Hono (same answer, headers, metrics); with tracing on they go through it for their spans
    const probe = tracing ? undefined : createProbeFastPath({ logger, metrics, gate, ...(storageHealthy ? { storageHealthy } : {}), ...(storageFatal ? { storageFatal } : {}) })
    const listening = await listen(app, config.host, config.port, tracing, config.http.maxConnections, probe)
    server = listening
    const port = (listening.address() as AddressInfo).port
    const url = `http://${clientHost(config.host)}:${port}`
    logger.info({ host: config.host || '*', port, storage: redactUrl(config.storage.url) }, `db-adapter listening on ${url}`)

    const receiverMetrics = createReceiverMetrics(metrics.registry)
    if (config.manager.enable) {
      // the management server: events API, OpenAPI, Swagger UI, Alertmanager webhook (src/manager)
      const runningSampler = sampler
      manager = createManager({
        config,
        engine: used.engine,
        logins,
        gate,
        logger,
        registry: metrics.registry,
        elementId: monitorIdentity(config.monitor.identity, port),
        probes: {
          ...(storageHealthy ? { storageHealthy } : {}),
          receiverDrops: () => droppedByReceiver(receiverMetrics),
          cpuPercent: () => runningSampler?.last.cpuPercent ?? NaN,
        },
      })
      try {
        managerServer = await listen(manager.app, config.host, config.manager.port, tracing, config.http.maxConnections)
      } catch (err) {
        throw new Error(`manager.port ${config.manager.port}: cannot listen (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { cause: err })
      }
      manager.start()
      const mport = (managerServer.address() as AddressInfo).port
      logger.info({ port: mport }, `management server listening on http://${clientHost(config.host)}:${mport} (Swagger UI at /swagger-ui/)`)
    }

    const receiverDeps = {
      config,
      storage: used,
      schemaless,
      allPaused: () => gate.allPaused(),
      logger,
      metrics: receiverMetrics,
      kernelDrops: createKernelDropsMetric(metrics.registry),
    }
    if (config.collagent.enable) {
      receivers.push(await startCollagentReceiver(receiverDeps))
    }
    if (config.statsagent.enable) {
      receivers.push(await startStatsagentReceiver(receiverDeps))
    }
    if (config.tsdbproto_telnet.enable) {
      receivers.push(...(await startTelnetReceivers(receiverDeps)))
    }
    if (config.hostexporter.enable) {
      receivers.push(await startHostexporter({ ...receiverDeps, scrapeMetrics: createScrapeMetrics(metrics.registry) }))
    }

    let writer: MetricsWriter | undefined
    if (!config.monitor.disable && config.monitor.writeToDB) {
      writer = createMetricsWriter({
        storage,
        registry: metrics.registry,
        logger,
        user: config.monitor.user,
        password: config.monitor.password,
        identity: monitorIdentity(config.monitor.identity, port),
        intervalMs: config.monitor.writeInterval,
      })
      writer.start()
    }

    const openedStorage = storage
    const runningSampler = sampler
    const runningManager = manager
    const managerListening = managerServer
    let stopping: Promise<void> | undefined
    const stop = (): Promise<void> => {
      stopping ??= (async () => {
        runningSampler?.stop()
        writer?.stop()
        gate.startDraining()
        const grace = config.shutdown.gracePeriod
        logger.info({ inFlight: connectionsOf(listening).active(), gracePeriodMs: grace }, 'shutting down: draining HTTP requests')
        // both servers drain at once, within the same grace period
        const [{ cut }] = await Promise.all([
          connectionsOf(listening).drain(grace),
          ...(managerListening ? [connectionsOf(managerListening).drain(grace)] : []),
        ])
        await runningManager?.stop()
        if (cut > 0) {
          logger.warn({ requests: cut }, `requests still running after shutdown.gracePeriod (${grace} ms) were cut off`)
        }
        // receivers stop listening and write what they hold before storage closes
        await Promise.all(receivers.map((r) => r.stop()))
        await lineprotoWorkers?.close()
        await encodeOffload?.close()
        try {
          await openedStorage.close()
        } catch (err) {
          logger.error({ err }, 'closing storage failed')
        }
        logger.info('stopped')
        await logHandle?.flush()
      })()
      return stopping
    }
    const managerInfo = manager && managerServer
      ? { port: (managerServer.address() as AddressInfo).port, url: `http://${clientHost(config.host)}:${(managerServer.address() as AddressInfo).port}`, parts: manager }
      : undefined
    return { port, url, app, gate, metrics, receivers, ...(sampler ? { sampler } : {}), ...(managerInfo ? { manager: managerInfo } : {}), stop }
  } catch (err) {
    // Whatever was opened before the failure is released; the error goes to the caller.
    sampler?.stop()
    await manager?.stop()
    if (managerServer) {
      await connectionsOf(managerServer).drain(0)
    }
    await Promise.all(receivers.map((r) => r.stop()))
    await lineprotoWorkers?.close()
    await encodeOffload?.close()
    if (server) {
      await connectionsOf(server).drain(0)
    }
    await storage?.close().catch(() => undefined)
    logger.error({ err }, 'start failed')
    await logHandle?.flush()
    throw err
  }
}

/** The connections of each listening server, for the drain at shutdown. */
const trackers = new WeakMap<Server, ConnectionTracker>()

function connectionsOf(server: Server): ConnectionTracker {
  return trackers.get(server) as ConnectionTracker
}

/**
 * Idle keep-alive connections live longer than clients keep theirs (Go and Prometheus: 90 s), so
 * the client, not the server, closes an idle connection and never sends on one being closed.
 * (Node checks headersTimeout from a request's first byte, so it need not exceed this.)
 */
export const KEEP_ALIVE_TIMEOUT_MS = 95_000

/** A route module behind middleware (gates, span naming) without touching the module itself. */
function guarded(module: Hono, middleware: MiddlewareHandler[], tracing: boolean): Hono {
  const outer = new Hono()
  if (tracing) {
    outer.use('*', nameSpanByRoute())
  }
  for (const m of middleware) {
    outer.use('*', m)
  }
  outer.route('/', module)
  return outer
}

function listen(app: Hono, host: string, port: number, tracing = false, maxConnections = 0, probe?: ProbeFastPath): Promise<Server> {
  // what createAdaptorServer does, with the probe fast path in front of Hono's listener
  const listener = getRequestListener(tracing ? tracedFetch(app.fetch) : app.fetch)
  const server = createServer(
    probe === undefined
      ? listener
      : (req, res) => {
          if (!probe(req, res, () => void listener(req, res))) {
            void listener(req, res)
          }
        },
  )
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS
  trackers.set(server, trackConnections(server))
  // request/headers timeouts, http.maxConnections, JSON answers to parser errors (431, 400, 408)
  applyServerLimits(server, { ...DEFAULT_SERVER_LIMITS, maxConnections })
  return new Promise<Server>((resolve, reject) => {
    const onError = (err: Error): void => {
      reject(err)
    }
    server.once('error', onError)
    // '' means all interfaces: let Node pick (dual-stack `::` where available)
    server.listen(port, host === '' ? undefined : host, () => {
      server.off('error', onError)
      resolve(server)
    })
  })
}

/** Address a local client uses to reach a server bound to `host`. */
function clientHost(host: string): string {
  if (host === '' || host === '0.0.0.0') {
    return '127.0.0.1'
  }
  if (host === '::') {
    return '[::1]'
  }
  return host.includes(':') ? `[${host}]` : host
}

/** Input each receiver dropped so far (points and datagrams), for the health events. */
async function droppedByReceiver(m: ReturnType<typeof createReceiverMetrics>): Promise<Record<string, number>> {
  const out: Record<string, number> = {}
  for (const counter of [m.points, m.packets]) {
    for (const v of (await counter.get()).values) {
      if (v.labels.result === 'dropped' && typeof v.labels.receiver === 'string') {
        out[v.labels.receiver] = (out[v.labels.receiver] ?? 0) + v.value
      }
    }
  }
  return out
}

/** Storage URL for logs: never print a PostgreSQL password. */
export function redactUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:/@]+:)[^@]*@/i, '$1***@')
}
