/**
 * A backend failure reaches the client in TDengine's code and words only; the backend's own
 * text goes to the log at warn with the statement's request id (issue 35 item 6).
 */
import { Writable } from 'node:stream'
import { pino } from 'pino'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startAdapter, type RunningAdapter } from '../../src/lifecycle.js'
import { testAdapterConfig } from '../lib/adapter-config.js'

const AUTH = { Authorization: `Basic ${Buffer.from('root:taosdata').toString('base64')}` }
const logLines: string[] = []
let adapter: RunningAdapter | undefined

async function sql(statement: string, query = ''): Promise<{ code: number; desc?: string }> {
  const res = await fetch(`${adapter!.url}/rest/sql${query}`, { method: 'POST', headers: AUTH, body: statement })
  expect(res.status).toBe(200)
  return (await res.json()) as { code: number; desc?: string }
}

beforeAll(async () => {
  const config = testAdapterConfig('backend-error-log-')
  config.monitor.disable = true
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      logLines.push(...chunk.toString('utf8').split('\n').filter((l) => l !== ''))
      cb()
    },
  })
  adapter = await startAdapter(config, { logger: pino({ level: 'info' }, sink) })
  expect((await sql('create database bel')).code).toBe(0)
  expect((await sql('create table bel.t (ts timestamp, s varchar(8))')).code).toBe(0)
})

afterAll(async () => {
  await adapter?.stop()
})

it('a malformed MATCH pattern answers 9857 in TDengine words; the backend text is logged at warn with req_id', async () => {
  const body = await sql("select * from bel.t where s match '('", '?req_id=4242')
  expect(body).toEqual({ code: 9857, desc: 'Syntax error in regular expression' })
  const warned = logLines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.reqId === '4242')
  expect(warned.length).toBe(1)
  expect(warned[0].level).toBe(40)
  expect(warned[0].code).toBe(9857)
  // DuckDB's RE2 message, which the client never sees
  expect(String(warned[0].backend)).toMatch(/missing \)/)
})
