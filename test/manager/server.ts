import { Ajv2020 } from 'ajv/dist/2020.js'
import type { ValidateFunction } from 'ajv'
import { expect } from 'vitest'
import type { AppConfig } from '../../src/config/types.js'
import { startAdapter, type RunningAdapter } from '../../src/lifecycle.js'
import { testAdapterConfig } from '../lib/adapter-config.js'

export const ROOT_AUTH = `Basic ${Buffer.from('root:taosdata').toString('base64')}`

/** An in-process adapter with its management server on a free port. */
export async function startManaged(tune: (c: AppConfig) => void = () => {}): Promise<RunningAdapter & { manager: NonNullable<RunningAdapter['manager']> }> {
  const config = testAdapterConfig('manager-')
  config.manager.enable = true
  config.manager.port = 0
  config.logLevel = 'error'
  tune(config)
  const adapter = await startAdapter(config)
  if (adapter.manager === undefined) {
    await adapter.stop()
    throw new Error('the management server did not start')
  }
  return adapter as RunningAdapter & { manager: NonNullable<RunningAdapter['manager']> }
}

/** Validators of the live document's schemas (fetched from the server, not imported). */
export async function schemaValidators(base: string): Promise<{ doc: Record<string, any>; validate: (name: string, value: unknown) => void }> {
  const doc = (await (await fetch(`${base}/api/v1/openapi.json`)).json()) as Record<string, any>
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true })
  ajv.addSchema({ $id: 'openapi.json', $defs: doc.components.schemas as object })
  // the document's refs point at #/components/schemas: the same schemas under that path
  const rewritten = JSON.parse(JSON.stringify(doc.components.schemas).replaceAll('#/components/schemas/', 'openapi.json#/$defs/')) as Record<string, object>
  const compiled = new Map<string, ValidateFunction>()
  for (const [name, schema] of Object.entries(rewritten)) {
    compiled.set(name, ajv.compile(schema))
  }
  return {
    doc,
    validate(name, value) {
      const v = compiled.get(name)
      if (v === undefined) {
        throw new Error(`no schema ${name} in the document`)
      }
      const ok = v(value)
      expect(ok, `${name}: ${ajv.errorsText(v.errors)}\n${JSON.stringify(value).slice(0, 500)}`).toBe(true)
    },
  }
}

export async function call(base: string, method: string, path: string, opts: { auth?: string | null; body?: unknown } = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const headers: Record<string, string> = {}
  if (opts.auth !== null) {
    headers.Authorization = opts.auth ?? ROOT_AUTH
  }
  if (opts.body !== undefined) {
    headers['Content-Type'] = 'application/json'
  }
  const res = await fetch(`${base}${path}`, { method, headers, ...(opts.body !== undefined ? { body: typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body) } : {}) })
  const text = await res.text()
  let body: unknown = text
  try {
    body = JSON.parse(text)
  } catch {
    // not JSON: kept as text
  }
  return { status: res.status, body, headers: res.headers }
}
