/**
 * Tracing end to end: a tiny OTLP/HTTP (JSON) collector on loopback, the SDK configured only by
 * OTEL_* variables, a real adapter; the spans that arrive are checked (names by route template,
 * status, engine spans as children of the request span).
 */
import { createServer } from 'node:http'
import type { Server } from 'node:http'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAdapter } from '../lifecycle.js'
import { startTracing, tracingRequested } from './tracing.js'
import { testAdapterConfig } from '../../test/lib/adapter-config.js'

interface OtlpSpan {
  name: string
  traceId: string
  spanId: string
  parentSpanId?: string
  kind: number
  attributes: Array<{ key: string; value: { stringValue?: string; intValue?: string | number } }>
}

const spans: OtlpSpan[] = []
let collector: Server
let endpoint = ''

beforeAll(async () => {
  collector = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as {
        resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }>
      }
      for (const rs of body.resourceSpans) {
        for (const ss of rs.scopeSpans) {
          spans.push(...ss.spans)
        }
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r))
  endpoint = `http://127.0.0.1:${(collector.address() as { port: number }).port}`
})

afterAll(async () => {
  await new Promise((r) => collector.close(r))
})

describe('tracingRequested', () => {
  it('on with an OTLP endpoint or a named exporter, off otherwise or when disabled', () => {
    expect(tracingRequested({})).toBe(false)
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toBe(true)
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' })).toBe(true)
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'console' })).toBe(true)
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'none' })).toBe(false)
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' })).toBe(false)
  })
})

describe('OTLP export', () => {
  it('exports a server span per request and engine spans beneath it', async () => {
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = endpoint
    process.env.OTEL_EXPORTER_OTLP_PROTOCOL = 'http/json'
    process.env.OTEL_BSP_SCHEDULE_DELAY = '50'
    const logger = pino({ level: 'silent' })
    const tracing = await startTracing(logger)
    expect(tracing.enabled).toBe(true)
    const config = testAdapterConfig('tracing-')
    config.monitor.disable = true
    const adapter = await startAdapter(config, { logger, tracing: true })
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736'
    const auth = { Authorization: `Basic ${Buffer.from('root:taosdata').toString('base64')}` }
    try {
      expect((await fetch(`${adapter.url}/-/ping`)).status).toBe(200)
      const res = await fetch(`${adapter.url}/rest/sql/db1`, { method: 'POST', body: 'create database db1', headers: auth })
      expect(res.status).toBe(200)
      // a parent context from the client is honoured (W3C traceparent)
      const lpRes = await fetch(`${adapter.url}/lineproto/v1/write?db=db1&u=root&p=taosdata`, {
        method: 'POST',
        body: 'm,t=a v=1i 1700000000000000000',
        headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
      })
      expect(lpRes.status).toBe(204)
      const sel = await fetch(`${adapter.url}/rest/sql`, { method: 'POST', body: 'select count(*) from db1.m', headers: auth })
      expect(sel.status).toBe(200)
    } finally {
      await adapter.stop()
      await tracing.shutdown()
    }
    const byName = (n: string): OtlpSpan[] => spans.filter((s) => s.name === n)
    expect(byName('GET /-/ping')).toHaveLength(1)
    expect(byName('POST /rest/sql/:db')).toHaveLength(1)
    const sqlSpan = byName('POST /rest/sql')
    expect(sqlSpan).toHaveLength(1)
    const status = sqlSpan[0].attributes.find((a) => a.key === 'http.response.status_code')?.value.intValue
    expect(Number(status)).toBe(200)
    // the SELECT ran on the engine inside the request span
    const children = spans.filter((s) => s.parentSpanId === sqlSpan[0].spanId)
    expect(children.length).toBeGreaterThan(0)
    expect(children.every((s) => s.name.startsWith('db.') && s.traceId === sqlSpan[0].traceId)).toBe(true)
    const lp = byName('POST /lineproto/v1/write')
    expect(lp).toHaveLength(1)
    expect(lp[0].traceId).toBe(traceId)
    expect(spans.some((s) => s.name === 'db.writeRows' && s.parentSpanId === lp[0].spanId)).toBe(true)
  })
})
