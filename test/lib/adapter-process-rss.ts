/**
 * A real adapter in a process of its own (node, NODE_FLAGS, src/main.ts): for tests that measure
 * what the server does under load without the test's own client work sharing its event loop,
 * and that read its memory (/proc/<pid>/status).
 */
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { NODE_FLAGS } from '../../src/node-flags.js'
import { adapterProcessEnv, childStopper } from './adapter-process.js'
import { freePort } from './free-port.js'

const ROOT = join(import.meta.dirname, '..', '..')

export interface AdapterProcess {
  url: string
  pid: number
  stderr: () => string
  /** resident set (VmRSS) and its peak since the last resetPeak (VmHWM), in bytes */
  memory: () => { rss: number; peak: number }
  /** starts a new peak (writes 5 to /proc/<pid>/clear_refs) */
  resetPeak: () => void
  stop: () => Promise<void>
}

function statusKb(pid: number, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  if (m === null) {
    throw new Error(`/proc/${pid}/status has no ${field}`)
  }
  return Number(m[1]) * 1024
}

/** Starts the adapter with `args` (DuckDB in memory, loopback, no receivers) and waits for /-/ping. */
export async function startAdapterProcess(args: string[] = [], readyMs = 45_000): Promise<AdapterProcess> {
  const port = await freePort()
  const env = adapterProcessEnv()
  const child: ChildProcess = spawn(
    process.execPath,
    [
      ...NODE_FLAGS,
      '--import',
      'tsx',
      'src/main.ts',
      `--port=${port}`,
      '--host=127.0.0.1',
      '--storage.url=duckdb::memory:',
      `--log.path=${mkdtempSync(join(tmpdir(), 'adapter-process-'))}`,
      ...args,
    ],
    { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] },
  )
  let err = ''
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString('utf8')
  })
  const stop = childStopper(child)
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + readyMs
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`adapter exited early (${child.exitCode}): ${err}`)
    }
    const ok = await fetch(`${url}/-/ping`).then(
      (r) => r.status === 200,
      () => false,
    )
    if (ok) {
      break
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`adapter not ready within ${readyMs} ms: ${err}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  const pid = child.pid as number
  return {
    url,
    pid,
    stderr: () => err,
    memory: () => ({ rss: statusKb(pid, 'VmRSS'), peak: statusKb(pid, 'VmHWM') }),
    resetPeak: () => writeFileSync(`/proc/${pid}/clear_refs`, '5'),
    stop,
  }
}
