/**
 * @module
 * The OpenAPI description of the management server (`GET /api/v1/openapi.json`), version
 * 1.0.14.1 as the spec names it, with the spec's operationIds. OpenAPI 3.1, whose schemas are
 * plain JSON Schema: tests validate live answers against `components.schemas` with ajv, so the
 * document cannot drift from the code.
 */
import { DEFAULT_PAGE_SIZE, EVENT_SEVERITIES, EVENT_STATUSES, MAX_PAGE_SIZE } from './event-types.js'

export const API_VERSION = '1.0.14.1'

const ref = (name: string): { $ref: string } => ({ $ref: `#/components/schemas/${name}` })
const json = (schema: object): object => ({ 'application/json': { schema } })

const error = (description: string): object => ({ description, content: json(ref('ErrorDTO')) })
const ERRORS = {
  401: error('no or wrong credentials (Basic, the adapter\'s users)'),
  503: error('storage unavailable, or the memory gate refuses work (Retry-After)'),
}
const idParam = { name: 'id', in: 'path', required: true, description: 'event identifier', schema: { type: 'string' } }

const eventDto = {
  type: 'object',
  additionalProperties: false,
  required: [
    'id', 'status', 'severity', 'elementId', 'source', 'title', 'message', 'labels', 'createdAt', 'updatedAt',
    'acknowledgedAt', 'acknowledgedBy', 'resolvedAt', 'resolvedBy', 'count',
  ],
  properties: {
    id: { type: 'string', description: 'event identifier' },
    status: { type: 'string', enum: [...EVENT_STATUSES] },
    severity: { type: 'string', enum: [...EVENT_SEVERITIES] },
    elementId: { type: 'string', description: 'the element the event belongs to: an adapter (monitor.identity, else hostname:port) or an alert\'s instance' },
    source: { type: 'string', description: 'health (the adapter itself) or alertmanager' },
    title: { type: 'string' },
    message: { type: 'string' },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    createdAt: { type: 'integer', description: 'Unix milliseconds' },
    updatedAt: { type: 'integer', description: 'Unix milliseconds of the last change or repeat' },
    acknowledgedAt: { type: ['integer', 'null'], description: 'Unix milliseconds' },
    acknowledgedBy: { type: ['string', 'null'], description: 'the user who acknowledged it' },
    resolvedAt: { type: ['integer', 'null'], description: 'Unix milliseconds' },
    resolvedBy: { type: ['string', 'null'], description: 'the user who resolved it, or the source that saw the condition end' },
    count: { type: 'integer', minimum: 1, description: 'times the condition was seen while the event was open' },
  },
}

const pageOfEventDto = {
  type: 'object',
  additionalProperties: false,
  required: ['total', 'pageNum', 'pageSize', 'items'],
  properties: {
    total: { type: 'integer', minimum: 0, description: 'events matching the filters' },
    pageNum: { type: 'integer', minimum: 1 },
    pageSize: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE },
    items: { type: 'array', items: ref('EventDTO'), description: 'newest first' },
  },
}

const errorDto = {
  type: 'object',
  additionalProperties: false,
  required: ['status', 'message'],
  properties: {
    status: { type: 'integer', description: 'the HTTP status' },
    message: { type: 'string', description: 'what was wrong, naming the parameter or field' },
  },
}

const alertsResult = {
  type: 'object',
  additionalProperties: false,
  required: ['received', 'opened', 'updated', 'resolved'],
  properties: {
    received: { type: 'integer', description: 'alerts in the payload' },
    opened: { type: 'integer', description: 'firing alerts that opened an event' },
    updated: { type: 'integer', description: 'firing alerts counted again on their open event' },
    resolved: { type: 'integer', description: 'resolved alerts that resolved an open event' },
  },
}

const timeParam = (name: string, what: string): object => ({
  name, in: 'query', required: false, description: `${what}, Unix milliseconds (creation time, inclusive)`, schema: { type: 'integer', format: 'int64' },
})

const listParams = [
  timeParam('from', 'start time'),
  timeParam('to', 'end time'),
  { name: 'status', in: 'query', required: false, schema: { type: 'string', enum: [...EVENT_STATUSES] } },
  { name: 'severity', in: 'query', required: false, schema: { type: 'string', enum: [...EVENT_SEVERITIES] } },
  { name: 'elementId', in: 'query', required: false, description: 'filter by element identifier', schema: { type: 'string' } },
  { name: 'pageNum', in: 'query', required: false, description: 'page number, first page 1', schema: { type: 'integer', minimum: 1, default: 1 } },
  {
    name: 'pageSize', in: 'query', required: false, description: `items per page, at most ${MAX_PAGE_SIZE}`,
    schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE },
  },
]

const transition = (operationId: string, summary: string, extra: Record<string, object>): object => ({
  put: {
    tags: ['EventResourceApi'],
    operationId,
    summary,
    parameters: [idParam],
    responses: { 200: { description: 'the event after the change (the same event when it was already so)', content: json(ref('EventDTO')) }, ...extra, 404: error('no event with this id'), ...ERRORS },
  },
})

/** The document, built once (it holds no per-request state). */
export function openApiDocument(): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'db-adapter management server: events API',
      version: API_VERSION,
      description: 'Events from the adapter\'s own health and from Prometheus Alertmanager: list, get, acknowledge, resolve.',
    },
    servers: [{ url: '/' }],
    security: [{ basicAuth: [] }],
    tags: [{ name: 'EventResourceApi', description: 'event query and management' }, { name: 'Alertmanager', description: 'webhook receiver' }],
    paths: {
      '/api/v1/events': {
        get: {
          tags: ['EventResourceApi'],
          operationId: 'apiV1EventsGet',
          summary: 'list events, paginated, newest first',
          parameters: listParams,
          responses: { 200: { description: 'one page', content: json(ref('PageOfEventDTO')) }, 400: error('a bad parameter (named in the message)'), ...ERRORS },
        },
      },
      '/api/v1/events/{id}': {
        get: {
          tags: ['EventResourceApi'],
          operationId: 'apiV1EventsIdGet',
          summary: 'get one event',
          parameters: [idParam],
          responses: { 200: { description: 'the event', content: json(ref('EventDTO')) }, 404: error('no event with this id'), ...ERRORS },
        },
      },
      '/api/v1/events/{id}/acknowledge': transition('apiV1EventsIdAcknowledgePut', 'acknowledge an event (active -> acknowledged)', {
        409: error('the event is resolved already'),
      }),
      '/api/v1/events/{id}/resolve': transition('apiV1EventsIdResolvePut', 'resolve an event (active or acknowledged -> resolved)', {}),
      '/api/v1/alerts': {
        post: {
          tags: ['Alertmanager'],
          operationId: 'apiV1AlertsPost',
          summary: 'Alertmanager webhook (payload version 4): firing alerts open or count an event keyed by fingerprint, resolved ones resolve it',
          requestBody: { required: true, content: json({ type: 'object', required: ['version', 'alerts'] }) },
          responses: { 200: { description: 'what the payload did', content: json(ref('AlertsResultDTO')) }, 400: error('not a version 4 payload (the field is named)'), 413: error('body over http.maxBodySize'), ...ERRORS },
        },
      },
    },
    components: {
      securitySchemes: { basicAuth: { type: 'http', scheme: 'basic', description: 'the adapter\'s users, as on /rest/sql' } },
      schemas: { EventDTO: eventDto, PageOfEventDTO: pageOfEventDto, ErrorDTO: errorDto, AlertsResultDTO: alertsResult },
    },
  }
}
