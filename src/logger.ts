/**
 * @module
 * Structured logs (pino JSON, levels as names) to stdout and, unless `log.enableFile` is false,
 * to rotating files under `log.path`, plus the optional
 * HTTP SQL log (`log.enableRecordHttpSql`) with its own `log.sql*` rotation.
 *
 * Rotation is done by rotating-file-stream (size, interval, file count, custom file names), with
 * the original's naming: `db-adapter_YYYY_MM_DD_HH_MM.log` where the time is local wall-clock time
 * truncated to a multiple of `log.rotationTime`; further files of one period (size rotation) get
 * `.1`, `.2` ... before `.log`, and every file counts against `log.rotationCount`.
 *
 * Logging must never block or crash the server: stdout writes are asynchronous with a bounded
 * buffer (lines are dropped, not queued forever, when stdout stalls); a log directory that cannot
 * be written is reported once on stdout and logging continues to stdout only; a file error at run
 * time does the same.
 */
import { accessSync, constants as fsConstants, mkdirSync } from 'node:fs'
import { pino } from 'pino'
import type { DestinationStream, Level, Logger as PinoLogger } from 'pino'
import { createStream } from 'rotating-file-stream'
import type { RotatingFileStream } from 'rotating-file-stream'
import type { AppConfig, LogLevel } from './config/types.js'

/** Structured logger (pino). Created once in the lifecycle from the log.* settings. */
export type Logger = PinoLogger

export interface LoggerHandle {
  logger: Logger
  /** present when `log.enableRecordHttpSql`: one line per HTTP request that carried SQL */
  sqlLogger?: Logger
  /**
   * Writes out everything buffered and closes the log files (bounded by 5 s). Call once, at
   * shutdown; lines logged afterwards still reach stdout.
   */
  flush(): Promise<void>
}

export interface CreateLoggerOptions {
  /** where stdout lines go; default an asynchronous writer on fd 1 */
  stdout?: DestinationStream
}

export const LOG_FILE_PREFIX = 'db-adapter'
export const SQL_LOG_FILE_PREFIX = 'httpsql'
/** bytes a stalled destination may hold before further lines are dropped */
const MAX_PENDING_BYTES = 16 * 1024 * 1024
const FLUSH_TIMEOUT_MS = 5000

/** The spec accepts logrus level names; pino knows `warn` and `fatal` for `warning` and `panic`. */
export function pinoLevel(level: LogLevel): Level {
  switch (level) {
    case 'warning':
      return 'warn'
    case 'panic':
      return 'fatal'
    default:
      return level
  }
}

/** `"level":"info"` instead of pino's numbers: log pipelines and people read names */
const LEVEL_NAMES = { level: (label: string) => ({ level: label }) }

const pad = (n: number, width = 2): string => String(n).padStart(width, '0')

/**
 * File name for a write at `epochMs`: local wall-clock time (offset `tzOffsetMinutes`, as
 * `Date#getTimezoneOffset` gives it) truncated to a multiple of `rotationMs` computed as if local
 * time were UTC, so 24 h periods start at local midnight like the original's.
 * `generation` 0 is the period's first file; size rotation adds 1, 2, ...
 */
export function logFileName(
  prefix: string,
  epochMs: number,
  tzOffsetMinutes: number,
  rotationMs: number,
  generation = 0,
): string {
  const local = epochMs - tzOffsetMinutes * 60_000
  const start = rotationMs > 0 ? Math.floor(local / rotationMs) * rotationMs : local
  const d = new Date(start)
  const stamp = `${d.getUTCFullYear()}_${pad(d.getUTCMonth() + 1)}_${pad(d.getUTCDate())}_${pad(d.getUTCHours())}_${pad(d.getUTCMinutes())}`
  return `${prefix}_${stamp}${generation > 0 ? `.${generation}` : ''}.log`
}

/**
 * rotating-file-stream's timer accepts only whole days, hours dividing 24, minutes or seconds
 * dividing 60. Picks the largest such interval that divides `ms`, so rotation happens at (or, for
 * odd periods such as 90 min, also between) every boundary of `log.rotationTime`; file names still
 * follow the configured period (`logFileName`). Undefined when there is no time rotation.
 */
export function rotationInterval(ms: number): string | undefined {
  if (!(ms >= 1000)) {
    return ms > 0 ? '1s' : undefined
  }
  const day = 86_400_000
  if (ms % day === 0) {
    return `${ms / day}d`
  }
  const pick = (unitMs: number, divides: number, unit: string): string | undefined => {
    if (ms % unitMs !== 0) {
      return undefined
    }
    const n = ms / unitMs
    for (let k = Math.min(n, divides); k >= 1; k--) {
      if (divides % k === 0 && n % k === 0) {
        return `${k}${unit}`
      }
    }
    return undefined
  }
  return pick(3_600_000, 24, 'h') ?? pick(60_000, 60, 'm') ?? pick(1000, 60, 's') ?? '1s'
}

interface FileSinkSettings {
  dir: string
  prefix: string
  size: number
  timeMs: number
  count: number
}

/**
 * A pino destination over a rotating file that can only fail soft: once an error happens it turns
 * itself off and reports the error once; writes past MAX_PENDING_BYTES of backlog are dropped.
 */
class FileSink implements DestinationStream {
  #stream: RotatingFileStream | undefined
  #off = false
  #dropped = 0
  readonly #report: (err: unknown) => void

  constructor(settings: FileSinkSettings, report: (err: unknown) => void) {
    this.#report = report
    // Fail fast and synchronously on an unusable directory, before any line is lost silently.
    mkdirSync(settings.dir, { recursive: true, mode: 0o755 })
    accessSync(settings.dir, fsConstants.W_OK)
    const interval = rotationInterval(settings.timeMs)
    const stream = createStream(
      (time, index) =>
        logFileName(
          settings.prefix,
          time instanceof Date ? time.getTime() : Date.now(),
          new Date().getTimezoneOffset(),
          settings.timeMs,
          Math.max(0, (index ?? 1) - 1),
        ),
      {
        path: settings.dir,
        size: `${Math.max(1, settings.size)}B`,
        ...(interval ? { interval, immutable: true } : {}),
        // maxFiles counts finished files only; the one being written makes `count`
        // (a count of 1 still keeps one finished file: the library cannot keep zero)
        ...(settings.count > 0 ? { maxFiles: Math.max(1, settings.count - 1) } : {}),
        history: `.${settings.prefix}.history`,
        mode: 0o644,
      },
    )
    stream.on('error', (err) => {
      this.#fail(err)
    })
    this.#stream = stream
  }

  #fail(err: unknown): void {
    if (this.#off) {
      return
    }
    this.#off = true
    const stream = this.#stream
    this.#stream = undefined
    stream?.destroy()
    this.#report(err)
  }

  write(line: string): void {
    const stream = this.#stream
    if (this.#off || !stream) {
      return
    }
    if (stream.writableLength > MAX_PENDING_BYTES) {
      this.#dropped++
      return
    }
    stream.write(line)
  }

  get dropped(): number {
    return this.#dropped
  }

  /** Ends the file (flushing what is queued); resolves on close, error or timeout. */
  close(): Promise<void> {
    const stream = this.#stream
    this.#off = true
    this.#stream = undefined
    if (!stream) {
      return Promise.resolve()
    }
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, FLUSH_TIMEOUT_MS)
      timer.unref()
      const done = (): void => {
        clearTimeout(timer)
        resolve()
      }
      stream.once('finish', done)
      stream.once('close', done)
      stream.once('error', done)
      stream.end()
    })
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}

function defaultStdout(): DestinationStream & { flush(cb?: (err?: Error) => void): void } {
  const dest = pino.destination({ dest: 1, sync: false, maxLength: MAX_PENDING_BYTES })
  // EPIPE and friends on stdout must not become an uncaught 'error' event that kills the server.
  dest.on('error', () => undefined)
  return dest
}

export function createLogger(config: AppConfig, opts: CreateLoggerOptions = {}): LoggerHandle {
  const stdout = opts.stdout ?? defaultStdout()
  const level = pinoLevel(config.logLevel)
  const sinks: FileSink[] = []
  // Problems found before the logger exists are reported through it right after it is built.
  const pending: Array<() => void> = []
  // set once the logger exists; the reporter closure below needs it before that
  const built: { logger?: Logger } = {}

  const reporter = (what: string, path: string) => {
    let reported = false
    return (err: unknown): void => {
      if (reported) {
        return
      }
      reported = true
      const report = (): void => {
        built.logger?.error(
          { logPath: path, err: errorText(err) },
          `${what} cannot be written under log.path ${path}: ${errorText(err)}; logging continues to stdout only`,
        )
      }
      if (built.logger) {
        report()
      } else {
        pending.push(report)
      }
    }
  }

  const openSink = (settings: FileSinkSettings, what: string): FileSink | undefined => {
    const report = reporter(what, settings.dir)
    try {
      const sink = new FileSink(settings, report)
      sinks.push(sink)
      return sink
    } catch (err) {
      report(err)
      return undefined
    }
  }

  // log.enableFile false: stdout only (containers, where files would fill the data volume)
  const mainFile = !config.log.enableFile ? undefined : openSink(
    {
      dir: config.log.path,
      prefix: LOG_FILE_PREFIX,
      size: config.log.rotationSize,
      timeMs: config.log.rotationTime,
      count: config.log.rotationCount,
    },
    'log files',
  )
  const streams: pino.StreamEntry[] = [{ level: 'trace', stream: stdout }]
  if (mainFile) {
    streams.push({ level: 'trace', stream: mainFile })
  }
  const logger = pino(
    { level, timestamp: pino.stdTimeFunctions.isoTime, base: { pid: process.pid }, formatters: LEVEL_NAMES },
    pino.multistream(streams),
  )
  built.logger = logger

  for (const report of pending) {
    report()
  }

  let sqlLogger: Logger | undefined
  if (config.log.enableRecordHttpSql && !config.log.enableFile) {
    // no files: the SQL log was asked for, so its lines go to stdout, marked as such
    sqlLogger = pino({ level: 'info', timestamp: pino.stdTimeFunctions.isoTime, base: { log: 'httpsql' }, formatters: LEVEL_NAMES }, stdout)
  } else if (config.log.enableRecordHttpSql) {
    const sqlFile = openSink(
      {
        dir: config.log.path,
        prefix: SQL_LOG_FILE_PREFIX,
        size: config.log.sqlRotationSize,
        timeMs: config.log.sqlRotationTime,
        count: config.log.sqlRotationCount,
      },
      'the HTTP SQL log',
    )
    // The SQL log is a file of its own (as in the original); without a usable file its lines are
    // dropped rather than mixed into stdout.
    sqlLogger = pino(
      { level: 'info', timestamp: pino.stdTimeFunctions.isoTime, base: null, formatters: LEVEL_NAMES },
      sqlFile ?? { write: () => undefined },
    )
  }

  const flushStdout = (): Promise<void> =>
    new Promise<void>((resolve) => {
      const maybe = stdout as { flush?: (cb?: (err?: Error) => void) => void }
      if (typeof maybe.flush !== 'function') {
        resolve()
        return
      }
      const timer = setTimeout(resolve, FLUSH_TIMEOUT_MS)
      timer.unref()
      try {
        maybe.flush(() => {
          clearTimeout(timer)
          resolve()
        })
      } catch {
        clearTimeout(timer)
        resolve()
      }
    })

  let flushed: Promise<void> | undefined
  const flush = (): Promise<void> => {
    flushed ??= (async () => {
      const dropped = sinks.reduce((n, s) => n + s.dropped, 0)
      if (dropped > 0) {
        logger.warn({ dropped }, 'log lines dropped because the log files could not keep up')
      }
      await Promise.all(sinks.map((s) => s.close()))
      await flushStdout()
    })()
    return flushed
  }

  return { logger, ...(sqlLogger ? { sqlLogger } : {}), flush }
}
