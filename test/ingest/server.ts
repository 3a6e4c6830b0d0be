/**
 * A real adapter (startAdapter, DuckDB in memory, port 0) for the ingestion endpoint tests, with
 * small helpers to write and to read back through /rest/sql.
 */
import { createHash } from 'node:crypto'
import { pino } from 'pino'
import type { AppConfig } from '../../src/config/types.js'
import { startAdapter } from '../../src/lifecycle.js'
import type { RunningAdapter } from '../../src/lifecycle.js'
import { testAdapterConfig } from '../lib/adapter-config.js'

export const ROOT_AUTH = `Basic ${Buffer.from('root:taosdata').toString('base64')}`

export async function startIngestServer(tune: (c: AppConfig) => void = () => {}): Promise<RunningAdapter> {
  const config = testAdapterConfig('ingest-log-')
  config.monitor.disable = true
  tune(config)
  return startAdapter(config, { logger: pino({ level: 'silent' }) })
}

export interface SqlBody {
  code: number
  desc?: string
  column_meta?: Array<[string, string, number]>
  data?: unknown[][]
  rows?: number
}

/** Runs SQL through /rest/sql as root; throws with the body when the answer is not code 0. */
export async function sql(base: string, statement: string): Promise<SqlBody> {
  const res = await fetch(`${base}/rest/sql`, { method: 'POST', headers: { Authorization: ROOT_AUTH }, body: statement })
  const text = await res.text()
  const body = JSON.parse(text) as SqlBody
  if (res.status !== 200 || body.code !== 0) {
    throw new Error(`${statement} -> HTTP ${res.status} ${text}`)
  }
  return body
}

export async function sqlRows(base: string, statement: string): Promise<unknown[][]> {
  return (await sql(base, statement)).data ?? []
}

/** DESCRIBE as [field, type, length, note] rows. */
export async function describe(base: string, table: string): Promise<unknown[][]> {
  return sqlRows(base, `describe ${table}`)
}

/**
 * The child table name TDengine's schemaless writer gives a tag set (sql-dialect 9.3): tags sorted
 * by key (case-insensitive on the common prefix, shorter first), md5 over `stable,k=v,...`.
 */
export function childName(stable: string, tags: Array<[string, string]>): string {
  const sorted = [...tags].sort((a, b) => {
    const n = Math.min(a[0].length, b[0].length)
    const x = a[0].slice(0, n).toLowerCase()
    const y = b[0].slice(0, n).toLowerCase()
    return x < y ? -1 : x > y ? 1 : a[0].length - b[0].length
  })
  let s = stable
  for (const [k, v] of sorted) {
    s += `,${k}=${v}`
  }
  return `t_${createHash('md5').update(s).digest('hex')}`
}

export interface Answer {
  status: number
  text: string
  json: Record<string, unknown> | undefined
  headers: Headers
}

export async function post(url: string, body: RequestInit['body'], headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(url, { method: 'POST', headers, body })
  const text = await res.text()
  let json: Record<string, unknown> | undefined
  try {
    json = JSON.parse(text) as Record<string, unknown>
  } catch {
    json = undefined
  }
  return { status: res.status, text, json, headers: res.headers }
}
