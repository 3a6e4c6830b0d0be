/**
 * `/-/ping` and `/-/live` answered before Hono (src/http/probe-fast-path.ts) by a real adapter:
 * the same headers, request id, metrics and access-log line as the Hono routes give, and the
 * requests the fast path leaves to Hono (an Origin to answer with CORS headers, HEAD) still
 * answered by it.
 */
import { Writable } from 'node:stream'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAdapter, type RunningAdapter } from '../../src/lifecycle.js'
import { testAdapterConfig } from '../lib/adapter-config.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

describe('probes answered before Hono', () => {
  let adapter: RunningAdapter
  const lines: Array<Record<string, unknown>> = []

  beforeAll(async () => {
    const config = testAdapterConfig('probe-fast-')
    config.monitor.disable = true
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) {
          lines.push(JSON.parse(line) as Record<string, unknown>)
        }
        done()
      },
    })
    adapter = await startAdapter(config, { logger: pino({ level: 'debug' }, sink) })
  })
  afterAll(async () => {
    await adapter?.stop()
  })

  it('answer 200 with an empty body, Content-Length 0 and a request id (made, or the sane one sent)', async () => {
    for (const path of ['/-/ping', '/-/ping?action=query', '/-/live']) {
      const res = await fetch(`${adapter.url}${path}`)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-length')).toBe('0')
      expect(res.headers.get('content-type')).toBeNull()
      expect(res.headers.get('x-request-id')).toMatch(UUID)
      expect(await res.text()).toBe('')
    }
    const echoed = await fetch(`${adapter.url}/-/ping`, { headers: { 'X-Request-Id': 'probe-1=a' } })
    expect(echoed.headers.get('x-request-id')).toBe('probe-1=a')
    const replaced = await fetch(`${adapter.url}/-/ping`, { headers: { 'X-Request-Id': 'has space' } })
    expect(replaced.headers.get('x-request-id')).toMatch(UUID)
  })

  it('are counted under their route template and access-logged at debug', async () => {
    const res = await fetch(`${adapter.url}/-/live?x=1`, { headers: { 'X-Request-Id': 'live-42', 'X-Forwarded-For': '10.1.2.3' } })
    expect(res.status).toBe(200)
    const line = lines.find((l) => l.reqId === 'live-42')
    expect(line).toMatchObject({ level: 20, msg: 'request', status: 200, method: 'GET', uri: '/-/live?x=1', clientIp: '10.1.2.3' })
    expect(typeof line?.latencyMs).toBe('number')
    const metrics = await (await fetch(`${adapter.url}/metrics`)).text()
    expect(metrics).toMatch(/db_adapter_http_requests_total\{method="GET",route="\/-\/live",status="200"\} [1-9]/)
    expect(metrics).toMatch(/db_adapter_http_request_duration_seconds_count\{method="GET",route="\/-\/ping",status="200"\} [1-9]/)
    expect(metrics).toMatch(/db_adapter_http_requests_in_flight \d/)
    expect(metrics).toMatch(/db_adapter_http_requests_by_client_total\{client_ip="10.1.2.3"\} 1/)
  })

  it('leave a request with an Origin (CORS headers) and HEAD to Hono, which answers them', async () => {
    const cors = await fetch(`${adapter.url}/-/ping`, { headers: { Origin: 'http://example.com' } })
    expect(cors.status).toBe(200)
    expect(cors.headers.get('access-control-allow-origin')).toBe('*')
    expect(cors.headers.get('x-request-id')).toMatch(UUID)
    const head = await fetch(`${adapter.url}/-/ping`, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.headers.get('x-request-id')).toMatch(UUID)
  })
})
