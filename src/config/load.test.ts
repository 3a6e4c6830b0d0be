import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigError, defaultConfig, loadConfig, type LoadResult } from './load.js'
import type { AppConfig } from './types.js'

/** A fresh working directory holding the given files (`adapter.toml` acts as the default config file). */
function sandbox(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'db-adapter-config-'))
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true })
    writeFileSync(path.join(dir, name), text)
  }
  return dir
}

function load(argv: string[], env: Record<string, string> = {}, files: Record<string, string> = {}) {
  const cwd = sandbox(files)
  const r = loadConfig(argv, env, { cwd, defaultConfigPath: path.join(cwd, 'adapter.toml') })
  if (r.kind !== 'run') {
    throw new Error(`expected run, got ${r.kind}`)
  }
  return { ...r, cwd }
}

function loadError(argv: string[], env: Record<string, string> = {}, files: Record<string, string> = {}): ConfigError {
  try {
    load(argv, env, files)
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError)
    expect((err as ConfigError).exitCode).toBe(2)
    return err as ConfigError
  }
  throw new Error('expected a ConfigError')
}

const GB = 1024 ** 3
const TAOSDATA = 'taosdata'

/** Every default, written out from the spec's configuration tables (durations ms, sizes bytes). */
const SPEC_DEFAULTS: AppConfig = {
  config: '',
  port: 6041,
  host: '',
  debug: true,
  logLevel: 'info',
  dbConfigDir: '',
  httpCodeServerError: false,
  restfulRowLimit: -1,
  smlAutoCreateDB: false,
  schemaless: { maxStablesPerDatabase: 10000, maxTablesPerDatabase: 1000000 },
  storage: { url: 'duckdb:./data/db-adapter.duckdb', memoryLimit: 0 },
  auth: { rootPassword: TAOSDATA },
  rest: { tokens: [], queryTimeout: 0 },
  http: { maxBodySize: 64 * 1024 * 1024, maxConnections: 4096 },
  shutdown: { gracePeriod: 25_000 },
  lineproto: { enable: true, parseWorkers: -1, columnarLane: true },
  tsdbproto: { enable: true },
  metricsproto: { enable: true },
  log: {
    enableFile: true,
    enableRecordHttpSql: false,
    path: '/var/log/db',
    rotationCount: 30,
    rotationSize: GB,
    rotationTime: 24 * 3600 * 1000,
    sqlRotationCount: 2,
    sqlRotationSize: GB,
    sqlRotationTime: 24 * 3600 * 1000,
    slowQueryThreshold: 10_000,
  },
  cors: {
    allowAllOrigins: true,
    allowCredentials: false,
    allowHeaders: [],
    allowOrigins: [],
    allowWebSockets: false,
    exposeHeaders: [],
  },
  monitor: {
    collectDuration: 3000,
    disable: false,
    disableCollectClientIP: false,
    identity: '',
    incgroup: false,
    password: TAOSDATA,
    pauseAllMemoryThreshold: 80,
    pauseQueryMemoryThreshold: 70,
    user: 'root',
    workMemory: 0,
    workWait: 5000,
    writeInterval: 30_000,
    writeToDB: false,
  },
  pool: { idleTimeout: 0, maxConnect: 0, maxIdle: 0 },
  tmq: { releaseIntervalMultiplierForAutocommit: 2 },
  collagent: { db: 'collagent', enable: true, password: TAOSDATA, port: 6045, ttl: 0, user: 'root', udpReceiveBuffer: 4 * 1024 * 1024, worker: 10 },
  tsdbproto_telnet: {
    batchSize: 1,
    dbs: ['tsdbproto_telnet', 'collagent_tsdb', 'agentb_tsdb', 'agentc_tsdb'],
    enable: false,
    flushInterval: 0,
    maxTCPConnections: 250,
    password: TAOSDATA,
    ports: [6046, 6047, 6048, 6049],
    tcpKeepAlive: false,
    ttl: 0,
    user: 'root',
  },
  statsagent: {
    allowPendingMessages: 50000,
    db: 'statsagent',
    deleteCounters: true,
    deleteGauges: true,
    deleteSets: true,
    deleteTimings: true,
    enable: true,
    gatherInterval: 5000,
    maxTCPConnections: 250,
    password: TAOSDATA,
    port: 6044,
    protocol: 'udp',
    tcpKeepAlive: false,
    ttl: 0,
    udpReceiveBuffer: 4 * 1024 * 1024,
    user: 'root',
    worker: 10,
  },
  // issue 36's management server
  manager: { cpuDuration: 300_000, cpuThreshold: 90, enable: true, eventRetention: 720 * 3_600_000, healthInterval: 10_000, port: 6060 },
  hostexporter: {
    caCertFile: '',
    certFile: '',
    db: 'hostexporter',
    enable: false,
    gatherDuration: 5000,
    httpBearerTokenString: '',
    httpPassword: '',
    httpUsername: '',
    insecureSkipVerify: true,
    keyFile: '',
    password: TAOSDATA,
    responseTimeout: 5000,
    ttl: 0,
    urls: ['http://localhost:9100'],
    user: 'root',
  },
}

describe('defaults', () => {
  it('defaultConfig() holds the spec defaults', () => {
    expect(defaultConfig()).toEqual(SPEC_DEFAULTS)
  })

  it('no sources at all gives the defaults, a warning about the missing file, and config ""', () => {
    const { config, warnings, cwd } = load([])
    expect(config).toEqual(SPEC_DEFAULTS)
    expect(warnings).toEqual([`config file ${path.join(cwd, 'adapter.toml')} not found; using command line, environment, .env and defaults`])
  })

  it.skipIf(existsSync('/etc/db/adapter.toml'))('a missing /etc/db/adapter.toml (the real default) is fine', () => {
    const r = loadConfig([], {}, { cwd: sandbox() })
    expect(r.kind).toBe('run')
    expect(r.kind === 'run' && r.warnings[0]).toContain('/etc/db/adapter.toml not found')
    expect(r.kind === 'run' && r.config.config).toBe('')
  })

  it('returns a fresh object each time', () => {
    const a = defaultConfig()
    a.tsdbproto_telnet.ports.push(1)
    expect(defaultConfig().tsdbproto_telnet.ports).toEqual([6046, 6047, 6048, 6049])
  })
})

describe('precedence: command line > env > TOML > .env > default', () => {
  const layers = {
    cli: ['--port=1004', '--log.path=/cli'],
    env: { DB_ADAPTER_PORT: '1003', DB_ADAPTER_LOG_PATH: '/env' },
    toml: 'port = 1002\n[log]\npath = "/toml"\n',
    dotenv: 'DB_ADAPTER_PORT=1001\nDB_ADAPTER_LOG_PATH=/dotenv\n',
  }
  it.each([
    ['all four', true, true, true, true, 1004, '/cli'],
    ['env, TOML, .env', false, true, true, true, 1003, '/env'],
    ['TOML, .env', false, false, true, true, 1002, '/toml'],
    ['.env only', false, false, false, true, 1001, '/dotenv'],
    ['none', false, false, false, false, 6041, '/var/log/db'],
    ['command line over TOML', true, false, true, false, 1004, '/cli'],
    ['env over .env', false, true, false, true, 1003, '/env'],
  ])('%s', (_name, cli, env, toml, dotenv, port, logPath) => {
    const files: Record<string, string> = {}
    if (toml) {
      files['adapter.toml'] = layers.toml
    }
    if (dotenv) {
      files['.env'] = layers.dotenv
    }
    const { config } = load(cli ? layers.cli : [], env ? layers.env : {}, files)
    expect(config.port).toBe(port)
    expect(config.log.path).toBe(logPath)
  })

  it('a list from a higher layer replaces, not merges, the lower one', () => {
    const { config } = load(['--hostexporter.urls=http://a:1'], { DB_ADAPTER_HOSTEXPORTER_URLS: 'http://b:2' }, {
      'adapter.toml': '[hostexporter]\nurls = ["http://c:3"]\n',
    })
    expect(config.hostexporter.urls).toEqual(['http://a:1'])
  })

  it('.env is read as its own layer and never written into process.env', () => {
    const { config } = load([], {}, { '.env': 'DB_ADAPTER_MONITOR_IDENTITY=from-dotenv\n' })
    expect(config.monitor.identity).toBe('from-dotenv')
    expect(process.env.DB_ADAPTER_MONITOR_IDENTITY).toBeUndefined()
  })

  it('an empty env value counts as unset', () => {
    const { config } = load([], { DB_ADAPTER_PORT: '', DB_ADAPTER_LOG_PATH: '' }, { 'adapter.toml': 'port = 7000\n' })
    expect(config.port).toBe(7000)
    expect(config.log.path).toBe('/var/log/db')
  })

  it('a scalar flag given twice on the command line takes the last value', () => {
    expect(load(['--port=1', '-P', '2']).config.port).toBe(2)
  })
})

describe('environment names', () => {
  it('stray variables named like keys (PORT, DEBUG, LOGLEVEL, ...) change nothing, in env or .env', () => {
    const stray = {
      PORT: '1234',
      DEBUG: 'false',
      LOGLEVEL: 'trace',
      LOG_LEVEL: 'trace',
      RESTFULROWLIMIT: '5',
      HTTPCODESERVERERROR: 'true',
      SMLAUTOCREATEDB: 'true',
      DB_PORT: '1',
      TAOS_ADAPTER_PORT: '2',
    }
    const dotenv = Object.entries(stray).map(([k, v]) => `${k}=${v}`).join('\n')
    const { config } = load([], stray, { '.env': dotenv })
    expect(config).toEqual(SPEC_DEFAULTS)
  })

  it.each([
    ['DB_MONITOR_COLLECT_DURATION', '10s', (c: AppConfig) => c.monitor.collectDuration, 10_000],
    ['DB_MONITOR_INCGROUP', 'true', (c: AppConfig) => c.monitor.incgroup, true],
    ['DB_MONITOR_PAUSE_ALL_MEMORY_THRESHOLD', '90', (c: AppConfig) => c.monitor.pauseAllMemoryThreshold, 90],
    ['DB_MONITOR_PAUSE_QUERY_MEMORY_THRESHOLD', '60.5', (c: AppConfig) => c.monitor.pauseQueryMemoryThreshold, 60.5],
  ])('alternative name %s', (name, value, get, expected) => {
    expect(get(load([], { [name]: value }).config)).toBe(expected)
  })

  it('DB_ADAPTER_MONITOR_* wins over DB_MONITOR_*, with a warning when they differ', () => {
    const { config, warnings } = load([], { DB_ADAPTER_MONITOR_INCGROUP: 'false', DB_MONITOR_INCGROUP: 'true' })
    expect(config.monitor.incgroup).toBe(false)
    expect(warnings).toContain('DB_MONITOR_INCGROUP is ignored because DB_ADAPTER_MONITOR_INCGROUP is also set (env DB_ADAPTER_MONITOR_INCGROUP)')
  })

  it('CORS settings use the spec full names, mixed case included', () => {
    const { config } = load([], {
      DB_ADAPTER_CORS_ALLOW_ALL_ORIGINS: 'false',
      DB_ADAPTER_CORS_ALLOW_Credentials: 'true',
      DB_ADAPTER_ALLOW_HEADERS: 'X-A, X-B',
      DB_ADAPTER_ALLOW_ORIGINS: 'http://a.example http://b.example',
      DB_ADAPTER_CORS_ALLOW_WebSockets: 'true',
      DB_ADAPTER_Expose_Headers: 'X-C',
    })
    expect(config.cors).toEqual({
      allowAllOrigins: false,
      allowCredentials: true,
      allowHeaders: ['X-A', 'X-B'],
      allowOrigins: ['http://a.example', 'http://b.example'],
      allowWebSockets: true,
      exposeHeaders: ['X-C'],
    })
  })

  it('CORS names in another case or with the usual prefix pattern are not read, and are reported', () => {
    const { config, warnings } = load([], {
      DB_ADAPTER_CORS_ALLOW_CREDENTIALS: 'true',
      DB_ADAPTER_CORS_ALLOW_WEBSOCKETS: 'true',
      DB_ADAPTER_CORS_ALLOW_HEADERS: 'X-A',
      DB_ADAPTER_EXPOSE_HEADERS: 'X-C',
    })
    expect(config.cors).toEqual(SPEC_DEFAULTS.cors)
    expect(warnings).toContain(
      'unknown variable env DB_ADAPTER_CORS_ALLOW_CREDENTIALS is ignored (did you mean DB_ADAPTER_CORS_ALLOW_Credentials?)',
    )
    expect(warnings).toContain('unknown variable env DB_ADAPTER_CORS_ALLOW_HEADERS is ignored')
  })

  it('a misspelt DB_ADAPTER_ variable in .env is reported, other variables are not', () => {
    const { warnings, cwd } = load([], { HOME: '/root', PORT: '1' }, { '.env': 'DB_ADAPTER_PROT=1\nOTHER=2\n' })
    expect(warnings.filter((w) => w.startsWith('unknown variable'))).toEqual([
      `unknown variable DB_ADAPTER_PROT in ${path.join(cwd, '.env')} is ignored`,
    ])
  })

  it('the additions have their own names', () => {
    const { config } = load([], {
      DB_ADAPTER_STORAGE_URL: 'postgres://u:p@db:5432/x',
      DB_ADAPTER_HOST: '127.0.0.1',
      DB_ADAPTER_AUTH_ROOT_PASSWORD: 's3cret',
      DB_ADAPTER_REST_TOKENS: 'abc=root,def=alice',
      DB_ADAPTER_HTTP_MAX_BODY_SIZE: '8MB',
      DB_ADAPTER_HTTP_MAX_CONNECTIONS: '100',
      DB_ADAPTER_DB_CONFIG_FILE: '/etc/db',
    })
    expect(config.storage.url).toBe('postgres://u:p@db:5432/x')
    expect(config.host).toBe('127.0.0.1')
    expect(config.auth.rootPassword).toBe('s3cret')
    expect(config.rest.tokens).toEqual(['abc=root', 'def=alice'])
    expect(config.http.maxBodySize).toBe(8 * 1024 * 1024)
    expect(config.http.maxConnections).toBe(100)
    expect(config.dbConfigDir).toBe('/etc/db')
  })

  it('tells the flags a source set from those left at their default (auth.rootPassword applies only when given)', () => {
    const pw = 'auth.rootPassword'
    expect(load([]).given.has(pw)).toBe(false)
    // given as its default value is still given: the operator asked for that password
    expect(load([`--${pw}=taosdata`]).given.has(pw)).toBe(true)
    expect(load([], { DB_ADAPTER_AUTH_ROOT_PASSWORD: 'x' }).given.has(pw)).toBe(true)
    expect(load([], {}, { 'adapter.toml': '[auth]\nrootPassword = "x"\n' }).given.has(pw)).toBe(true)
    expect(load([], {}, { '.env': 'DB_ADAPTER_AUTH_ROOT_PASSWORD=x\n' }).given.has(pw)).toBe(true)
    const r = load(['--port=7000'])
    expect([...r.given]).toEqual(['port'])
  })
})

describe('value forms', () => {
  it('bool flags: bare, =true, =false, =0, and env forms', () => {
    expect(load(['--debug=false']).config.debug).toBe(false)
    expect(load(['--smlAutoCreateDB']).config.smlAutoCreateDB).toBe(true)
    expect(load(['--lineproto.enable=0']).config.lineproto.enable).toBe(false)
    expect(load([], { DB_ADAPTER_DEBUG: 'F' }).config.debug).toBe(false)
  })

  it('lists on the command line: repeated flags and commas', () => {
    const { config } = load([
      '--tsdbproto_telnet.ports=7001,7002',
      '--tsdbproto_telnet.ports', '7003',
      '--tsdbproto_telnet.dbs=a', '--tsdbproto_telnet.dbs=b,c',
      '--cors.allowHeaders=X-A,X-B', '--cors.allowHeaders=X-C',
    ])
    expect(config.tsdbproto_telnet.ports).toEqual([7001, 7002, 7003])
    expect(config.tsdbproto_telnet.dbs).toEqual(['a', 'b', 'c'])
    expect(config.cors.allowHeaders).toEqual(['X-A', 'X-B', 'X-C'])
  })

  it('an empty list value clears the default', () => {
    expect(load(['--hostexporter.urls=']).config.hostexporter.urls).toEqual([])
  })

  it('lists in env: commas, spaces or both', () => {
    const { config } = load([], {
      DB_ADAPTER_TSDBPROTO_TELNET_PORTS: '7001, 7002 7003',
      DB_ADAPTER_TSDBPROTO_TELNET_DBS: 'a b,c',
      DB_ADAPTER_HOSTEXPORTER_URLS: 'http://a:9100,http://b:9100',
    })
    expect(config.tsdbproto_telnet.ports).toEqual([7001, 7002, 7003])
    expect(config.tsdbproto_telnet.dbs).toEqual(['a', 'b', 'c'])
    expect(config.hostexporter.urls).toEqual(['http://a:9100', 'http://b:9100'])
  })

  it('durations and sizes from every source', () => {
    const { config } = load(['--log.rotationTime=1h30m'], { DB_ADAPTER_MONITOR_WRITE_INTERVAL: '1m30s' }, {
      'adapter.toml': '[log]\nrotationSize = "500MB"\nsqlRotationSize = "64KB"\n[statsagent]\ngatherInterval = "500ms"\n',
    })
    expect(config.log.rotationTime).toBe(90 * 60_000)
    expect(config.monitor.writeInterval).toBe(90_000)
    expect(config.log.rotationSize).toBe(500 * 1024 * 1024)
    expect(config.log.sqlRotationSize).toBe(64 * 1024)
    expect(config.statsagent.gatherInterval).toBe(500)
  })

  it('choices are case-insensitive and stored lower-case', () => {
    expect(load(['--logLevel=DEBUG']).config.logLevel).toBe('debug')
    expect(load([], { DB_ADAPTER_STATSAGENT_PROTOCOL: 'TCP' }).config.statsagent.protocol).toBe('tcp')
  })

  it.each(['duckdb:./x.duckdb', 'duckdb::memory:', 'postgres://u@h/db', 'postgresql://h/db'])('storage.url %s is accepted', (url) => {
    expect(load([`--storage.url=${url}`]).config.storage.url).toBe(url)
  })
})

describe('TOML file', () => {
  it('reads sections, arrays and case-insensitive keys, and reports the file read', () => {
    const toml = [
      'Port = 6050',
      'SMLAutoCreateDB = true',
      'restfulRowLimit = 100',
      '[Monitor]',
      'PauseAllMemoryThreshold = 85.5',
      'collectDuration = "5s"',
      '[tsdbproto_telnet]',
      'enable = true',
      'dbs = ["tsdbproto_telnet", "collagent", "agentb", "agentc"]',
      'ports = [6046, 6047, 6048, 6049]',
      '[cors]',
      'allowOrigins = ["http://a.example"]',
      '[rest]',
      'tokens = ["abc=root"]',
    ].join('\n')
    const { config, warnings, cwd } = load([], {}, { 'adapter.toml': toml })
    expect(warnings).toEqual([])
    expect(config.config).toBe(path.join(cwd, 'adapter.toml'))
    expect(config.port).toBe(6050)
    expect(config.smlAutoCreateDB).toBe(true)
    expect(config.restfulRowLimit).toBe(100)
    expect(config.monitor.pauseAllMemoryThreshold).toBe(85.5)
    expect(config.monitor.collectDuration).toBe(5000)
    expect(config.tsdbproto_telnet.enable).toBe(true)
    expect(config.tsdbproto_telnet.dbs).toEqual(['tsdbproto_telnet', 'collagent', 'agentb', 'agentc'])
    expect(config.tsdbproto_telnet.ports).toEqual([6046, 6047, 6048, 6049])
    expect(config.cors.allowOrigins).toEqual(['http://a.example'])
    expect(config.rest.tokens).toEqual(['abc=root'])
  })

  it('a list key given as a string splits like env', () => {
    const { config } = load([], {}, { 'adapter.toml': '[hostexporter]\nurls = "http://a:1,http://b:2"\n' })
    expect(config.hostexporter.urls).toEqual(['http://a:1', 'http://b:2'])
  })

  it('-c names the file, relative to the working directory', () => {
    const { config, cwd } = load(['-c', 'conf/my.toml'], {}, { 'conf/my.toml': 'port = 6099\n' })
    expect(config.port).toBe(6099)
    expect(config.config).toBe(path.join(cwd, 'conf/my.toml'))
  })

  it('--config replaces the default file (which is then not read)', () => {
    const { config } = load(['--config=other.toml'], {}, { 'adapter.toml': 'port = 1\n', 'other.toml': 'debug = false\n' })
    expect(config.port).toBe(6041)
    expect(config.debug).toBe(false)
  })

  it('a missing explicitly named file is an error', () => {
    const err = loadError(['-c', 'nope.toml'])
    expect(err.message).toMatch(/^config file ".*nope\.toml" given by -c\/--config does not exist$/)
  })

  it('a parse error names the file and the line', () => {
    const err = loadError([], {}, { 'adapter.toml': 'port = 6041\n[log]\npath = "/x\n' })
    expect(err.message).toMatch(/^invalid TOML in .*adapter\.toml at line 3, column \d+: /)
  })

  it('a config path that is a directory, or a .env that is a directory, is an error', () => {
    expect(loadError(['-c', 'conf'], {}, { 'conf/x.toml': '' }).message).toMatch(/^config file ".*conf" is not a regular file$/)
    expect(loadError([], {}, { '.env/x': '' }).message).toMatch(/^\.env file ".*\.env" is not a regular file$/)
  })

  it('unknown keys and sections are warnings, not errors', () => {
    const { warnings, config } = load([], {}, { 'adapter.toml': 'bogus = 1\nconfig = "/x.toml"\n[ssl]\nenable = true\n[log]\nnope = 2\n' })
    expect(config.config).not.toBe('/x.toml')
    expect(warnings).toEqual([
      expect.stringMatching(/^unknown key bogus in .*adapter\.toml is ignored$/),
      expect.stringMatching(/^unknown key config in /),
      expect.stringMatching(/^unknown key \[ssl\] enable in /),
      expect.stringMatching(/^unknown key \[log\] nope in /),
    ])
  })

  it('type errors name the TOML location', () => {
    expect(loadError([], {}, { 'adapter.toml': 'port = "abc"\n' }).message).toMatch(
      /^invalid value "abc" for --port \(port in .*adapter\.toml\): must be an integer$/,
    )
    expect(loadError([], {}, { 'adapter.toml': 'debug = 3\n' }).message).toMatch(
      /^invalid value "3" for --debug \(debug in .*\): must be a boolean/,
    )
    expect(loadError([], {}, { 'adapter.toml': '[monitor]\nwriteInterval = 30\n' }).message).toMatch(
      /^invalid value "30" for --monitor.writeInterval \(\[monitor\] writeInterval in .*\): must be a duration with a unit/,
    )
    expect(loadError([], {}, { 'adapter.toml': 'port = [1, 2]\n' }).message).toMatch(
      /^invalid value \["1","2"\] for --port \(port in .*\): must be a single int, not a list$/,
    )
  })
})

describe('validation errors name flag, value and rule', () => {
  it.each<[string, string[], Record<string, string>, string]>([
    ['port range via env', [], { DB_ADAPTER_PORT: '70000' },
      'invalid value "70000" for --port (env DB_ADAPTER_PORT): must be an integer between 1 and 65535'],
    ['port 0', ['-P', '0'], {}, 'invalid value "0" for --port (command line): must be an integer between 1 and 65535'],
    ['port not a number', ['--port=http'], {}, 'invalid value "http" for --port (command line): must be an integer'],
    ['negative connection cap', ['--http.maxConnections=-1'], {},
      'invalid value "-1" for --http.maxConnections (command line): must be 0 (no cap) or a connection count'],
    ['collagent port', ['--collagent.port=65536'], {},
      'invalid value "65536" for --collagent.port (command line): must be an integer between 1 and 65535'],
    ['statsagent port', [], { DB_ADAPTER_STATSAGENT_PORT: '-5' },
      'invalid value "-5" for --statsagent.port (env DB_ADAPTER_STATSAGENT_PORT): must be an integer between 1 and 65535'],
    ['telnet port item', ['--tsdbproto_telnet.ports=6046,0,6048,6049'], {},
      'invalid value "0" for --tsdbproto_telnet.ports (command line): must be an integer between 1 and 65535'],
    ['telnet port item not int', [], { DB_ADAPTER_TSDBPROTO_TELNET_PORTS: '6046 x' },
      'invalid value "x" for --tsdbproto_telnet.ports (env DB_ADAPTER_TSDBPROTO_TELNET_PORTS): must be an integer'],
    ['threshold above 100', ['--monitor.pauseAllMemoryThreshold=101'], {},
      'invalid value "101" for --monitor.pauseAllMemoryThreshold (command line): must be a number between -1 and 100'],
    ['threshold below -1', [], { DB_MONITOR_PAUSE_QUERY_MEMORY_THRESHOLD: '-2' },
      'invalid value "-2" for --monitor.pauseQueryMemoryThreshold (env DB_MONITOR_PAUSE_QUERY_MEMORY_THRESHOLD): must be a number between -1 and 100'],
    ['threshold not a number', ['--monitor.pauseAllMemoryThreshold=80%'], {},
      'invalid value "80%" for --monitor.pauseAllMemoryThreshold (command line): must be a number'],
    ['tmq 0', ['--tmq.releaseIntervalMultiplierForAutocommit=0'], {},
      'invalid value "0" for --tmq.releaseIntervalMultiplierForAutocommit (command line): must be an integer between 1 and 10'],
    ['tmq 11', [], { DB_ADAPTER_TMQ_RELEASE_INTERVAL_MULTIPLIER_FOR_AUTOCOMMIT: '11' },
      'invalid value "11" for --tmq.releaseIntervalMultiplierForAutocommit (env DB_ADAPTER_TMQ_RELEASE_INTERVAL_MULTIPLIER_FOR_AUTOCOMMIT): must be an integer between 1 and 10'],
    ['size unit', ['--log.rotationSize=1TB'], {},
      'invalid value "1TB" for --log.rotationSize (command line): must be a size like 64KB, 500MB or 1GB'],
    ['size zero', [], { DB_ADAPTER_LOG_SQL_ROTATION_SIZE: '0MB' },
      'invalid value "0MB" for --log.sqlRotationSize (env DB_ADAPTER_LOG_SQL_ROTATION_SIZE): must be greater than 0'],
    ['body size', ['--http.maxBodySize=lots'], {},
      'invalid value "lots" for --http.maxBodySize (command line): must be a size like 64KB, 500MB or 1GB'],
    ['bare-number duration', ['--monitor.collectDuration=3'], {},
      'invalid value "3" for --monitor.collectDuration (command line): must be a duration with a unit, like 500ms, 3s, 1m30s or 24h0m0s'],
    ['bad duration unit', [], { DB_ADAPTER_LOG_ROTATION_TIME: '1d' },
      'invalid value "1d" for --log.rotationTime (env DB_ADAPTER_LOG_ROTATION_TIME): must be a duration with a unit, like 500ms, 3s, 1m30s or 24h0m0s'],
    ['zero sampling interval', ['--monitor.collectDuration=0s'], {},
      'invalid value "0s" for --monitor.collectDuration (command line): must be greater than 0'],
    ['protocol', ['--statsagent.protocol=sctp'], {},
      'invalid value "sctp" for --statsagent.protocol (command line): must be one of tcp, udp'],
    ['log level', [], { DB_ADAPTER_LOG_LEVEL: 'verbose' },
      'invalid value "verbose" for --logLevel (env DB_ADAPTER_LOG_LEVEL): must be one of panic, fatal, error, warn, warning, info, debug, trace'],
    ['bool', ['--debug=yes'], {}, 'invalid value "yes" for --debug (command line): must be a boolean (true, false, 1, 0, t, f)'],
    ['uint', ['--log.rotationCount=-1'], {}, 'invalid value "-1" for --log.rotationCount (command line): must be an integer >= 0'],
    ['int with fraction', ['--collagent.worker=1.5'], {}, 'invalid value "1.5" for --collagent.worker (command line): must be an integer'],
    ['row limit', ['--restfulRowLimit=-2'], {},
      'invalid value "-2" for --restfulRowLimit (command line): must be -1 (no limit) or a row count >= 0'],
    ['storage url', [], { DB_ADAPTER_STORAGE_URL: 'mysql://x' },
      'invalid value "mysql://x" for --storage.url (env DB_ADAPTER_STORAGE_URL): must be duckdb:<path>, duckdb::memory: or postgres://...'],
    ['rest token', ['--rest.tokens=abc'], {}, 'invalid value "abc" for --rest.tokens (command line): must be token=user'],
  ])('%s', (_name, argv, env, message) => {
    expect(loadError(argv, env).message).toBe(message)
  })

  it('a value from .env names the .env file', () => {
    const err = loadError([], {}, { '.env': 'DB_ADAPTER_PORT=0\n' })
    expect(err.message).toMatch(/^invalid value "0" for --port \(DB_ADAPTER_PORT in .*\.env\): must be an integer between 1 and 65535$/)
  })

  it('telnet ports and dbs must have the same length', () => {
    const err = loadError(['--tsdbproto_telnet.ports=6046,6047'], {})
    expect(err.message).toBe(
      'invalid value for --tsdbproto_telnet.ports [6046,6047] (command line) and --tsdbproto_telnet.dbs ' +
        '[tsdbproto_telnet,collagent_tsdb,agentb_tsdb,agentc_tsdb] (default): ' +
        'ports and dbs pair by position and must have the same length (2 ports, 4 dbs)',
    )
    expect(load(['--tsdbproto_telnet.ports=6046,6047', '--tsdbproto_telnet.dbs=a,b']).config.tsdbproto_telnet).toMatchObject({
      ports: [6046, 6047],
      dbs: ['a', 'b'],
    })
  })

  it('boundary values are accepted', () => {
    const { config } = load([
      '--port=1', '--collagent.port=65535',
      '--monitor.pauseAllMemoryThreshold=100', '--monitor.pauseQueryMemoryThreshold=-1',
      '--tmq.releaseIntervalMultiplierForAutocommit=10', '--restfulRowLimit=0',
    ])
    expect([config.port, config.collagent.port]).toEqual([1, 65535])
    expect([config.monitor.pauseAllMemoryThreshold, config.monitor.pauseQueryMemoryThreshold]).toEqual([100, -1])
    expect(config.tmq.releaseIntervalMultiplierForAutocommit).toBe(10)
    expect(load(['--tmq.releaseIntervalMultiplierForAutocommit=1']).config.tmq.releaseIntervalMultiplierForAutocommit).toBe(1)
  })

  it('a bad value overridden by a higher layer is not an error (only the winning value is parsed)', () => {
    expect(load(['--port=6050'], { DB_ADAPTER_PORT: 'bad' }).config.port).toBe(6050)
  })

  it('an unknown flag is a ConfigError with exit code 2', () => {
    expect(loadError(['--nope=1']).message).toBe('unknown flag --nope; see --help')
  })
})

describe('--help and --version', () => {
  function text(r: LoadResult): string {
    if (r.kind === 'run') {
      throw new Error('expected text')
    }
    return r.text
  }

  it('--version prints db-adapter v<package.json version>', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
    expect(text(loadConfig(['--version'], {}))).toBe(`db-adapter v${pkg.version}`)
  })

  it('--help lists every flag with type, default and env names', () => {
    const help = text(loadConfig(['--help'], { DB_ADAPTER_PORT: 'ignored-for-help' }))
    expect(help).toMatch(/^Usage of db-adapter v\d+\.\d+\.\d+:/)
    expect(help).toContain('  -P, -p, --port int\n        HTTP port (default 6041; env DB_ADAPTER_PORT)\n')
    expect(help).toContain('  -c, --config string\n        configuration file path (default "/etc/db/adapter.toml")\n')
    expect(help).toContain('  --log.rotationTime duration\n        log file period (default 24h0m0s; env DB_ADAPTER_LOG_ROTATION_TIME)\n')
    expect(help).toContain(
      '(default 3s; env DB_ADAPTER_MONITOR_COLLECT_DURATION or DB_MONITOR_COLLECT_DURATION)',
    )
    expect(help).toContain('  --tsdbproto_telnet.ports ints\n')
    expect(help).toContain('(default [6046,6047,6048,6049]; env DB_ADAPTER_TSDBPROTO_TELNET_PORTS)')
    expect(help).toContain('  --statsagent.protocol string (tcp|udp)\n')
    expect(help).toContain('env DB_ADAPTER_CORS_ALLOW_Credentials')
    expect(help).toContain('env DB_ADAPTER_Expose_Headers')
    expect(help).toContain('  -h, --help\n')
    expect(help).toContain('  --version\n')
    // one entry per AppConfig leaf: count flag lines
    const flagLines = help.split('\n').filter((l) => /^ {2}(-\w, )*--[\w.]+ \w+/.test(l))
    expect(flagLines).toHaveLength(countLeaves(SPEC_DEFAULTS))
  })
})

function countLeaves(obj: object): number {
  return Object.values(obj).reduce<number>(
    (n, v) => n + (typeof v === 'object' && v !== null && !Array.isArray(v) ? countLeaves(v as object) : 1),
    0,
  )
}
