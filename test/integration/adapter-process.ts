import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '../lib/free-port.js'
import { adapterProcessEnv, childStopper } from '../lib/adapter-process.js'

const ROOT = join(import.meta.dirname, '..', '..')
export const ROOT_AUTH = `Basic ${Buffer.from('root:taosdata').toString('base64')}`

/** One real adapter process (`node --import tsx src/main.ts`), as a replica runs it. */
export interface AdapterProcess {
  base: string
  port: number
  child: ChildProcess
  stderr(): string
  /** SIGTERM and wait for the exit (SIGKILL after 10 s) */
  stop(): Promise<void>
}

export async function startAdapter(storageUrl: string, extra: string[] = [], port?: number): Promise<AdapterProcess> {
  const p = port ?? (await freePort())
  const env = adapterProcessEnv()
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/main.ts', `--port=${p}`, `--storage.url=${storageUrl}`, '--logLevel=warn', `--log.path=${mkdtempSync(join(tmpdir(), 'adapter-logs-'))}`, ...extra],
    { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] },
  )
  let err = ''
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString('utf8')
  })
  const stop = childStopper(child)
  const base = `http://127.0.0.1:${p}`
  const proc: AdapterProcess = {
    base,
    port: p,
    child,
    stderr: () => err,
    stop,
  }
  await waitListening(proc, 60_000)
  return proc
}

/** Until `/-/live` answers (the process listens; storage may still be down). */
async function waitListening(proc: AdapterProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (proc.child.exitCode !== null) {
      throw new Error(`adapter exited early (${proc.child.exitCode}): ${proc.stderr()}`)
    }
    try {
      const res = await fetch(`${proc.base}/-/live`)
      if (res.status === 200) {
        return
      }
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`adapter not listening within ${timeoutMs} ms; stderr: ${proc.stderr()}`)
}

/** Until `/-/ping?action=query` is 200 (catalog loaded, database reachable). */
export async function waitQueryReady(base: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  let last = 0
  while (Date.now() < deadline) {
    try {
      last = (await fetch(`${base}/-/ping?action=query`)).status
      if (last === 200) {
        return
      }
    } catch {
      // not listening
    }
    await new Promise((r) => setTimeout(r, 200))
  }
  throw new Error(`${base} not query-ready within ${timeoutMs} ms (last status ${last})`)
}

export interface SqlReply {
  status: number
  json: any
  text: string
}

export async function sql(base: string, stmt: string): Promise<SqlReply> {
  const res = await fetch(`${base}/rest/sql`, { method: 'POST', headers: { Authorization: ROOT_AUTH }, body: stmt })
  const text = await res.text()
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  return { status: res.status, json, text }
}

/** sql() that must succeed (HTTP 200, code 0); the error names the statement and the reply. */
export async function sqlOk(base: string, stmt: string): Promise<SqlReply> {
  const r = await sql(base, stmt)
  if (r.status !== 200 || r.json?.code !== 0) {
    throw new Error(`${base}: ${stmt} -> ${r.status} ${r.text}`)
  }
  return r
}
