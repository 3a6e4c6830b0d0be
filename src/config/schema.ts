/**
 * The single declarative schema of every configuration parameter (spec "Configuration
 * parameters" plus storage.url, host, auth.rootPassword, rest.tokens, http.maxBodySize).
 *
 * Each entry: flag name (dotted = TOML section + key), type, default, env names (exact, first
 * non-empty one wins), description and an optional validation rule. Defaults of durations and
 * sizes are written as the spec writes them (`24h0m0s`, `1GB`) and go through the same parser
 * as user input, so a default can never bypass validation. `AppConfig` must equal the type
 * derived from this table; the assertion at the bottom fails the type check when they drift.
 */
import type { AppConfig } from './types.js'

export type FlagType =
  | 'bool'
  | 'int'
  | 'uint'
  | 'float'
  | 'string'
  | 'strings'
  | 'ints'
  | 'stringArray'
  | 'duration'
  | 'size'

export const LIST_TYPES: ReadonlySet<FlagType> = new Set(['strings', 'ints', 'stringArray'])

/** A check on one parsed value (each item, for lists); `text` completes "must ...". */
export interface Rule {
  readonly test: (value: number | string) => boolean
  readonly text: string
}

interface CommonDef {
  readonly name: string
  readonly env: readonly string[]
  readonly description: string
  readonly short?: readonly string[]
  readonly rule?: Rule
  /** allowed values, matched case-insensitively and stored lower-case */
  readonly choices?: readonly string[]
  /** settable only on the command line (the config file path) */
  readonly cliOnly?: boolean
}

export type FlagDef = CommonDef &
  (
    | { readonly type: 'bool'; readonly default: boolean }
    | { readonly type: 'int' | 'uint' | 'float'; readonly default: number }
    | { readonly type: 'string' | 'duration' | 'size'; readonly default: string }
    | { readonly type: 'strings' | 'stringArray'; readonly default: readonly string[] }
    | { readonly type: 'ints'; readonly default: readonly number[] }
  )

const between = (min: number, max: number, what = 'an integer'): Rule => ({
  test: (v) => typeof v === 'number' && v >= min && v <= max,
  text: `must be ${what} between ${min} and ${max}`,
})
const PORT = between(1, 65535)
const THRESHOLD = between(-1, 100, 'a number')
const POSITIVE: Rule = { test: (v) => typeof v === 'number' && v > 0, text: 'must be greater than 0' }
const STORAGE_URL: Rule = {
  test: (v) => typeof v === 'string' && /^(duckdb:.+|postgres(ql)?:\/\/.+)$/.test(v),
  text: 'must be duckdb:<path>, duckdb::memory: or postgres://...',
}
const TOKEN_PAIR: Rule = {
  test: (v) => typeof v === 'string' && /^[^=\s]+=[^=\s]+$/.test(v),
  text: 'must be token=user',
}

export const DEFAULT_CONFIG_PATH = '/etc/db/adapter.toml'
const DEFAULT_PASSWORD = 'taosdata'
export const LOG_LEVELS = ['panic', 'fatal', 'error', 'warn', 'warning', 'info', 'debug', 'trace'] as const

export const SCHEMA = [
  // General
  { name: 'config', type: 'string', default: DEFAULT_CONFIG_PATH, env: [], short: ['c'], cliOnly: true,
    description: 'configuration file path' },
  { name: 'port', type: 'int', default: 6041, env: ['DB_ADAPTER_PORT'], short: ['P', 'p'], rule: PORT,
    description: 'HTTP port' },
  { name: 'host', type: 'string', default: '', env: ['DB_ADAPTER_HOST'],
    description: "listen address; '' or 0.0.0.0 means all interfaces" },
  { name: 'debug', type: 'bool', default: true, env: ['DB_ADAPTER_DEBUG'], description: 'debug mode' },
  { name: 'logLevel', type: 'string', default: 'info', env: ['DB_ADAPTER_LOG_LEVEL'], choices: LOG_LEVELS,
    description: 'log level' },
  { name: 'dbConfigDir', type: 'string', default: '', env: ['DB_ADAPTER_DB_CONFIG_FILE'],
    description: 'directory of the database client configuration' },
  { name: 'httpCodeServerError', type: 'bool', default: false, env: ['DB_ADAPTER_HTTP_CODE_SERVER_ERROR'],
    description: 'errors returned by the database produce a non-200 HTTP status' },
  { name: 'restfulRowLimit', type: 'int', default: -1, env: ['DB_ADAPTER_RESTFUL_ROW_LIMIT'],
    rule: { test: (v) => typeof v === 'number' && v >= -1, text: 'must be -1 (no limit) or a row count >= 0' },
    description: 'maximum rows returned by /rest/sql; -1 means no limit' },
  { name: 'smlAutoCreateDB', type: 'bool', default: false, env: ['DB_ADAPTER_SML_AUTO_CREATE_DB'],
    description: 'create the database automatically on schemaless write' },
  { name: 'schemaless.maxStablesPerDatabase', type: 'int', default: 10000, env: ['DB_ADAPTER_SCHEMALESS_MAX_STABLES_PER_DATABASE'],
    rule: { test: (v) => typeof v === 'number' && v >= 0, text: 'must be 0 (no limit) or a count' },
    description: 'most super tables a schemaless write (line protocol, OpenTSDB, receivers) may create in one database; lines of further new measurements are rejected (400); 0: no limit' },
  { name: 'schemaless.maxTablesPerDatabase', type: 'int', default: 1000000, env: ['DB_ADAPTER_SCHEMALESS_MAX_TABLES_PER_DATABASE'],
    rule: { test: (v) => typeof v === 'number' && v >= 0, text: 'must be 0 (no limit) or a count' },
    description: 'most tables (child tables, i.e. series, and normal tables) a schemaless write may bring one database to; lines of further new series are rejected (400); 0: no limit' },

  // Storage, listen auth and HTTP limits (additions of this implementation)
  { name: 'storage.url', type: 'string', default: 'duckdb:./data/db-adapter.duckdb', env: ['DB_ADAPTER_STORAGE_URL'],
    rule: STORAGE_URL, description: 'storage backend: duckdb:<path>, duckdb::memory: or postgres://...' },
  { name: 'storage.memoryLimit', type: 'size', default: '0', env: ['DB_ADAPTER_STORAGE_MEMORY_LIMIT'],
    description: 'DuckDB memory_limit; 0: derived from the memory limit (the cgroup limit when one is set, else physical memory): 35% of it for a file database, 80% in memory. PostgreSQL: when given, divided over pool.maxConnect as each connection\'s work_mem (at least 64kB); 0 keeps the server\'s work_mem' },
  { name: 'auth.rootPassword', type: 'string', default: DEFAULT_PASSWORD, env: ['DB_ADAPTER_AUTH_ROOT_PASSWORD'],
    description: 'password of the root user: sets it when the catalog is created and, when given (flag, env, TOML or .env), replaces a different stored one at start; left at its default, the stored password (ALTER USER root PASS) is kept' },
  { name: 'rest.tokens', type: 'stringArray', default: [], env: ['DB_ADAPTER_REST_TOKENS'], rule: TOKEN_PAIR,
    description: 'token=user pairs accepted in the ?token= query parameter' },
  { name: 'rest.queryTimeout', type: 'duration', default: '0s', env: ['DB_ADAPTER_REST_QUERY_TIMEOUT'],
    description: 'a /rest/sql statement running longer is cancelled in the backend and answers 0x022D "Query killed"; 0s means no limit' },
  { name: 'http.maxBodySize', type: 'size', default: '64MB', env: ['DB_ADAPTER_HTTP_MAX_BODY_SIZE'], rule: POSITIVE,
    description: 'largest accepted HTTP request body (after gunzip)' },
  { name: 'http.maxConnections', type: 'int', default: 4096, env: ['DB_ADAPTER_HTTP_MAX_CONNECTIONS'],
    rule: { test: (v) => typeof v === 'number' && v >= 0, text: 'must be 0 (no cap) or a connection count' },
    description: 'most HTTP connections open at once; more are closed as they arrive; 0: no cap' },

  // Shutdown (an addition of this implementation)
  { name: 'shutdown.gracePeriod', type: 'duration', default: '25s', env: ['DB_ADAPTER_SHUTDOWN_GRACE_PERIOD'],
    description: 'on SIGTERM: how long accepted requests may run on (new connections are refused at once) before they are cut off and storage closes' },

  // Protocol switches
  { name: 'lineproto.enable', type: 'bool', default: true, env: ['DB_ADAPTER_LINEPROTO_ENABLE'],
    description: 'enable the line-protocol write endpoint' },
  { name: 'lineproto.parseWorkers', type: 'int', default: -1, env: ['DB_ADAPTER_LINEPROTO_PARSE_WORKERS'],
    rule: { test: (v) => typeof v === 'number' && v >= -1 && v <= 64, text: 'must be -1 (one per usable core beside the main thread, at most 4), 0 (parse on the main thread) or a count up to 64' },
    description: 'worker threads that parse line-protocol bodies; -1: one per core beyond the first (the cgroup CPU quota counts), at most 4, none under a memory limit of 384 MiB; 0: none' },
  { name: 'lineproto.columnarLane', type: 'bool', default: true, env: ['DB_ADAPTER_LINEPROTO_COLUMNAR_LANE'],
    description: 'append worker-parsed line-protocol bodies of known series as columns (DuckDB); false: every body takes the row path' },
  { name: 'tsdbproto.enable', type: 'bool', default: true, env: ['DB_ADAPTER_TSDBPROTO_ENABLE'],
    description: 'enable the time-series JSON/telnet HTTP write endpoints' },
  { name: 'metricsproto.enable', type: 'bool', default: true, env: ['DB_ADAPTER_METRICSPROTO_ENABLE'],
    description: 'enable metrics remote read/write' },

  // Logging
  { name: 'log.enableFile', type: 'bool', default: true, env: ['DB_ADAPTER_LOG_ENABLE_FILE'],
    description: 'also write the logs to rotating files under log.path (false: stdout only, as in containers, where files would fill the data volume)' },
  { name: 'log.enableRecordHttpSql', type: 'bool', default: false, env: ['DB_ADAPTER_LOG_ENABLE_RECORD_HTTP_SQL'],
    description: 'record the SQL of HTTP requests in a separate log' },
  { name: 'log.path', type: 'string', default: '/var/log/db', env: ['DB_ADAPTER_LOG_PATH'],
    description: 'log directory' },
  { name: 'log.rotationCount', type: 'uint', default: 30, env: ['DB_ADAPTER_LOG_ROTATION_COUNT'],
    description: 'log files kept' },
  { name: 'log.rotationSize', type: 'size', default: '1GB', env: ['DB_ADAPTER_LOG_ROTATION_SIZE'], rule: POSITIVE,
    description: 'log file size that starts a new file (KB, MB or GB)' },
  { name: 'log.rotationTime', type: 'duration', default: '24h0m0s', env: ['DB_ADAPTER_LOG_ROTATION_TIME'],
    description: 'log file period' },
  { name: 'log.sqlRotationCount', type: 'uint', default: 2, env: ['DB_ADAPTER_LOG_SQL_ROTATION_COUNT'],
    description: 'SQL log files kept' },
  { name: 'log.sqlRotationSize', type: 'size', default: '1GB', env: ['DB_ADAPTER_LOG_SQL_ROTATION_SIZE'], rule: POSITIVE,
    description: 'SQL log file size that starts a new file (KB, MB or GB)' },
  { name: 'log.sqlRotationTime', type: 'duration', default: '24h0m0s', env: ['DB_ADAPTER_LOG_SQL_ROTATION_TIME'],
    description: 'SQL log file period' },
  { name: 'log.slowQueryThreshold', type: 'duration', default: '10s', env: ['DB_ADAPTER_LOG_SLOW_QUERY_THRESHOLD'],
    description: 'a /rest/sql statement taking longer is logged at warn level (user, duration, SQL); 0s means off' },

  // Cross-origin: env names are the spec's full names, mixed case included
  { name: 'cors.allowAllOrigins', type: 'bool', default: true, env: ['DB_ADAPTER_CORS_ALLOW_ALL_ORIGINS'],
    description: 'allow every origin' },
  { name: 'cors.allowCredentials', type: 'bool', default: false, env: ['DB_ADAPTER_CORS_ALLOW_Credentials'],
    description: 'allow credentials in cross-origin requests' },
  { name: 'cors.allowHeaders', type: 'stringArray', default: [], env: ['DB_ADAPTER_ALLOW_HEADERS'],
    description: 'extra allowed request headers' },
  { name: 'cors.allowOrigins', type: 'stringArray', default: [], env: ['DB_ADAPTER_ALLOW_ORIGINS'],
    description: 'allowed origins (when allowAllOrigins is false)' },
  { name: 'cors.allowWebSockets', type: 'bool', default: false, env: ['DB_ADAPTER_CORS_ALLOW_WebSockets'],
    description: 'allow WebSocket requests' },
  { name: 'cors.exposeHeaders', type: 'stringArray', default: [], env: ['DB_ADAPTER_Expose_Headers'],
    description: 'response headers exposed to the browser' },

  // Monitoring and memory; the DB_MONITOR_* names are the spec's alternatives
  { name: 'monitor.collectDuration', type: 'duration', default: '3s',
    env: ['DB_ADAPTER_MONITOR_COLLECT_DURATION', 'DB_MONITOR_COLLECT_DURATION'], rule: POSITIVE,
    description: 'CPU and memory sampling interval' },
  { name: 'monitor.disable', type: 'bool', default: false, env: ['DB_ADAPTER_MONITOR_DISABLE'],
    description: 'disable monitoring' },
  { name: 'monitor.disableCollectClientIP', type: 'bool', default: false, env: ['DB_ADAPTER_MONITOR_DISABLE_COLLECT_CLIENT_IP'],
    description: 'do not collect client IP' },
  { name: 'monitor.identity', type: 'string', default: '', env: ['DB_ADAPTER_MONITOR_IDENTITY'],
    description: 'instance identity; when empty it is hostname:port' },
  { name: 'monitor.incgroup', type: 'bool', default: false, env: ['DB_ADAPTER_MONITOR_INCGROUP', 'DB_MONITOR_INCGROUP'],
    description: 'set true when running in a container cgroup' },
  { name: 'monitor.password', type: 'string', default: DEFAULT_PASSWORD, env: ['DB_ADAPTER_MONITOR_PASSWORD'],
    description: 'database password for writing metrics' },
  { name: 'monitor.pauseAllMemoryThreshold', type: 'float', default: 80,
    env: ['DB_ADAPTER_MONITOR_PAUSE_ALL_MEMORY_THRESHOLD', 'DB_MONITOR_PAUSE_ALL_MEMORY_THRESHOLD'], rule: THRESHOLD,
    description: 'percent of physical memory above which all requests are refused' },
  { name: 'monitor.pauseQueryMemoryThreshold', type: 'float', default: 70,
    env: ['DB_ADAPTER_MONITOR_PAUSE_QUERY_MEMORY_THRESHOLD', 'DB_MONITOR_PAUSE_QUERY_MEMORY_THRESHOLD'], rule: THRESHOLD,
    description: 'percent of physical memory above which queries are refused' },
  { name: 'monitor.user', type: 'string', default: 'root', env: ['DB_ADAPTER_MONITOR_USER'],
    description: 'database user for writing metrics' },
  { name: 'monitor.workMemory', type: 'size', default: '0', env: ['DB_ADAPTER_MONITOR_WORK_MEMORY'],
    description: 'memory requests in flight may reserve at once (bodies being parsed, query results being produced); past it new requests wait monitor.workWait, then get 503; 0: a quarter of the memory limit' },
  { name: 'monitor.workWait', type: 'duration', default: '5s', env: ['DB_ADAPTER_MONITOR_WORK_WAIT'],
    description: 'how long a request waits for room in monitor.workMemory before it is refused with 503 and Retry-After' },
  { name: 'monitor.writeInterval', type: 'duration', default: '30s', env: ['DB_ADAPTER_MONITOR_WRITE_INTERVAL'], rule: POSITIVE,
    description: 'interval of writing metrics to the database' },
  { name: 'monitor.writeToDB', type: 'bool', default: false, env: ['DB_ADAPTER_MONITOR_WRITE_TO_DB'],
    description: 'write metrics to the database' },

  // Connection pool and message queue
  { name: 'pool.idleTimeout', type: 'duration', default: '0s', env: ['DB_ADAPTER_POOL_IDLE_TIMEOUT'],
    description: 'idle connection timeout; 0 means none' },
  { name: 'pool.maxConnect', type: 'int', default: 0, env: ['DB_ADAPTER_POOL_MAX_CONNECT'],
    rule: { test: (v) => typeof v === 'number' && v >= 0, text: 'must be 0 (automatic) or a connection count' },
    description: 'maximum connections per user; 0 means automatic' },
  { name: 'pool.maxIdle', type: 'int', default: 0, env: ['DB_ADAPTER_POOL_MAX_IDLE'],
    rule: { test: (v) => typeof v === 'number' && v >= 0, text: 'must be 0 or more' },
    description: 'maximum idle connections' },
  { name: 'tmq.releaseIntervalMultiplierForAutocommit', type: 'int', default: 2,
    env: ['DB_ADAPTER_TMQ_RELEASE_INTERVAL_MULTIPLIER_FOR_AUTOCOMMIT'], rule: between(1, 10),
    description: 'auto-commit mode: messages are released at this multiple of the auto-commit interval' },

  // Direct network agent receiver
  { name: 'collagent.db', type: 'string', default: 'collagent', env: ['DB_ADAPTER_COLLAGENT_DB'],
    description: 'database of the agent receiver' },
  { name: 'collagent.enable', type: 'bool', default: true, env: ['DB_ADAPTER_COLLAGENT_ENABLE'],
    description: 'enable the direct network agent receiver (UDP)' },
  { name: 'collagent.password', type: 'string', default: DEFAULT_PASSWORD, env: ['DB_ADAPTER_COLLAGENT_PASSWORD'],
    description: 'database password' },
  { name: 'collagent.port', type: 'int', default: 6045, env: ['DB_ADAPTER_COLLAGENT_PORT'], rule: PORT,
    description: 'UDP port' },
  { name: 'collagent.ttl', type: 'int', default: 0, env: ['DB_ADAPTER_COLLAGENT_TTL'],
    description: 'table time-to-live in days; 0 means none' },
  { name: 'collagent.user', type: 'string', default: 'root', env: ['DB_ADAPTER_COLLAGENT_USER'],
    description: 'database user' },
  { name: 'collagent.udpReceiveBuffer', type: 'size', default: '4MB', env: ['DB_ADAPTER_COLLAGENT_UDP_RECEIVE_BUFFER'],
    description: 'kernel receive buffer of the UDP socket (SO_RCVBUF; Linux caps it at net.core.rmem_max); 0 keeps the system default' },
  { name: 'collagent.worker', type: 'int', default: 10, env: ['DB_ADAPTER_COLLAGENT_WORKER'], rule: POSITIVE,
    description: 'write workers' },

  // Telnet-format receivers: ports and dbs pair by position
  { name: 'tsdbproto_telnet.batchSize', type: 'int', default: 1, env: ['DB_ADAPTER_TSDBPROTO_TELNET_BATCH_SIZE'], rule: POSITIVE,
    description: 'lines written per batch' },
  { name: 'tsdbproto_telnet.dbs', type: 'strings', default: ['tsdbproto_telnet', 'collagent_tsdb', 'agentb_tsdb', 'agentc_tsdb'],
    env: ['DB_ADAPTER_TSDBPROTO_TELNET_DBS'], description: 'database of each port, by position' },
  { name: 'tsdbproto_telnet.enable', type: 'bool', default: false, env: ['DB_ADAPTER_TSDBPROTO_TELNET_ENABLE'],
    description: 'enable the telnet receivers (they receive data without client authentication)' },
  { name: 'tsdbproto_telnet.flushInterval', type: 'duration', default: '0s', env: ['DB_ADAPTER_TSDBPROTO_TELNET_FLUSH_INTERVAL'],
    description: 'flush a partial batch after this long; 0s means never' },
  { name: 'tsdbproto_telnet.maxTCPConnections', type: 'int', default: 250, env: ['DB_ADAPTER_TSDBPROTO_TELNET_MAX_TCP_CONNECTIONS'],
    rule: POSITIVE, description: 'maximum TCP connections per port' },
  { name: 'tsdbproto_telnet.password', type: 'string', default: DEFAULT_PASSWORD, env: ['DB_ADAPTER_TSDBPROTO_TELNET_PASSWORD'],
    description: 'database password' },
  { name: 'tsdbproto_telnet.ports', type: 'ints', default: [6046, 6047, 6048, 6049], env: ['DB_ADAPTER_TSDBPROTO_TELNET_PORTS'],
    rule: PORT, description: 'TCP ports, paired with dbs by position' },
  { name: 'tsdbproto_telnet.tcpKeepAlive', type: 'bool', default: false, env: ['DB_ADAPTER_TSDBPROTO_TELNET_TCP_KEEP_ALIVE'],
    description: 'enable TCP keep-alive' },
  { name: 'tsdbproto_telnet.ttl', type: 'int', default: 0, env: ['DB_ADAPTER_TSDBPROTO_TELNET_TTL'],
    description: 'table time-to-live in days; 0 means none' },
  { name: 'tsdbproto_telnet.user', type: 'string', default: 'root', env: ['DB_ADAPTER_TSDBPROTO_TELNET_USER'],
    description: 'database user' },

  // Statistics-agent receiver
  { name: 'statsagent.allowPendingMessages', type: 'int', default: 50000, env: ['DB_ADAPTER_STATSAGENT_ALLOW_PENDING_MESSAGES'],
    rule: POSITIVE, description: 'messages buffered before new ones are dropped' },
  { name: 'statsagent.db', type: 'string', default: 'statsagent', env: ['DB_ADAPTER_STATSAGENT_DB'],
    description: 'database of the statistics agent' },
  { name: 'statsagent.deleteCounters', type: 'bool', default: true, env: ['DB_ADAPTER_STATSAGENT_DELETE_COUNTERS'],
    description: 'drop the counter cache after each gather' },
  { name: 'statsagent.deleteGauges', type: 'bool', default: true, env: ['DB_ADAPTER_STATSAGENT_DELETE_GAUGES'],
    description: 'drop the gauge cache after each gather' },
  { name: 'statsagent.deleteSets', type: 'bool', default: true, env: ['DB_ADAPTER_STATSAGENT_DELETE_SETS'],
    description: 'drop the set cache after each gather' },
  { name: 'statsagent.deleteTimings', type: 'bool', default: true, env: ['DB_ADAPTER_STATSAGENT_DELETE_TIMINGS'],
    description: 'drop the timing cache after each gather' },
  { name: 'statsagent.enable', type: 'bool', default: true, env: ['DB_ADAPTER_STATSAGENT_ENABLE'],
    description: 'enable the statistics-agent receiver' },
  { name: 'statsagent.gatherInterval', type: 'duration', default: '5s', env: ['DB_ADAPTER_STATSAGENT_GATHER_INTERVAL'],
    rule: POSITIVE, description: 'interval of writing gathered metrics' },
  { name: 'statsagent.maxTCPConnections', type: 'int', default: 250, env: ['DB_ADAPTER_STATSAGENT_MAX_TCP_CONNECTIONS'],
    rule: POSITIVE, description: 'maximum TCP connections (protocol tcp)' },
  { name: 'statsagent.password', type: 'string', default: DEFAULT_PASSWORD, env: ['DB_ADAPTER_STATSAGENT_PASSWORD'],
    description: 'database password' },
  { name: 'statsagent.port', type: 'int', default: 6044, env: ['DB_ADAPTER_STATSAGENT_PORT'], rule: PORT,
    description: 'listen port' },
  { name: 'statsagent.protocol', type: 'string', default: 'udp', env: ['DB_ADAPTER_STATSAGENT_PROTOCOL'],
    choices: ['tcp', 'udp'], description: 'listen protocol' },
  { name: 'statsagent.tcpKeepAlive', type: 'bool', default: false, env: ['DB_ADAPTER_STATSAGENT_TCP_KEEP_ALIVE'],
    description: 'enable TCP keep-alive' },
  { name: 'statsagent.ttl', type: 'int', default: 0, env: ['DB_ADAPTER_STATSAGENT_TTL'],
    description: 'table time-to-live in days; 0 means none' },
  { name: 'statsagent.udpReceiveBuffer', type: 'size', default: '4MB', env: ['DB_ADAPTER_STATSAGENT_UDP_RECEIVE_BUFFER'],
    description: 'kernel receive buffer of the UDP socket (SO_RCVBUF; Linux caps it at net.core.rmem_max); 0 keeps the system default' },
  { name: 'statsagent.user', type: 'string', default: 'root', env: ['DB_ADAPTER_STATSAGENT_USER'],
    description: 'database user' },
  { name: 'statsagent.worker', type: 'int', default: 10, env: ['DB_ADAPTER_STATSAGENT_WORKER'], rule: POSITIVE,
    description: 'write workers' },

  // Management server (events API, OpenAPI, Swagger UI, Alertmanager webhook): its own port
  { name: 'manager.cpuDuration', type: 'duration', default: '5m0s', env: ['DB_ADAPTER_MANAGER_CPU_DURATION'], rule: POSITIVE,
    description: 'how long CPU use must stay above manager.cpuThreshold before an event is opened' },
  { name: 'manager.cpuThreshold', type: 'float', default: 90, env: ['DB_ADAPTER_MANAGER_CPU_THRESHOLD'], rule: between(1, 100, 'a number'),
    description: 'CPU percent (of the cores the adapter may use) above which, held for manager.cpuDuration, an event is opened' },
  { name: 'manager.enable', type: 'bool', default: true, env: ['DB_ADAPTER_MANAGER_ENABLE'],
    description: 'enable the management server (events API, OpenAPI document, Swagger UI, Alertmanager webhook)' },
  { name: 'manager.eventRetention', type: 'duration', default: '720h0m0s', env: ['DB_ADAPTER_MANAGER_EVENT_RETENTION'], rule: POSITIVE,
    description: 'resolved events older than this (since they were resolved) are purged' },
  { name: 'manager.healthInterval', type: 'duration', default: '10s', env: ['DB_ADAPTER_MANAGER_HEALTH_INTERVAL'], rule: POSITIVE,
    description: "how often the adapter's own health (memory gate, storage, receivers, CPU) is checked for events" },
  { name: 'manager.port', type: 'int', default: 6060, env: ['DB_ADAPTER_MANAGER_PORT'], rule: between(0, 65535),
    description: 'HTTP port of the management server; 0 picks a free one' },

  // Host exporter scraper
  { name: 'hostexporter.caCertFile', type: 'string', default: '', env: ['DB_ADAPTER_HOSTEXPORTER_CA_CERT_FILE'],
    description: 'CA certificate file for https exporters' },
  { name: 'hostexporter.certFile', type: 'string', default: '', env: ['DB_ADAPTER_HOSTEXPORTER_CERT_FILE'],
    description: 'client certificate file' },
  { name: 'hostexporter.db', type: 'string', default: 'hostexporter', env: ['DB_ADAPTER_HOSTEXPORTER_DB'],
    description: 'database of scraped metrics' },
  { name: 'hostexporter.enable', type: 'bool', default: false, env: ['DB_ADAPTER_HOSTEXPORTER_ENABLE'],
    description: 'enable the host exporter scraper' },
  { name: 'hostexporter.gatherDuration', type: 'duration', default: '5s', env: ['DB_ADAPTER_HOSTEXPORTER_GATHER_DURATION'],
    rule: POSITIVE, description: 'scrape interval' },
  { name: 'hostexporter.httpBearerTokenString', type: 'string', default: '', env: ['DB_ADAPTER_HOSTEXPORTER_HTTP_BEARER_TOKEN_STRING'],
    description: 'bearer token sent to the exporter' },
  { name: 'hostexporter.httpPassword', type: 'string', default: '', env: ['DB_ADAPTER_HOSTEXPORTER_HTTP_PASSWORD'],
    description: 'basic-auth password sent to the exporter' },
  { name: 'hostexporter.httpUsername', type: 'string', default: '', env: ['DB_ADAPTER_HOSTEXPORTER_HTTP_USERNAME'],
    description: 'basic-auth user sent to the exporter' },
  { name: 'hostexporter.insecureSkipVerify', type: 'bool', default: true, env: ['DB_ADAPTER_HOSTEXPORTER_INSECURE_SKIP_VERIFY'],
    description: 'do not verify the exporter TLS certificate' },
  { name: 'hostexporter.keyFile', type: 'string', default: '', env: ['DB_ADAPTER_HOSTEXPORTER_KEY_FILE'],
    description: 'client key file' },
  { name: 'hostexporter.password', type: 'string', default: DEFAULT_PASSWORD, env: ['DB_ADAPTER_HOSTEXPORTER_PASSWORD'],
    description: 'database password' },
  { name: 'hostexporter.responseTimeout', type: 'duration', default: '5s', env: ['DB_ADAPTER_HOSTEXPORTER_RESPONSE_TIMEOUT'],
    rule: POSITIVE, description: 'scrape timeout' },
  { name: 'hostexporter.ttl', type: 'int', default: 0, env: ['DB_ADAPTER_HOSTEXPORTER_TTL'],
    description: 'table time-to-live in days; 0 means none' },
  { name: 'hostexporter.urls', type: 'strings', default: ['http://localhost:9100'], env: ['DB_ADAPTER_HOSTEXPORTER_URLS'],
    description: 'exporter URLs to scrape' },
  { name: 'hostexporter.user', type: 'string', default: 'root', env: ['DB_ADAPTER_HOSTEXPORTER_USER'],
    description: 'database user' },
] as const satisfies readonly FlagDef[]

/** TOML location of a flag: the part before the dot is the section, the rest the key. */
export function tomlLocation(name: string): { section: string; key: string } {
  const dot = name.indexOf('.')
  return dot < 0 ? { section: '', key: name } : { section: name.slice(0, dot), key: name.slice(dot + 1) }
}

// ---- AppConfig derived from the schema -------------------------------------------------------

interface ValueTypes {
  bool: boolean
  int: number
  uint: number
  float: number
  string: string
  duration: number
  size: number
  strings: string[]
  ints: number[]
  stringArray: string[]
}
type Def = (typeof SCHEMA)[number]
type ValueOf<D> = D extends { choices: readonly (infer C)[] }
  ? C
  : D extends { type: infer T extends FlagType }
    ? ValueTypes[T]
    : never
type TopName<N> = N extends `${string}.${string}` ? never : N
type SectionName<N> = N extends `${infer S}.${string}` ? S : never

export type SchemaConfig = {
  [D in Def as TopName<D['name']>]: ValueOf<D>
} & {
  [S in SectionName<Def['name']>]: {
    [D in Def as D['name'] extends `${S}.${infer K}` ? K : never]: ValueOf<D>
  }
}

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
/** Fails `tsc` when a schema entry and AppConfig disagree on a key or a value type. */
export const SCHEMA_MATCHES_APP_CONFIG: Same<SchemaConfig, AppConfig> = true
