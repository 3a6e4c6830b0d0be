/**
 * @module
 * The OpenTSDB telnet receivers (`tsdbproto_telnet.*`, adapter-behaviour 9): one TCP listener per
 * entry of `ports`, writing into the database at the same position of `dbs` as
 * `tsdbproto_telnet.user`. No client authentication and no replies, except `version`, which is
 * answered with the single byte `1` as the original does.
 *
 * Per connection, lines are cached and written when `batchSize` lines are there (every line a
 * read brought goes in the same write), every `flushInterval` when set, and when the connection
 * closes (also at shutdown). While a write runs, the connection is not read, so a slow database
 * pushes back on the client through TCP instead of growing a queue; storage trouble is retried
 * until shutdown. Lines are parsed by the HTTP endpoint's stream layer (TsdbStream.telnetLines).
 */
import { TsdbStream } from '../ingest/tsdbproto/stream.js'
import { TSDB_TS_PRECISION } from '../ingest/tsdbproto/telnet.js'
import type { IngestParseError } from '../ingest/errors.js'
import type { ReceiverDeps, RunningReceiver } from './collagent.js'
import { ReceiverSink } from './receiver-sink.js'
import { ThrottledLog } from './receiver-log.js'
import { startTcpLineListener, type TcpCloseReason, type TcpLineConnection, type TcpLineHandler, type TcpLineListener } from './tcp-listener.js'

const RECEIVER = 'tsdbproto_telnet'
/** longest line kept: TDengine's rows are at most 64 KB, so a longer put cannot be stored */
export const TELNET_MAX_LINE_BYTES = 64 * 1024
/**
 * lines cached per connection are written once they hold this much, whatever batchSize says:
 * bounds a connection's memory (250 connections x 4 ports x 1 MiB at worst)
 */
export const TELNET_MAX_BATCH_BYTES = 1024 * 1024
/** a connection silent this long is closed (agents send every few seconds to minutes; dead peers go) */
export const TELNET_IDLE_TIMEOUT_MS = 15 * 60_000

export interface TelnetReceiverOptions {
  /** default TELNET_IDLE_TIMEOUT_MS */
  idleTimeoutMs?: number
  /** wait before retrying a batch that failed on storage trouble (default 1000 ms) */
  retryMs?: number
}

/** Starts a listener per port; a port that cannot be bound stops the start (and the ones already up). */
export async function startTelnetReceivers(deps: ReceiverDeps, opts: TelnetReceiverOptions = {}): Promise<RunningReceiver[]> {
  const c = deps.config.tsdbproto_telnet
  if (c.ports.length !== c.dbs.length) {
    // config loading refuses this already; a programmatic config could still get here
    throw new Error(
      `--tsdbproto_telnet.ports (${c.ports.length}) and --tsdbproto_telnet.dbs (${c.dbs.length}) pair by position and must have the same length`,
    )
  }
  const started: RunningReceiver[] = []
  try {
    for (let i = 0; i < c.ports.length; i++) {
      started.push(await startOne(deps, opts, c.ports[i], c.dbs[i]))
    }
  } catch (err) {
    await Promise.all(started.map((r) => r.stop()))
    throw err
  }
  return started
}

async function startOne(deps: ReceiverDeps, opts: TelnetReceiverOptions, port: number, db: string): Promise<RunningReceiver> {
  const { config, logger, metrics } = deps
  const c = config.tsdbproto_telnet
  const log = new ThrottledLog(logger)
  const sink = new ReceiverSink({
    receiver: RECEIVER,
    db,
    user: c.user,
    password: c.password,
    ttl: c.ttl,
    storage: deps.storage,
    schemaless: deps.schemaless,
    metrics,
    log,
    precision: TSDB_TS_PRECISION,
  })
  const shared: Shared = {
    deps,
    sink,
    stream: new TsdbStream(deps.schemaless),
    log,
    db,
    port,
    batchSize: Math.max(1, c.batchSize),
    flushIntervalMs: c.flushInterval,
    retryMs: opts.retryMs ?? 1000,
    stopping: false,
  }
  let listener: TcpLineListener
  try {
    listener = await startTcpLineListener({
      host: config.host,
      port,
      maxConnections: c.maxTCPConnections,
      keepAlive: c.tcpKeepAlive,
      idleTimeoutMs: opts.idleTimeoutMs ?? TELNET_IDLE_TIMEOUT_MS,
      maxLineBytes: TELNET_MAX_LINE_BYTES,
      onConnection: (conn) => {
        metrics.connections.inc({ receiver: RECEIVER, result: 'accepted' })
        return new TelnetConnection(shared, conn)
      },
      onRefused: (remote) => {
        metrics.connections.inc({ receiver: RECEIVER, result: 'refused' })
        log.error('refused', { receiver: RECEIVER, port, remote, max: c.maxTCPConnections }, `${RECEIVER}: port ${port} has ${c.maxTCPConnections} connections (tsdbproto_telnet.maxTCPConnections); closed a new one`)
      },
    })
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message
    throw new Error(
      `tsdbproto_telnet.ports ${port}: cannot listen on TCP ${config.host || '*'}:${port} (${code}); ` +
        'choose other --tsdbproto_telnet.ports or turn the receivers off with --tsdbproto_telnet.enable=false',
      { cause: err },
    )
  }
  logger.info({ receiver: RECEIVER, port: listener.port, db }, `OpenTSDB telnet receiver listening on TCP ${listener.port} for database "${db}"`)
  return {
    port: listener.port,
    async stop() {
      shared.stopping = true
      // connections stop being read, write what they hold, then close
      await listener.close()
    },
  }
}

interface Shared {
  deps: ReceiverDeps
  sink: ReceiverSink
  stream: TsdbStream
  log: ThrottledLog
  db: string
  port: number
  batchSize: number
  flushIntervalMs: number
  retryMs: number
  stopping: boolean
}

/** One client: its cache of lines and the writes of it, one after the other. */
class TelnetConnection implements TcpLineHandler {
  #cache: string[] = []
  #cacheBytes = 0
  #writing: Promise<void> = Promise.resolve()
  readonly #timer: NodeJS.Timeout | undefined

  constructor(
    private readonly s: Shared,
    private readonly conn: TcpLineConnection,
  ) {
    if (s.flushIntervalMs > 0) {
      this.#timer = setInterval(() => void this.#flush(), s.flushIntervalMs)
      this.#timer.unref()
    }
  }

  onLines(lines: string[]): Promise<void> | undefined {
    const { deps } = this.s
    const paused = deps.allPaused()
    let dropped = 0
    for (const raw of lines) {
      const line = raw.trim()
      if (line === 'version') {
        // what the original answers (one byte, no newline); not data
        this.conn.write('1')
        continue
      }
      if (line === '') {
        continue
      }
      if (paused) {
        dropped++
        continue
      }
      this.#cache.push(line)
      this.#cacheBytes += line.length
    }
    if (dropped > 0) {
      deps.metrics.packets.inc({ receiver: RECEIVER, result: 'dropped' }, dropped)
    }
    if (this.#cache.length >= this.s.batchSize || this.#cacheBytes >= TELNET_MAX_BATCH_BYTES) {
      return this.#flush()
    }
    return undefined
  }

  onOverlong(): void {
    this.s.deps.metrics.packets.inc({ receiver: RECEIVER, result: 'malformed' })
    this.s.log.error('overlong', { receiver: RECEIVER, port: this.s.port, remote: this.conn.remote, maxBytes: TELNET_MAX_LINE_BYTES }, `${RECEIVER}: a line longer than ${TELNET_MAX_LINE_BYTES} bytes was skipped`)
  }

  onClose(reason: TcpCloseReason): Promise<void> {
    if (reason === 'idle') {
      this.s.deps.metrics.connections.inc({ receiver: RECEIVER, result: 'idle' })
    }
    if (this.#timer !== undefined) {
      clearInterval(this.#timer)
    }
    return this.#flush()
  }

  onError(err: Error): void {
    this.s.log.error('connection', { receiver: RECEIVER, port: this.s.port, remote: this.conn.remote, err: err.message }, `${RECEIVER}: connection error`)
  }

  /** queues a write of everything cached; resolves when it (and the ones before) are done */
  #flush(): Promise<void> {
    if (this.#cache.length === 0) {
      return this.#writing
    }
    const lines = this.#cache
    this.#cache = []
    this.#cacheBytes = 0
    this.#writing = this.#writing.then(() => this.#write(lines))
    return this.#writing
  }

  async #write(lines: string[]): Promise<void> {
    const s = this.s
    const { metrics } = s.deps
    let bad = { pass: 0, count: 0, first: undefined as IngestParseError | undefined }
    const source = s.stream.telnetLines(lines, (e, pass) => {
      if (pass !== bad.pass) {
        bad = { pass, count: 0, first: e }
      }
      bad.count++
    })
    for (;;) {
      bad = { pass: 0, count: 0, first: undefined }
      const r = await s.sink.write(source, lines.length, () => bad.count)
      if (r.outcome === 'done') {
        break
      }
      if (s.stopping) {
        // shutting down: one more try, then the lines are counted as lost
        const last = await s.sink.write(source, lines.length, () => bad.count)
        if (last.outcome === 'retry') {
          metrics.points.inc({ receiver: RECEIVER, result: 'dropped' }, lines.length)
        }
        break
      }
      await new Promise((resolve) => setTimeout(resolve, s.retryMs))
    }
    if (bad.count > 0) {
      metrics.packets.inc({ receiver: RECEIVER, result: 'malformed' }, bad.count)
      s.log.error(
        'malformed',
        { receiver: RECEIVER, port: s.port, db: s.db, remote: this.conn.remote, badLines: bad.count, of: lines.length, error: bad.first?.message },
        `${RECEIVER}: bad telnet line`,
      )
    }
    if (lines.length > bad.count) {
      metrics.packets.inc({ receiver: RECEIVER, result: 'accepted' }, lines.length - bad.count)
    }
  }
}
