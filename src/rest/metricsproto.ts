/**
 * @module
 * Prometheus remote write and remote read (adapter-behaviour 6, spec: `/metricsproto/v1/...`):
 *   POST /metricsproto/v1/remote_write/{db}?ttl=   snappy WriteRequest -> 204
 *   POST /metricsproto/v1/remote_read/{db}         snappy ReadRequest -> 200 snappy ReadResponse
 *
 * Status codes follow what Prometheus does with them: it retries 5xx and drops a batch on 4xx,
 * so undecodable bodies, bad parameters and unstorable series are 400 (never retried), a missing
 * database 404, credentials 401, oversize bodies 413, and only storage trouble 503 (retried).
 * The body is snappy whatever Content-Encoding says (some senders omit it). Remote read answers
 * exactly one QueryResult per query, empty ones included (the original could panic there), as
 * one snappy block (the SAMPLES response type; STREAMED_XOR_CHUNKS is not produced): an answer
 * that would decode past http.maxBodySize is refused with 400 and a message, never cut short.
 * The memory gate stands in front (src/lifecycle.ts): remote read is gated as a query (query-paused
 * refuses it), remote write as a write.
 */
import { Hono } from 'hono'
import type { Context, MiddlewareHandler } from 'hono'
import { ReadTooLarge } from '../ingest/metricsproto/read-response.js'
import { RemoteStream } from '../ingest/metricsproto/stream.js'
import { problems, respond, writeFailed, type Problem } from '../http/error-table.js'
import { LoginGuard } from '../http/auth/login-guard.js'
import { basicCredentials, verifyUser } from '../http/middleware/auth.js'
import { declaredSize, readBody } from '../http/middleware/body.js'
import { authorizeIngest } from './ingest-authorize.js'
import type { IngestDeps } from './ingest-deps.js'
import { countRows } from '../monitor/ingest-metrics.js'
import { parseTtl } from './params.js'

/**
 * Remote write and remote read as two modules, so each gets its route class's memory gate
 * (src/lifecycle.ts: writeGate, queryGate) in front of everything else.
 */
export function createMetricsprotoRoutes(deps: IngestDeps): { write: Hono; read: Hono } {
  const store = new RemoteStream(deps.storage, {
    autoCreateDb: deps.config.smlAutoCreateDB,
    // a snappy body may not inflate past http.maxBodySize either (checked from its preamble)
    maxDecodedSize: deps.config.http.maxBodySize,
  })
  const write = new Hono()
  write.post('/remote_write/:db', checkTtl, ...admission(deps, 'write'), (c) => handleWrite(c, deps, store))
  const read = new Hono()
  read.post('/remote_read/:db', ...admission(deps, 'read'), (c) => handleRead(c, deps, store))
  return { write, read }
}

const refuse = (problem: Problem): Response => respond('prometheus', problem)

/** The answer's pieces sent in ~1 MiB writes, without concatenating them into one more copy. */
function piecesBody(pieces: Buffer[]): ReadableStream<Uint8Array> {
  let i = 0
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i >= pieces.length) {
        controller.close()
        return
      }
      const batch: Buffer[] = []
      let bytes = 0
      while (i < pieces.length && bytes < 2 ** 20) {
        bytes += pieces[i].length
        batch.push(pieces[i])
        // the sent piece is dropped, so what is on the wire is no longer held
        pieces[i++] = EMPTY
      }
      controller.enqueue(batch.length === 1 ? batch[0] : Buffer.concat(batch, bytes))
    },
  })
}
const EMPTY = Buffer.alloc(0)

type WriteEnv = { Variables: { ttl: number } }

const checkTtl: MiddlewareHandler<WriteEnv> = async (c, next) => {
  const ttl = parseTtl(c.req.query('ttl'))
  if (typeof ttl === 'string') {
    return refuse(problems.badRequest(ttl))
  }
  c.set('ttl', ttl)
  await next()
}

/** Credentials and body of a remote request: missing 401 -> Content-Length 413 -> wrong 401 -> privilege 403 -> read. */
function admission(deps: IngestDeps, access: 'read' | 'write') {
  const limit = deps.config.http.maxBodySize
  return [
    // an empty user or password is left to the user table (it never matches)
    basicCredentials({
      refuse: (problem) =>
        problem === 'empty'
          ? undefined
          : refuse(problems.unauthorized('authentication required: configure basic_auth for this remote endpoint', true)),
    }),
    declaredSize(limit, (n) => refuse(problems.bodyTooLarge(n))),
    verifyUser(deps.logins ?? new LoginGuard(deps.storage.catalog), refuse),
    authorizeIngest(deps, (c) => c.req.param('db') ?? '', access, refuse),
    readBody({ limit, refuse: (r) => refuse({ status: r.status, desc: r.message }) }),
  ] as const
}

async function handleWrite(c: Context<WriteEnv>, deps: IngestDeps, store: RemoteStream): Promise<Response> {
  const ttl = c.get('ttl')
  const body = c.get('body').bytes
  const db = c.req.param('db') as string
  try {
    const result = await store.write(db, body, ttl, c.get('user'))
    countRows(deps.metrics, 'metricsproto', result.samples, result.rejectedSamples)
    if (result.rejected.length > 0) {
      const first = result.rejected[0]
      return refuse({
        ...problems.badRequest(`${result.rejected.length} series rejected, ${result.series} series (${result.samples} samples) written; first: {${first.labels}}: ${first.reason}`),
        extra: { rejected: result.rejected.length, written: result.samples },
      })
    }
    return c.body(null, 204)
  } catch (err) {
    return writeFailed('prometheus', err, db, deps.logger)
  }
}

async function handleRead(c: Context, deps: IngestDeps, store: RemoteStream): Promise<Response> {
  const body = c.get('body').bytes
  const db = c.req.param('db') as string
  try {
    const pieces = await store.read(db, body, deps.config.restfulRowLimit, c.get('user'), c.req.raw.signal)
    let length = 0
    for (const p of pieces) {
      length += p.length
    }
    return new Response(piecesBody(pieces), {
      status: 200,
      headers: {
        'Content-Type': 'application/x-protobuf',
        'Content-Encoding': 'snappy',
        'Content-Length': String(length),
        'X-Prometheus-Remote-Read-Version': '0.1.0',
      },
    })
  } catch (err) {
    if (err instanceof ReadTooLarge) {
      // what Prometheus does past its own remote-read sample limit; it shows the text as the query's error
      return refuse(problems.badRequest(err.message))
    }
    return writeFailed('prometheus', err, db, deps.logger)
  }
}
