/**
 * @module
 * The management server's HTTP app: the events API (the spec's four operations), the
 * Alertmanager webhook, the OpenAPI document and Swagger UI. Errors answer
 * `{"status": <int>, "message": <text>}` (ErrorDTO). The document and the UI are readable
 * without credentials; everything under /api/v1 else needs the adapter's users (Basic, as on
 * /rest/sql) and passes the memory gate: all-paused refuses, as on the write endpoints.
 */
import { Hono } from 'hono'
import type { Context } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { BodyTooLarge, nodeIncoming, readBodyBytes } from '../http/body-read.js'
import type { LoginGuard } from '../http/auth/login-guard.js'
import { accessLog } from '../http/middleware/access-log.js'
import { basicCredentials, verifyUser } from '../http/middleware/auth.js'
import { writeGate, type GateView } from '../http/middleware/gate.js'
import { requestId } from '../http/middleware/request-id.js'
import type { Logger } from '../logger.js'
import { storageUnavailableIn } from '../storage/errors.js'
import { applyAlerts, BadPayload, parseWebhook } from './alertmanager.js'
import type { EventMetrics } from './event-metrics.js'
import type { ChangeOutcome, EventStore } from './event-store.js'
import { openApiDocument } from './openapi.js'
import { BadParameter, parseListParams } from './params.js'
import { createSwaggerUiRoutes } from './swagger-ui.js'

export interface ManagerRouteDeps {
  store: EventStore
  logins: LoginGuard
  metrics: EventMetrics
  gate: GateView
  logger: Logger
  /** http.maxBodySize: the webhook's body limit */
  maxBodySize: number
}

/** Longest event id looked up (ids are UUIDs; anything longer cannot exist). */
const MAX_ID = 128

function fail(c: Context, status: number, message: string, headers: Record<string, string> = {}): Response {
  return c.json({ status, message }, status as ContentfulStatusCode, headers)
}

export function createManagerRoutes(deps: ManagerRouteDeps): Hono {
  const { store, metrics, logger } = deps
  const app = new Hono()
  // request ids and the access log as on the adapter's port (credentials never logged)
  app.use(requestId())
  app.use(accessLog({ logger }))
  const document = JSON.stringify(openApiDocument())

  app.get('/api/v1/openapi.json', (c) => c.body(document, 200, { 'Content-Type': 'application/json; charset=utf-8' }))
  app.route('/', createSwaggerUiRoutes('/api/v1/openapi.json'))

  const api = new Hono()
  api.use('*', writeGate(deps.gate))
  api.use(
    '*',
    basicCredentials({
      // a request without credentials is asked for Basic ones; the UI's Authorize sends them
      refuse: (problem) =>
        problem === 'absent'
          ? Response.json({ status: 401, message: 'authentication required: Basic credentials of an adapter user' }, { status: 401, headers: { 'WWW-Authenticate': 'Basic realm="db-adapter"' } })
          : Response.json({ status: 401, message: 'unusable Authorization header: Basic with a user and a password expected' }, { status: 401 }),
    }),
  )
  api.use('*', verifyUser(deps.logins, (p) => Response.json({ status: p.status, message: p.desc }, { status: p.status, ...(p.headers ? { headers: p.headers } : {}) })))

  api.get('/events', async (c) => {
    const { filter, page } = parseListParams((name) => c.req.query(name))
    return c.json(await store.list(filter, page))
  })
  api.get('/events/:id', async (c) => {
    const id = c.req.param('id')
    const event = id.length > MAX_ID ? undefined : await store.get(id)
    return event === undefined ? fail(c, 404, `no event with id ${JSON.stringify(id.slice(0, MAX_ID))}`) : c.json(event)
  })
  const change = (verb: 'acknowledge' | 'resolve') => async (c: Context): Promise<Response> => {
    const id = c.req.param('id') as string
    const user = c.get('user')
    const outcome: ChangeOutcome = id.length > MAX_ID ? 'missing' : verb === 'acknowledge' ? await store.acknowledge(id, user) : await store.resolve(id, user)
    if (outcome === 'missing') {
      return fail(c, 404, `no event with id ${JSON.stringify(id.slice(0, MAX_ID))}`)
    }
    if (outcome === 'conflict') {
      return fail(c, 409, `event ${id} is resolved: it cannot be acknowledged`)
    }
    if (outcome.changed) {
      logger.info({ event: id, user, status: outcome.event.status }, `event ${verb}d`)
      if (verb === 'resolve') {
        metrics.resolved.inc({ source: outcome.event.source })
      }
    }
    return c.json(outcome.event)
  }
  api.put('/events/:id/acknowledge', change('acknowledge'))
  api.put('/events/:id/resolve', change('resolve'))

  api.post('/alerts', async (c) => {
    const bytes = await readBodyBytes(c.req.raw, deps.maxBodySize, nodeIncoming(c.env))
    let parsed: unknown
    try {
      parsed = JSON.parse(bytes.toString('utf8'))
    } catch (err) {
      throw new BadPayload('body', `the body is not JSON: ${(err as Error).message}`)
    }
    const result = await applyAlerts(store, metrics, parseWebhook(parsed))
    logger.debug({ ...result }, 'alertmanager webhook')
    return c.json(result)
  })

  app.route('/api/v1', api)
  app.notFound((c) => fail(c, 404, `no such endpoint: ${c.req.method} ${c.req.path}`))
  app.onError((err, c) => {
    if (err instanceof BadParameter || err instanceof BadPayload) {
      return fail(c, 400, err.message)
    }
    if (err instanceof BodyTooLarge) {
      return fail(c, 413, err.message)
    }
    if (err instanceof RangeError) {
      // a stack overflow or a string too long on hostile input: the input's fault
      return fail(c, 400, `input too complex: ${err.message}`)
    }
    if (storageUnavailableIn(err) !== undefined) {
      return fail(c, 503, `storage unavailable: ${err.message}`, { 'Retry-After': '1' })
    }
    logger.error({ err, path: c.req.path }, 'management request failed')
    return fail(c, 500, `events storage failed: ${err.message}`)
  })
  return app
}
