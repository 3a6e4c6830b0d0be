/**
 * Graceful drain of the REAL adapter process on SIGTERM: a request whose body is still arriving
 * completes with 204; keep-alive clients in the middle of a series (pings, writes) get their
 * next answer with `Connection: close` (the ping one 503) and then a refused connection, never a
 * reset; the process exits 0 within `shutdown.gracePeriod`; every acknowledged row is there after
 * a restart on the same file.
 */
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { request, Agent } from 'node:http'
import type { IncomingHttpHeaders } from 'node:http'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { NODE_FLAGS } from '../../src/node-flags.js'
import { freePort } from '../lib/free-port.js'
import { adapterProcessEnv } from '../lib/adapter-process.js'

const ROOT = join(import.meta.dirname, '..', '..')
const AUTH = `Basic ${Buffer.from('root:taosdata').toString('base64')}`
const GRACE_MS = 15_000

interface Proc {
  child: ChildProcess
  stderr: () => string
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

function startProcess(args: string[]): Proc {
  // a clean environment, receivers off (several adapters run at once)
  const env = adapterProcessEnv()
  const child = spawn(process.execPath, [...NODE_FLAGS, '--import', 'tsx', 'src/main.ts', ...args], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] })
  let err = ''
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString('utf8')
  })
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }))
  })
  return { child, stderr: () => err, exited }
}

async function waitReady(base: string, proc: Proc): Promise<void> {
  const deadline = Date.now() + 45_000
  while (Date.now() < deadline) {
    if (proc.child.exitCode !== null) {
      throw new Error(`adapter exited early: ${proc.stderr()}`)
    }
    try {
      if ((await fetch(`${base}/-/ping`)).status === 200) {
        return
      }
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`adapter not ready: ${proc.stderr()}`)
}

interface Answer {
  status: number
  connection: string | undefined
  body: string
}

/** One request on `agent`; resolves with the answer or rejects with the socket error (its code). */
function send(port: number, agent: Agent | undefined, method: string, path: string, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent, headers: { Authorization: AUTH } }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (d: string) => (text += d))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: (res.headers as IncomingHttpHeaders).connection, body: text }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}

interface Series {
  answers: Answer[]
  /** the error that ended the series */
  ended: Promise<string>
}

/** Requests back to back on one keep-alive connection until one fails. */
function series(port: number, next: (i: number) => { method: string; path: string; body?: string }): Series {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const answers: Answer[] = []
  const ended = (async () => {
    for (let i = 0; ; i++) {
      const r = next(i)
      try {
        answers.push(await send(port, agent, r.method, r.path, r.body))
      } catch (err) {
        agent.destroy()
        return (err as NodeJS.ErrnoException).code ?? String(err)
      }
      await new Promise((res) => setTimeout(res, 20))
    }
  })()
  return { answers, ended }
}

describe('graceful drain on SIGTERM (real process)', () => {
  it('finishes accepted requests, closes keep-alive connections cleanly, exits 0, keeps acknowledged data', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'e2e-drain-'))
    const port = await freePort()
    const base = `http://127.0.0.1:${port}`
    const argv = [`--port=${port}`, `--storage.url=duckdb:${join(dir, 'd.duckdb')}`, `--log.path=${dir}`, `--shutdown.gracePeriod=${GRACE_MS / 1000}s`]
    let proc = startProcess(argv)
    try {
      await waitReady(base, proc)
      expect((await send(port, undefined, 'POST', '/rest/sql', 'CREATE DATABASE dr PRECISION "ms"')).body).toContain('"code":0')
      const before = await send(port, undefined, 'POST', '/lineproto/v1/write?db=dr&precision=ms', 'm,s=before v=1 1700000000000\nm,s=before v=2 1700000000001')
      expect(before.status).toBe(204)

      // a request accepted before SIGTERM whose body is still arriving after it
      const slowAnswer = new Promise<Answer>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/lineproto/v1/write?db=dr&precision=ms', headers: { Authorization: AUTH, 'Transfer-Encoding': 'chunked' } }, (res) => {
          res.resume()
          res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body: '' }))
        })
        req.on('error', reject)
        req.write('m,s=slow v=1 1700000001000\n')
        setTimeout(() => req.end('m,s=slow v=2 1700000001001\n'), 1500)
      })
      const pings = series(port, () => ({ method: 'GET', path: '/-/ping' }))
      const writes = series(port, (i) => ({ method: 'POST', path: '/lineproto/v1/write?db=dr&precision=ms', body: `m,s=series v=${i} ${1700000002000 + i}` }))
      await new Promise((r) => setTimeout(r, 500))
      expect(pings.answers.length).toBeGreaterThan(3)
      expect(writes.answers.length).toBeGreaterThan(3)

      const t0 = Date.now()
      proc.child.kill('SIGTERM')
      const [pingEnd, writeEnd] = await Promise.all([pings.ended, writes.ended])
      // after the drain began the next connection is refused: never a reset or a hang-up
      expect(pingEnd).toBe('ECONNREFUSED')
      expect(writeEnd).toBe('ECONNREFUSED')
      // before SIGTERM 200 with keep-alive; the last answer says 503 and closes the connection
      const lastPing = pings.answers.at(-1) as Answer
      expect(lastPing).toMatchObject({ status: 503, connection: 'close' })
      expect(pings.answers.slice(0, -1).every((a) => a.connection === 'keep-alive')).toBe(true)
      expect(pings.answers.filter((a) => a.status !== 200 && a.status !== 503)).toEqual([])
      expect(writes.answers.every((a) => a.status === 204)).toBe(true)
      expect((writes.answers.at(-1) as Answer).connection).toBe('close')

      const slow = await slowAnswer
      expect(slow).toMatchObject({ status: 204, connection: 'close' })
      const { code, signal } = await proc.exited
      expect(signal).toBeNull()
      expect(code).toBe(0)
      expect(Date.now() - t0).toBeLessThan(GRACE_MS)

      // everything acknowledged is there after a restart on the same file
      proc = startProcess(argv)
      await waitReady(base, proc)
      const counted = await send(port, undefined, 'POST', '/rest/sql', "select s, count(*) from dr.m group by s order by s")
      expect(JSON.parse(counted.body).data).toEqual([
        ['before', 2],
        ['series', writes.answers.length],
        ['slow', 2],
      ])
    } finally {
      if (proc.child.exitCode === null && proc.child.signalCode === null) {
        proc.child.kill('SIGKILL')
        await proc.exited
      }
    }
  }, 120_000)
})
