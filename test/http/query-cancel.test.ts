/**
 * Query timeout and cancellation through real HTTP over DuckDB: a statement running past
 * `rest.queryTimeout` answers 0x022D and the backend stops (the process's CPU falls idle and the
 * next query is quick); a client that closes its connection stops its query too, before and
 * after the status line, without "Controller is already closed" or any error in the log.
 *
 * The slow statement: MATCH against a per-row pattern (`concat(s, s, 'x')`) makes DuckDB compile
 * one regular expression per row; over 1M rows that takes seconds of CPU, spread over row groups
 * between which DuckDB checks for an interrupt.
 */
import { Writable } from 'node:stream'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AppConfig } from '../../src/config/types.js'
import { startAdapter, type RunningAdapter } from '../../src/lifecycle.js'
import { testAdapterConfig } from '../lib/adapter-config.js'

const AUTH = { Authorization: `Basic ${Buffer.from('root:taosdata').toString('base64')}` }
const ROWS = 1_000_000
const TIMEOUT_MS = 1000
/** returns nothing, streams nothing: the aggregate only answers once every row was matched */
const SLOW_COUNT = `select count(*) from qc.m where s match concat(s, s, 'x')`
/** every row passes (the pattern is longer than the value), so rows stream out as they are matched */
const SLOW_ROWS = `select _ts, s from qc.m where s nmatch concat(s, s, 'x')`

let adapter: RunningAdapter
let config: AppConfig
const logLines: string[] = []

async function sql(stmt: string, init: RequestInit = {}): Promise<{ status: number; body: any; ms: number }> {
  const t0 = performance.now()
  const res = await fetch(`${adapter.url}/rest/sql`, { method: 'POST', headers: AUTH, body: stmt, ...init })
  const text = await res.text()
  return { status: res.status, body: JSON.parse(text), ms: performance.now() - t0 }
}

/** CPU ms this process (main thread and DuckDB's threads) spent during `ms` of wall time. */
async function cpuDuring(ms: number): Promise<number> {
  const before = process.cpuUsage()
  await new Promise((r) => setTimeout(r, ms))
  const used = process.cpuUsage(before)
  return (used.user + used.system) / 1000
}

/** Waits until a 500 ms window shows the process nearly idle; the time it took, or Infinity. */
async function untilIdle(limitMs: number): Promise<number> {
  const t0 = performance.now()
  while (performance.now() - t0 < limitMs) {
    if ((await cpuDuring(500)) < 200) {
      return performance.now() - t0
    }
  }
  return Infinity
}

function errorLines(): string[] {
  return logLines.filter((l) => (JSON.parse(l) as { level: number }).level >= 50)
}

beforeAll(async () => {
  config = testAdapterConfig('query-cancel-')
  config.monitor.disable = true
  config.rest.queryTimeout = TIMEOUT_MS
  config.log.slowQueryThreshold = 500
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      logLines.push(...chunk.toString('utf8').split('\n').filter((l) => l !== ''))
      cb()
    },
  })
  adapter = await startAdapter(config, { logger: pino({ level: 'info' }, sink) })
  expect((await sql('create database qc precision "ms"')).body.code).toBe(0)
  const value = 'ab'.repeat(5)
  for (let part = 0; part < 4; part++) {
    const lines: string[] = []
    for (let i = part * (ROWS / 4); i < (part + 1) * (ROWS / 4); i++) {
      lines.push(`m,h=a s="${value}${i}" ${1_700_000_000_000 + i}`)
    }
    const res = await fetch(`${adapter.url}/lineproto/v1/write?db=qc&precision=ms`, { method: 'POST', headers: AUTH, body: lines.join('\n') })
    expect(res.status).toBe(204)
  }
  expect((await sql('select count(*) from qc.m')).body.data).toEqual([[ROWS]])
}, 120_000)

afterAll(async () => {
  await adapter?.stop()
})

describe('rest.queryTimeout', () => {
  it('cancels a statement running past the timeout with 0x022D, and the backend stops', async () => {
    const r = await sql(SLOW_COUNT)
    expect(r.status).toBe(200)
    expect(r.body.code).toBe(557)
    expect(r.body.desc).toBe('Query killed: it ran longer than rest.queryTimeout (1s)')
    expect(r.ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50)
    // DuckDB stops at its next row group; generous for a loaded machine
    expect(r.ms).toBeLessThan(TIMEOUT_MS + 8000)
    // the answer came after the interrupt took effect: no CPU is spent on the query afterwards
    expect(await cpuDuring(1000)).toBeLessThan(300)
    const next = await sql('select count(*) from qc.m')
    expect(next.body.data).toEqual([[ROWS]])
    expect(next.ms).toBeLessThan(2000)
    const logged = logLines.map((l) => JSON.parse(l) as { level: number; msg: string; sql?: string })
    expect(logged.some((l) => l.level === 40 && l.msg.startsWith('query cancelled after rest.queryTimeout') && l.sql === SLOW_COUNT)).toBe(true)
    expect(errorLines()).toEqual([])
  }, 30_000)

  it('cuts a result already streaming when the timeout passes (a broken body, never a complete-looking one)', async () => {
    const saved = config.rest.queryTimeout
    // long enough for the first rows to go out before it passes (the handler reads it per request)
    config.rest.queryTimeout = 3000
    try {
      const res = await fetch(`${adapter.url}/rest/sql`, { method: 'POST', headers: AUTH, body: SLOW_ROWS })
      expect(res.status).toBe(200)
      let outcome: string
      try {
        const text = await res.text()
        // on a slow machine the first rows may come after the timeout: then the error is the body
        outcome = (JSON.parse(text) as { code: number }).code === 557 ? 'error body' : `complete: ${text.slice(0, 100)}`
      } catch {
        outcome = 'cut'
      }
      expect(['cut', 'error body']).toContain(outcome)
      expect(await untilIdle(8000)).toBeLessThan(8000)
    } finally {
      config.rest.queryTimeout = saved
    }
  }, 30_000)
})

describe('client disconnect', () => {
  it('stops the query of a client that gave up before the status line', async () => {
    const saved = config.rest.queryTimeout
    // the handler reads the config per request: no timeout, so only the disconnect can stop it
    config.rest.queryTimeout = 0
    try {
      const ac = new AbortController()
      const t0 = performance.now()
      setTimeout(() => ac.abort(), 500)
      await expect(sql(SLOW_COUNT, { signal: ac.signal })).rejects.toThrow()
      // the whole statement takes several seconds of two cores; stopped, the process idles at once
      const idleAfter = await untilIdle(10_000)
      expect(idleAfter).toBeLessThan(10_000)
      const next = await sql('select count(*) from qc.m')
      expect(next.body.data).toEqual([[ROWS]])
      expect(performance.now() - t0).toBeLessThan(12_000)
      expect(errorLines()).toEqual([])
    } finally {
      config.rest.queryTimeout = saved
    }
  }, 30_000)

  it('stops a streaming query whose client stops reading, with no error logged', async () => {
    const saved = config.rest.queryTimeout
    config.rest.queryTimeout = 0
    try {
      const ac = new AbortController()
      const res = await fetch(`${adapter.url}/rest/sql`, { method: 'POST', headers: AUTH, body: SLOW_ROWS, signal: ac.signal })
      expect(res.status).toBe(200)
      const reader = (res.body as ReadableStream<Uint8Array>).getReader()
      const firstPart = await reader.read()
      expect(new TextDecoder().decode(firstPart.value)).toContain('"code":0')
      ac.abort()
      expect(await untilIdle(10_000)).toBeLessThan(10_000)
      expect((await sql('select count(*) from qc.m')).body.data).toEqual([[ROWS]])
      // give a late pull a moment to misbehave
      await new Promise((r) => setTimeout(r, 300))
      expect(logLines.filter((l) => l.includes('Controller is already closed'))).toEqual([])
      expect(errorLines()).toEqual([])
    } finally {
      config.rest.queryTimeout = saved
    }
  }, 30_000)
})

describe('log.slowQueryThreshold', () => {
  it('logs a statement slower than the threshold, with its SQL and duration, and no faster one', async () => {
    const saved = config.log.slowQueryThreshold
    const stmt = 'select count(*) from qc.m where s match concat(s, \'x\') and _ts < 1700000010000'
    const slowLines = (from: number) =>
      logLines
        .slice(from)
        .map((l) => JSON.parse(l) as { level: number; msg: string; sql?: string; ms?: number; outcome?: string })
        .filter((l) => l.msg.startsWith('slow query'))
    try {
      // the handler reads the config per request: a 1 ms threshold every statement passes
      config.log.slowQueryThreshold = 1
      let from = logLines.length
      const r = await sql(stmt)
      expect(r.body.code).toBe(0)
      const slow = slowLines(from)
      expect(slow).toHaveLength(1)
      expect(slow[0]).toMatchObject({ level: 40, sql: stmt, outcome: 'ok' })
      expect(slow[0].ms).toBeGreaterThanOrEqual(1)
      // an hour: the same statement is not slow
      config.log.slowQueryThreshold = 3_600_000
      from = logLines.length
      expect((await sql(stmt)).body.code).toBe(0)
      expect(slowLines(from)).toEqual([])
    } finally {
      config.log.slowQueryThreshold = saved
    }
  }, 30_000)
})
