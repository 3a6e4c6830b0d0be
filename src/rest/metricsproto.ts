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
 * exactly one QueryResult per query, empty ones included (the original could panic there), and
 * is gated as a query (query-paused refuses it), remote write as a write.
 */
import { Hono } from 'hono'
import type { Context } from 'hono'
import { RemoteDecodeError, decodeReadRequest, decodeWriteRequest } from '../ingest/metricsproto/proto.js'
import { MetricsSchemaError, createRemoteStore } from '../ingest/metricsproto/store.js'
import type { RemoteStore } from '../ingest/metricsproto/store.js'
import { basicCredentials, declaredTooLarge, parseTtl } from '../ingest/schemaless/request.js'
import { nodeIncoming, readIngestBody } from './ingest-body.js'
import { ALL_PAUSED_BODY, QUERY_PAUSED_BODY, pausedResponse } from '../monitor/gate-middleware.js'
import type { IngestDeps } from './ingest-routes.js'
import { ingestError, writeFailure } from './lineproto.js'
import { countRows } from '../monitor/ingest-metrics.js'

export function createMetricsprotoRoutes(deps: IngestDeps): Hono {
  const app = new Hono()
  const store = createRemoteStore(deps.storage, { autoCreateDb: deps.config.smlAutoCreateDB })
  app.post('/remote_write/:db', (c) => handleWrite(c, deps, store))
  app.post('/remote_read/:db', (c) => handleRead(c, deps, store))
  return app
}

/** Credentials and body of a remote request, or the response that refuses it. */
async function admit(c: Context, deps: IngestDeps): Promise<Buffer | Response> {
  const creds = basicCredentials(c.req.header('Authorization'))
  if (creds === undefined) {
    return ingestError(401, 'authentication required: configure basic_auth for this remote endpoint', {}, {
      'WWW-Authenticate': 'Basic realm="db-adapter"',
    })
  }
  const limit = deps.config.http.maxBodySize
  if (declaredTooLarge(c.req.raw, limit)) {
    return ingestError(413, `request body exceeds http.maxBodySize (${limit} bytes)`)
  }
  if (!(await deps.storage.catalog.verifyUser(creds.user, creds.password))) {
    return ingestError(401, 'Authentication failure: wrong user name or password')
  }
  const read = await readIngestBody(c.req.raw, limit, nodeIncoming(c.env))
  return Buffer.isBuffer(read) ? read : ingestError(read.status, read.message)
}

function clientError(err: unknown): Response | undefined {
  if (err instanceof RemoteDecodeError || err instanceof MetricsSchemaError) {
    return ingestError(400, err.message)
  }
  return undefined
}

async function handleWrite(c: Context, deps: IngestDeps, store: RemoteStore): Promise<Response> {
  if (deps.gate?.allPaused() === true) {
    return pausedResponse(ALL_PAUSED_BODY)
  }
  const ttl = parseTtl(c.req.query('ttl'))
  if (typeof ttl === 'string') {
    return ingestError(400, ttl)
  }
  const body = await admit(c, deps)
  if (body instanceof Response) {
    return body
  }
  const db = c.req.param('db') as string
  try {
    const result = await store.write(db, decodeWriteRequest(body), ttl)
    countRows(deps.metrics, 'metricsproto', result.samples, result.rejectedSamples)
    if (result.rejected.length > 0) {
      const first = result.rejected[0]
      return ingestError(400, `${result.rejected.length} series rejected, ${result.series} series (${result.samples} samples) written; first: {${first.labels}}: ${first.reason}`, {
        rejected: result.rejected.length,
        written: result.samples,
      })
    }
    return c.body(null, 204)
  } catch (err) {
    return clientError(err) ?? writeFailure(err, db, deps)
  }
}

async function handleRead(c: Context, deps: IngestDeps, store: RemoteStore): Promise<Response> {
  if (deps.gate?.allPaused() === true) {
    return pausedResponse(ALL_PAUSED_BODY)
  }
  if (deps.gate?.queryPaused?.() === true) {
    return pausedResponse(QUERY_PAUSED_BODY)
  }
  const body = await admit(c, deps)
  if (body instanceof Response) {
    return body
  }
  const db = c.req.param('db') as string
  try {
    const response = await store.read(db, decodeReadRequest(body), deps.config.restfulRowLimit)
    return new Response(response, {
      status: 200,
      headers: { 'Content-Type': 'application/x-protobuf', 'Content-Encoding': 'snappy', 'X-Prometheus-Remote-Read-Version': '0.1.0' },
    })
  } catch (err) {
    return clientError(err) ?? writeFailure(err, db, deps)
  }
}
