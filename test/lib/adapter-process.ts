import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { NODE_FLAGS } from '../../src/node-flags.js'
import { freePort } from './free-port.js'

const ROOT = join(import.meta.dirname, '..', '..')

/** One real adapter process (`node --import tsx src/main.ts`, as `npm start` runs it) on loopback. */
export interface AdapterProcess {
  base: string
  port: number
  child: ChildProcess
  stdout(): string
  stderr(): string
  /** SIGTERM and wait for the exit (SIGKILL after 10 s) */
  stop(): Promise<void>
}

export interface AdapterProcessOptions {
  /** extra command-line flags */
  args?: string[]
  /** extra environment (the DB_ADAPTER_* of the caller's shell are never passed on) */
  env?: Record<string, string>
  /** working directory (where a `.env` would be read); default the repository */
  cwd?: string
}

/**
 * The environment of a test adapter process: the caller's without its DB_ADAPTER_* / DB_MONITOR_*
 * (nothing leaks in from a developer's shell), the receivers and the management server off (several adapters run at once and
 * their ports are fixed), then `extra`.
 */
export function adapterProcessEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith('DB_ADAPTER_') && !k.startsWith('DB_MONITOR_')) {
      env[k] = v
    }
  }
  env.DB_ADAPTER_COLLAGENT_ENABLE = 'false'
  env.DB_ADAPTER_STATSAGENT_ENABLE = 'false'
  env.DB_ADAPTER_HOSTEXPORTER_ENABLE = 'false'
  env.DB_ADAPTER_MANAGER_ENABLE = 'false'
  return Object.assign(env, extra)
}

/** Stops `child` when called: SIGTERM, SIGKILL after 10 s, resolved at its exit. Make it right after spawn. */
export function childStopper(child: ChildProcess): () => Promise<void> {
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve())
  })
  return async () => {
    if (child.exitCode !== null || child.signalCode !== null) {
      return
    }
    child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
    await exited
    clearTimeout(timer)
  }
}

export async function startAdapterProcess(storageUrl: string, opts: AdapterProcessOptions = {}): Promise<AdapterProcess> {
  const port = await freePort()
  const env = adapterProcessEnv(opts.env)
  const args = [
    ...NODE_FLAGS,
    '--import',
    'tsx',
    join(ROOT, 'src', 'main.ts'),
    `--port=${port}`,
    '--host=127.0.0.1',
    `--storage.url=${storageUrl}`,
    '--logLevel=info',
    `--log.path=${mkdtempSync(join(tmpdir(), 'adapter-logs-'))}`,
    ...(opts.args ?? []),
  ]
  const child = spawn(process.execPath, args, { cwd: opts.cwd ?? ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString('utf8')
  })
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString('utf8')
  })
  const stop = childStopper(child)
  const base = `http://127.0.0.1:${port}`
  const proc: AdapterProcess = {
    base,
    port,
    child,
    stdout: () => out,
    stderr: () => err,
    stop,
  }
  await waitQueryReady(proc, 60_000)
  return proc
}

/** Until `/-/ping?action=query` is 200 (listening, catalog loaded). */
async function waitQueryReady(proc: AdapterProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (proc.child.exitCode !== null) {
      throw new Error(`adapter exited early (${proc.child.exitCode}): ${proc.stderr()}`)
    }
    try {
      if ((await fetch(`${proc.base}/-/ping?action=query`)).status === 200) {
        return
      }
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`adapter not ready within ${timeoutMs} ms; stderr: ${proc.stderr()}`)
}
