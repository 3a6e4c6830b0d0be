/**
 * @module
 * OpenTelemetry tracing, configured only by the standard OTEL_* environment variables:
 * - on when `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set, or
 *   `OTEL_TRACES_EXPORTER` names an exporter (`otlp`, `console`, `zipkin`); off otherwise, and
 *   always off with `OTEL_SDK_DISABLED=true`. Off means no SDK, no middleware, no wrapping: the
 *   hot paths pay nothing.
 * - the exporter is what @opentelemetry/sdk-node builds from the environment (OTLP over
 *   http/protobuf by default, `OTEL_EXPORTER_OTLP_PROTOCOL` for http/json or grpc); its OTLP
 *   exporters come with sdk-node, so no extra package is needed.
 * - only traces: metrics are served by /metrics and logs by pino, so the SDK's metric and log
 *   exporters default to `none` here unless OTEL_METRICS_EXPORTER / OTEL_LOGS_EXPORTER say
 *   otherwise.
 * Spans: one SERVER span per HTTP request (W3C `traceparent` honoured) named `METHOD /route/:template`
 * (see tracedFetch),
 * and one CLIENT span per engine call (`db.exec`, `db.query`, `db.stream`, `db.writeRows`,
 * `db.transaction`) made through the wrapped Engine, so REST SQL and ingest writes both show where
 * their time goes.
 */
import { SpanKind, SpanStatusCode, context, propagation, trace } from '@opentelemetry/api'
import type { Span } from '@opentelemetry/api'
import type { MiddlewareHandler } from 'hono'
import { routeLabel } from './route-label.js'
import type { Logger } from '../logger.js'
import type { Storage } from '../sql/catalog/types.js'
import type { Engine, QueryOptions, RowBatch } from '../storage/types.js'

const TRACER = 'db-adapter'

export interface Tracing {
  enabled: boolean
  /** flushes and stops the exporter (no-op when off) */
  shutdown(): Promise<void>
}

/** True when the environment asks for traces (see the module doc). */
export function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') {
    return false
  }
  if ((env.OTEL_EXPORTER_OTLP_ENDPOINT ?? '') !== '' || (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? '') !== '') {
    return true
  }
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '' && s !== 'none')
  return exporters.length > 0
}

/**
 * Starts the SDK when requested. Call once per process (the tracer provider is global). The SDK is
 * imported only then: loading it costs ~0.8 s of start time, which an adapter without tracing
 * should not pay.
 */
export async function startTracing(logger: Logger, env: NodeJS.ProcessEnv = process.env): Promise<Tracing> {
  if (!tracingRequested(env)) {
    return { enabled: false, shutdown: () => Promise.resolve() }
  }
  const { NodeSDK } = await import('@opentelemetry/sdk-node')
  env.OTEL_METRICS_EXPORTER ??= 'none'
  env.OTEL_LOGS_EXPORTER ??= 'none'
  env.OTEL_SERVICE_NAME ??= 'db-adapter'
  const sdk = new NodeSDK({ instrumentations: [] })
  sdk.start()
  logger.info(
    { endpoint: env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT, exporter: env.OTEL_TRACES_EXPORTER ?? 'otlp' },
    'OpenTelemetry tracing on',
  )
  let done: Promise<void> | undefined
  return {
    enabled: true,
    shutdown: () => {
      done ??= sdk.shutdown().catch((err: unknown) => {
        logger.warn({ err }, 'OpenTelemetry shutdown failed')
      })
      return done
    },
  }
}

/**
 * Wraps the server's fetch in a SERVER span per request (W3C `traceparent` honoured). The span is
 * first named by method and path; route modules rename it to the route template with
 * `nameSpanByRoute()` (fixed paths like `/-/ping` already are their template), so span names stay
 * bounded like the metric labels. Wrapping fetch rather than adding app middleware keeps the span
 * around every middleware (gunzip, CORS, auth) and leaves src/http/app.ts untouched.
 */
export function tracedFetch<E>(fetch: (req: Request, env: E) => Response | Promise<Response>): (req: Request, env: E) => Promise<Response> {
  const tracer = trace.getTracer(TRACER)
  return async function traced(req, env) {
    const headers: Record<string, string> = {}
    req.headers.forEach((v, k) => {
      headers[k] = v
    })
    const parent = propagation.extract(context.active(), headers)
    const path = new URL(req.url).pathname
    const span = tracer.startSpan(
      FIXED_PATHS.has(path) ? `${req.method} ${path}` : req.method,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method, 'url.path': path, ...(FIXED_PATHS.has(path) ? { 'http.route': path } : {}) } },
      parent,
    )
    try {
      const res = await context.with(trace.setSpan(parent, span), () => fetch(req, env))
      span.setAttribute('http.response.status_code', res.status)
      if (res.status >= 500) {
        span.setStatus({ code: SpanStatusCode.ERROR })
      }
      return res
    } catch (err) {
      fail(span, err)
      throw err
    } finally {
      span.end()
    }
  }
}

const FIXED_PATHS = new Set(['/-/ping', '/-/live', '/metrics'])

/** Renames the request's SERVER span to `METHOD /route/:template` once the route is known. */
export function nameSpanByRoute(): MiddlewareHandler {
  return async function nameSpanByRoute(c, next) {
    const span = trace.getActiveSpan()
    try {
      await next()
    } finally {
      if (span) {
        const route = routeLabel(c)
        span.updateName(`${c.req.method} ${route}`)
        span.setAttribute('http.route', route)
      }
    }
  }
}

/** The storage with its engine calls traced (the catalog keeps the unwrapped engine). */
export function traceStorage(storage: Storage): Storage {
  return { ...storage, engine: traceEngine(storage.engine) }
}

export function traceEngine(engine: Engine): Engine {
  const tracer = trace.getTracer(TRACER)
  const system = engine.dialect.name

  function run<T>(op: string, sql: string | undefined, fn: () => Promise<T>): Promise<T> {
    return tracer.startActiveSpan(`db.${op}`, { kind: SpanKind.CLIENT, attributes: { 'db.system.name': system, 'db.operation.name': op, ...(sql !== undefined ? { 'db.query.text': sql.length > 2048 ? `${sql.slice(0, 2048)}...` : sql } : {}) } }, async (span) => {
      try {
        return await fn()
      } catch (err) {
        fail(span, err)
        throw err
      } finally {
        span.end()
      }
    })
  }

  const streamNumeric = engine.streamNumeric?.bind(engine)
  const streamSpan = (sql: string): Span =>
    tracer.startSpan('db.stream', { kind: SpanKind.CLIENT, attributes: { 'db.system.name': system, 'db.operation.name': 'stream', 'db.query.text': sql } })

  return {
    get dialect() {
      return engine.dialect
    },
    exec: (sql: string, opts?: QueryOptions) => run('exec', sql, () => engine.exec(sql, opts)),
    query: (sql: string, opts?: QueryOptions) => run('query', sql, () => engine.query(sql, opts)),
    stream(sql: string, opts?: QueryOptions) {
      return traceStream(streamSpan(sql), engine.stream(sql, opts))
    },
    ...(streamNumeric === undefined
      ? {}
      : { streamNumeric: (sql: string, opts?: QueryOptions) => traceStream(streamSpan(sql), streamNumeric(sql, opts)) }),
    transaction: <T>(fn: (tx: Engine) => Promise<T>) => run('transaction', undefined, () => engine.transaction(fn)),
    writeRows: (batches: RowBatch[]) =>
      run('writeRows', undefined, async () => {
        const n = await engine.writeRows(batches)
        trace.getActiveSpan()?.setAttribute('db.rows', n)
        return n
      }),
    close: () => engine.close(),
    healthy: () => engine.healthy(),
  }
}

async function* traceStream<T>(span: Span, source: AsyncIterable<T>): AsyncIterable<T> {
  let chunks = 0
  try {
    for await (const chunk of source) {
      chunks++
      yield chunk
    }
  } catch (err) {
    fail(span, err)
    throw err
  } finally {
    span.setAttribute('db.chunks', chunks)
    span.end()
  }
}

function fail(span: Span, err: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) })
  if (err instanceof Error) {
    span.recordException(err)
  }
}
