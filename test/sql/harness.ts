import { expect } from 'vitest'
import type { AppConfig } from '../../src/config/types.js'
import { testAdapterConfig } from '../lib/adapter-config.js'

/**
 * One conformance case: a request to the real HTTP server and the response it must produce.
 * `expect` is compared with toEqual on the parsed JSON (asymmetric matchers allowed where the
 * value depends on the clock or the version); `raw` is a byte-exact check of the body.
 */
export interface Case {
  name: string
  /** SQL body for POST (default path /rest/sql, or /rest/sql/{db} when `db` is set) */
  sql?: string
  db?: string
  method?: 'GET' | 'POST'
  /** explicit path (overrides sql/db routing) */
  path?: string
  /** raw body (overrides sql) */
  body?: string
  /** query string without '?' */
  query?: string
  /** Authorization header; default Basic root:taosdata; null = none */
  auth?: string | null
  status?: number
  expect?: unknown
  raw?: string
  /** compare `data` ignoring row order (engine order is unspecified there) */
  unordered?: boolean
  check?: (json: any, text: string) => void
  /** further requests against the same server after the main one (cross-endpoint agreement) */
  then?: (json: any, base: string) => Promise<void>
}

export const basic = (user: string, password: string): string =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`

export const ROOT = basic('root', 'taosdata')

export function exec(n: number): unknown {
  return { code: 0, column_meta: [['affected_rows', 'INT', 4]], data: [[n]], rows: 1 }
}

export function rowsOf(meta: Array<[string, string, number]>, data: unknown[][]): unknown {
  return { code: 0, column_meta: meta, data, rows: data.length }
}

export function err(code: unknown, desc: unknown): unknown {
  return { code, desc }
}

/** An asymmetric matcher accepting any of the given values (for documented version variants). */
export function oneOf(...values: unknown[]): unknown {
  return {
    asymmetricMatch: (x: unknown) => values.some((v) => Object.is(v, x)),
    toString: () => `oneOf(${values.map((v) => JSON.stringify(v)).join(', ')})`,
    toAsymmetricMatcher: () => `oneOf(${values.map((v) => JSON.stringify(v)).join(', ')})`,
  }
}

export interface Server {
  url: string
  stop(): Promise<void>
}

/**
 * Starts the real adapter on an ephemeral port. `external` names an environment variable that,
 * when set, points the cases at an already running server instead (for example a real
 * taosAdapter, to check the expectations themselves): CONFORMANCE_URL_DEFAULT, _HTTPCODE, _ROWLIMIT.
 */
export async function startServer(
  storageUrl: string,
  tune: (c: AppConfig) => void = () => {},
  external?: string,
): Promise<Server> {
  const given = external === undefined ? undefined : process.env[external]
  if (given !== undefined && given !== '') {
    return { url: given.replace(/\/$/, ''), stop: async () => {} }
  }
  const { startAdapter } = await import('../../src/lifecycle.js')
  const config = testAdapterConfig('conformance-log-')
  config.storage.url = storageUrl
  config.logLevel = 'error'
  config.monitor.disable = true
  tune(config)
  const started = await startAdapter(config)
  return { url: started.url, stop: () => started.stop() }
}

export async function send(base: string, c: Case): Promise<{ status: number; text: string; type: string | null }> {
  const method = c.method ?? 'POST'
  let path = c.path ?? (c.db !== undefined ? `/rest/sql/${c.db}` : '/rest/sql')
  if (c.query !== undefined) {
    path += `?${c.query}`
  }
  const headers: Record<string, string> = {}
  const auth = c.auth === undefined ? ROOT : c.auth
  if (auth !== null) {
    headers.Authorization = auth
  }
  const res = await fetch(base + path, {
    method,
    headers,
    body: method === 'POST' ? (c.body ?? c.sql ?? '') : undefined,
    redirect: 'manual',
  })
  return { status: res.status, text: await res.text(), type: res.headers.get('content-type') }
}

function sortRows(json: any): any {
  if (json && Array.isArray(json.data)) {
    return { ...json, data: [...json.data].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)) }
  }
  return json
}

export async function runCase(base: string, c: Case): Promise<void> {
  const res = await send(base, c)
  let json: any
  try {
    json = JSON.parse(res.text)
  } catch {
    json = undefined
  }
  const context = `${c.name}\nSQL: ${c.sql ?? c.body ?? c.path}\nHTTP ${res.status} body: ${res.text.slice(0, 2000)}`
  expect(res.status, context).toBe(c.status ?? 200)
  if (c.raw !== undefined) {
    expect(res.text, context).toBe(c.raw)
  }
  if (c.expect !== undefined) {
    expect(json, context).toBeDefined()
    if (c.unordered === true) {
      expect(sortRows(json), context).toEqual(sortRows(c.expect))
    } else {
      expect(json, context).toEqual(c.expect)
    }
  }
  if (c.check !== undefined) {
    expect(json, context).toBeDefined()
    c.check(json, res.text)
  }
  if (c.then !== undefined) {
    await c.then(json, base)
  }
  if (res.status !== 503 && res.text !== '') {
    expect(res.type, context).toBe('application/json; charset=utf-8')
  }
}
