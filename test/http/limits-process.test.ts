/**
 * Issue 33 figures that need the adapter in a process of its own (default flags, so
 * http.maxBodySize is 64 MB): /-/ping stays under 100 ms while 16 clients post 60 MB SQL
 * literals (each refused after TDengine's 1 MiB statement limit), and decompression bombs
 * (snappy announcing 400 MiB in 19 MB, gzip inflating to 256 MB) are refused quickly without the
 * process's resident memory growing by hundreds of MB (its peak, VmHWM, is measured).
 */
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { createGzip } from 'node:zlib'
import { uncompressSync } from 'snappy'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT_AUTH } from '../ingest/server.js'
import { startAdapterProcess, type AdapterProcess } from '../lib/adapter-process-rss.js'
import { sendOversize } from '../lib/oversize.js'

const MB = 1024 * 1024

/**
 * A valid snappy block of `copies * 64 + 1` zero bytes, hand-built so the test never holds the
 * inflated bytes: its preamble (the decoded length as a varint), one literal zero, then copies
 * of 64 bytes at offset 1 (3 bytes each: snappy's best ratio, about 21:1).
 */
function snappyBomb(copies: number): Buffer {
  const decoded = copies * 64 + 1
  const preamble: number[] = []
  for (let n = decoded; ; ) {
    if (n < 0x80) {
      preamble.push(n)
      break
    }
    preamble.push((n & 0x7f) | 0x80)
    n = Math.floor(n / 128)
  }
  const out = Buffer.alloc(preamble.length + 2 + copies * 3)
  out.set(preamble, 0)
  let at = preamble.length
  out[at++] = 0x00 // literal, length 1
  out[at++] = 0x00
  for (let i = 0; i < copies; i++) {
    out[at++] = (63 << 2) | 2 // copy with a 2-byte offset, length 64
    out[at++] = 1
    out[at++] = 0
  }
  return out
}

/** gzip of `mb` MiB of zeros, compressed as a stream (never holding the inflated bytes). */
async function gzipBomb(mb: number): Promise<Buffer> {
  const gz = createGzip({ level: 1 })
  const parts: Buffer[] = []
  gz.on('data', (d: Buffer) => parts.push(d))
  const done = new Promise((resolve) => gz.on('end', resolve))
  const zeros = Buffer.alloc(MB)
  for (let i = 0; i < mb; i++) {
    if (!gz.write(zeros)) {
      await new Promise((r) => gz.once('drain', r))
    }
  }
  gz.end()
  await done
  return Buffer.concat(parts)
}

async function post(url: string, body: Buffer | string, headers: Record<string, string> = {}): Promise<{ status: number; text: string; ms: number }> {
  const started = Date.now()
  const res = await fetch(url, { method: 'POST', headers: { Authorization: ROOT_AUTH, ...headers }, body })
  const text = await res.text()
  return { status: res.status, text, ms: Date.now() - started }
}

describe('limits of a real adapter process (default flags)', () => {
  let adapter: AdapterProcess

  beforeAll(async () => {
    adapter = await startAdapterProcess()
    const created = await post(`${adapter.url}/rest/sql`, 'create database bombs')
    expect(created.text).toContain('"code":0')
  }, 60_000)

  afterAll(async () => {
    await adapter?.stop()
  })

  it('the hand-built snappy bomb is valid snappy (a small one inflates to what it announces)', () => {
    const small = uncompressSync(snappyBomb(1000), { asBuffer: true }) as Buffer
    expect(small.length).toBe(64_001)
    expect(small.every((b) => b === 0)).toBe(true)
  })

  it('a remote write of 19 MB of snappy announcing 400 MiB is refused with 413 before inflating', async () => {
    const bomb = snappyBomb(400 * MB / 64)
    expect(bomb.length).toBeLessThan(20 * MB)
    await post(`${adapter.url}/-/ping`, '') // warm the connection
    const before = adapter.memory()
    adapter.resetPeak()
    const answer = await post(`${adapter.url}/metricsproto/v1/remote_write/bombs`, bomb, { 'Content-Encoding': 'snappy', 'Content-Type': 'application/x-protobuf' })
    const after = adapter.memory()
    expect(answer.status, answer.text).toBe(413)
    expect(JSON.parse(answer.text)).toMatchObject({ code: 413, desc: expect.stringContaining('http.maxBodySize') })
    expect(answer.text).toContain(`decodes to ${400 * MB + 1} bytes`)
    // upload included: well under a second (it took 14 s when the body was inflated first)
    expect(answer.ms).toBeLessThan(1_000)
    // the 19 MB body is read; the 400 MiB are never allocated
    expect(after.peak - before.rss).toBeLessThan(128 * MB)
  })

  it('a remote read announcing 400 MiB is refused the same way', async () => {
    const answer = await post(`${adapter.url}/metricsproto/v1/remote_read/bombs`, snappyBomb(400 * MB / 64))
    expect(answer.status, answer.text).toBe(413)
  })

  it('a gzip line-protocol body inflating to 256 MB is stopped at the 64 MB cap', async () => {
    const bomb = await gzipBomb(256)
    expect(bomb.length).toBeLessThan(2 * MB)
    const before = adapter.memory()
    adapter.resetPeak()
    const answer = await post(`${adapter.url}/lineproto/v1/write?db=bombs`, bomb, { 'Content-Encoding': 'gzip' })
    const after = adapter.memory()
    expect(answer.status, answer.text).toBe(413)
    expect(answer.text).toContain('http.maxBodySize')
    expect(answer.ms).toBeLessThan(3_000)
    // at most the 64 MB cap is held, never the 256 MB
    expect(after.peak - before.rss).toBeLessThan(192 * MB)
  })

  it('SQL over TDengine\'s 1 MiB statement limit: declared answers at once, chunked is cut after 1 MiB', async () => {
    const declared = await sendOversize(`${adapter.url}/rest/sql`, { Authorization: ROOT_AUTH }, { declared: 2 * MB })
    expect(declared.status).toBe(200)
    expect(declared.json).toEqual({ code: 537, desc: 'SQL statement too long' })
    expect(declared.ms).toBeLessThan(1_000)
    const chunked = await sendOversize(`${adapter.url}/rest/sql`, { Authorization: ROOT_AUTH }, { chunk: Buffer.alloc(64 * 1024, 0x78), max: 60 * MB })
    expect(chunked.json).toEqual({ code: 537, desc: 'SQL statement too long' })
    expect(chunked.sent).toBeLessThan(32 * MB)
    // over http.maxBodySize itself: 413
    const huge = await sendOversize(`${adapter.url}/rest/sql`, { Authorization: ROOT_AUTH }, { declared: 2_147_483_648 })
    expect(huge.status).toBe(413)
    expect(huge.json).toEqual({ code: 65535, desc: 'request body exceeds http.maxBodySize (67108864 bytes)' })
    expect(huge.ms).toBeLessThan(1_000)
  })

  /** 16 clients posting 60 MB SQL literals from a process of their own, while this one pings. */
  async function literalsWhilePinging(): Promise<{ answers: Array<{ status: number; json: unknown; sent: number }>; pings: number[] }> {
    const load = spawn(process.execPath, ['--import', 'tsx', 'test/lib/oversize-load.ts', adapter.url, '16', '60'], {
      cwd: join(import.meta.dirname, '..', '..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    let err = ''
    load.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')))
    load.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')))
    let done = false
    const exited = new Promise<number | null>((resolve) => load.once('exit', (code) => resolve(code))).finally(() => {
      done = true
    })
    const pings: number[] = []
    while (!done) {
      const started = performance.now()
      const res = await fetch(`${adapter.url}/-/ping`)
      await res.arrayBuffer()
      pings.push(performance.now() - started)
      await new Promise((r) => setTimeout(r, 5))
    }
    expect(await exited, err).toBe(0)
    return { answers: JSON.parse(out) as Array<{ status: number; json: unknown; sent: number }>, pings }
  }

  it('/-/ping stays under 100 ms while 16 clients post 60 MB SQL literals', async () => {
    // a first round warms the code paths of both processes (tsx compiling the clients included)
    await literalsWhilePinging()
    const { answers, pings } = await literalsWhilePinging()
    expect(answers).toHaveLength(16)
    for (const a of answers) {
      expect(a.json).toEqual({ code: 537, desc: 'SQL statement too long' })
      expect(a.sent).toBeLessThan(32 * MB)
    }
    expect(pings.length).toBeGreaterThan(0)
    expect(Math.max(...pings)).toBeLessThan(100)
  }, 60_000)
})
