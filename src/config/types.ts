/**
 * The validated configuration, one object passed to every factory (no module globals).
 *
 * Shape: one key per top-level flag, one nested object per flag section (`--log.path` ->
 * `config.log.path`). Durations are milliseconds, sizes are bytes, lists are arrays.
 * The schema in `schema.ts` is the single source of truth; this type must stay derivable from it.
 */
export type LogLevel = 'panic' | 'fatal' | 'error' | 'warn' | 'warning' | 'info' | 'debug' | 'trace'

export interface AppConfig {
  /** path of the TOML file that was read ('' when none) */
  config: string
  port: number
  /** listen address; '' or '0.0.0.0' means all interfaces */
  host: string
  debug: boolean
  logLevel: LogLevel
  dbConfigDir: string
  httpCodeServerError: boolean
  restfulRowLimit: number
  smlAutoCreateDB: boolean
  /** limits of schemaless writes per database; 0: no limit */
  schemaless: { maxStablesPerDatabase: number; maxTablesPerDatabase: number }

  storage: {
    url: string
    /** bytes; 0: derived from the memory limit (src/monitor/memory-budget.ts) */
    memoryLimit: number
  }
  auth: { rootPassword: string }
  /** `--rest.tokens token=user,...`: tokens accepted in the `?token=` query parameter */
  rest: {
    tokens: string[]
    /** ms; 0: no limit */
    queryTimeout: number
  }
  /** maxConnections: 0 means no cap */
  http: { maxBodySize: number; maxConnections: number }
  /** ms that accepted requests may run on after SIGTERM */
  shutdown: { gracePeriod: number }

  lineproto: { enable: boolean; parseWorkers: number; columnarLane: boolean }
  tsdbproto: { enable: boolean }
  metricsproto: { enable: boolean }

  log: {
    enableFile: boolean
    enableRecordHttpSql: boolean
    path: string
    rotationCount: number
    rotationSize: number
    rotationTime: number
    sqlRotationCount: number
    sqlRotationSize: number
    sqlRotationTime: number
    /** ms; 0: off */
    slowQueryThreshold: number
  }

  cors: {
    allowAllOrigins: boolean
    allowCredentials: boolean
    allowHeaders: string[]
    allowOrigins: string[]
    allowWebSockets: boolean
    exposeHeaders: string[]
  }

  monitor: {
    collectDuration: number
    disable: boolean
    disableCollectClientIP: boolean
    identity: string
    incgroup: boolean
    password: string
    pauseAllMemoryThreshold: number
    pauseQueryMemoryThreshold: number
    user: string
    /** bytes; 0: a quarter of the memory limit */
    workMemory: number
    /** ms */
    workWait: number
    writeInterval: number
    writeToDB: boolean
  }

  pool: { idleTimeout: number; maxConnect: number; maxIdle: number }
  tmq: { releaseIntervalMultiplierForAutocommit: number }

  collagent: {
    db: string
    enable: boolean
    password: string
    port: number
    ttl: number
    user: string
    /** bytes of SO_RCVBUF; 0: the system default */
    udpReceiveBuffer: number
    worker: number
  }

  tsdbproto_telnet: {
    batchSize: number
    dbs: string[]
    enable: boolean
    flushInterval: number
    maxTCPConnections: number
    password: string
    ports: number[]
    tcpKeepAlive: boolean
    ttl: number
    user: string
  }

  statsagent: {
    allowPendingMessages: number
    db: string
    deleteCounters: boolean
    deleteGauges: boolean
    deleteSets: boolean
    deleteTimings: boolean
    enable: boolean
    gatherInterval: number
    maxTCPConnections: number
    password: string
    port: number
    protocol: 'tcp' | 'udp'
    tcpKeepAlive: boolean
    ttl: number
    /** bytes; 0: the system default */
    udpReceiveBuffer: number
    user: string
    worker: number
  }

  manager: {
    /** ms */
    cpuDuration: number
    cpuThreshold: number
    enable: boolean
    /** ms */
    eventRetention: number
    /** ms */
    healthInterval: number
    port: number
  }

  hostexporter: {
    caCertFile: string
    certFile: string
    db: string
    enable: boolean
    gatherDuration: number
    httpBearerTokenString: string
    httpPassword: string
    httpUsername: string
    insecureSkipVerify: boolean
    keyFile: string
    password: string
    responseTimeout: number
    ttl: number
    urls: string[]
    user: string
  }
}
