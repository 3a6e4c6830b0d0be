/**
 * README.md's examples, verbatim and in order, against a real adapter process on a fresh data
 * directory, as a user would paste them into one shell after `npm start`.
 *
 * Which blocks run: every ```sh block, in one bash (`set -eo pipefail`), with `localhost:6041`
 * and `localhost:6060` rewritten to the adapter's and its management server's ports. Lines starting with `npm ` (install, start, test) are left out.
 * A block that must not run is marked by the line before its fence:
 *   <!-- readme-test: not run (why) -->
 * Every other block runs, so a new example is tested unless it is marked on purpose.
 *
 * Each `curl` goes through a bash function that calls the real curl (Debian's; installed first
 * when missing, see test/lib/debian-package.ts) with -D to a file: a status other than 2xx, or a
 * /rest/sql answer without "code":0, stops the script with the command and the answer. The test
 * also checks every curl line of the README ran. Then the snippets that are not shell are checked
 * against what the examples made: Prometheus' remote_write URL takes a real Prometheus 2.42 body
 * into the database the examples created, remote_read's database exists, collectd's port is the
 * receiver's default, and the TOML file loads.
 */
import { spawn } from 'node:child_process'
import { createSocket } from 'node:dgram'
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultConfig, loadConfig } from '../src/config/index.js'
import type { AppConfig } from '../src/config/types.js'
import { NODE_FLAGS } from '../src/node-flags.js'
import { needDebianPackages, program } from './lib/debian-package.js'
import { freePort } from './lib/free-port.js'

const REPO = join(import.meta.dirname, '..')
const README = readFileSync(join(REPO, 'README.md'), 'utf8')
const AUTH = `Basic ${Buffer.from('root:taosdata').toString('base64')}`
const need = needDebianPackages('README examples', [{ pkg: 'curl', present: program('curl') }])

interface Block {
  lang: string
  /** 1-based line of the opening fence */
  line: number
  text: string
  /** the marker's reason when the block is marked not to run */
  notRun?: string
}

/** The fenced blocks of a Markdown text, with the readme-test marker of the line before each. */
function fencedBlocks(md: string): Block[] {
  const lines = md.split('\n')
  const blocks: Block[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i])
    if (!open) {
      continue
    }
    const end = lines.findIndex((l, j) => j > i && l.startsWith('```'))
    expect(end, `README.md:${i + 1}: unclosed fence`).toBeGreaterThan(i)
    const marker = /^<!-- readme-test: not run \((.+)\) -->$/.exec(lines[i - 1] ?? '')
    blocks.push({ lang: open[1], line: i + 1, text: lines.slice(i + 1, end).join('\n'), notRun: marker?.[1] })
    i = end
  }
  return blocks
}

/** The lines of the blocks that run, npm lines left out. */
function runnable(md: string): Block[] {
  return fencedBlocks(md)
    .filter((b) => b.lang === 'sh' && b.notRun === undefined)
    .map((b) => ({ ...b, text: b.text.split('\n').filter((l) => !/^npm\s/.test(l)).join('\n') }))
    .filter((b) => b.text.split('\n').some((l) => l.trim() !== '' && !l.trim().startsWith('#')))
}

/** The bash function every README curl goes through (see the header). */
const CURL_CHECK = String.raw`
curl() {
  local hdr body url="" a code status
  hdr="$(mktemp)"; body="$(mktemp)"
  for a in "$@"; do
    case "$a" in *127.0.0.1:*) url="$a" ;; esac
  done
  code=0
  command curl --max-time 60 -D "$hdr" "$@" > "$body" || code=$?
  cat "$body"
  status="$(awk '/^HTTP\// { s = $2 } END { print s }' "$hdr")"
  printf '%s %s\n' "$status" "$url" >> "$README_CALLS"
  case "$code $status" in
    "0 2"??) ;;
    *)
      printf '\nREADME example failed (curl exit %s, HTTP %s): curl %s\n%s\n' "$code" "$status" "$*" "$(cat "$body")" >&2
      return 1 ;;
  esac
  case "$url" in
    */rest/sql*)
      if ! grep -q '"code":0' "$body"; then
        printf '\nREADME example failed (no "code":0): curl %s\n%s\n' "$*" "$(cat "$body")" >&2
        return 1
      fi ;;
  esac
}
`

/** The script: the function, then each block after a line naming it, with the port rewritten. */
function readmeScript(md: string, port: number, managerPort: number): string {
  const parts = runnable(md).map((b) => `echo "### README.md:${b.line}" >&2\n${b.text.replaceAll('localhost:6041', `127.0.0.1:${port}`).replaceAll('localhost:6060', `127.0.0.1:${managerPort}`)}`)
  return `set -eo pipefail\n${CURL_CHECK}\n${parts.join('\n')}\n`
}

/** A line that starts a curl command (continuation lines belong to it). */
const curlLines = (md: string): number =>
  runnable(md)
    .flatMap((b) => b.text.split('\n'))
    .filter((l) => /^(?:\w+=\$\()?curl\s/.test(l)).length

interface Adapter {
  child: ChildProcess
  port: number
  managerPort: number
  base: string
  log: () => string
}

/** A UDP port nobody has bound right now (for the collectd receiver, on as by default). */
function freeUdpPort(): Promise<number> {
  const sock = createSocket('udp4')
  return new Promise((resolve, reject) => {
    sock.once('error', reject)
    sock.bind(0, '127.0.0.1', () => {
      const { port } = sock.address()
      sock.close(() => resolve(port))
    })
  })
}

async function startAdapter(): Promise<Adapter> {
  const dir = mkdtempSync(join(tmpdir(), 'readme-'))
  const port = await freePort()
  const managerPort = await freePort()
  // a fresh start as `npm start` makes it, on its own port, data folder and log folder; the
  // collectd and StatsD receivers stay on (their default), each on a port of its own
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith('DB_ADAPTER_') && !k.startsWith('DB_MONITOR_')) {
      env[k] = v
    }
  }
  const args = [
    ...NODE_FLAGS, '--import', 'tsx', 'src/main.ts',
    `--port=${port}`, '--host=127.0.0.1', `--storage.url=duckdb:${join(dir, 'data/db-adapter.duckdb')}`,
    `--log.path=${join(dir, 'log')}`, `--collagent.port=${await freeUdpPort()}`, `--statsagent.port=${await freeUdpPort()}`,
    `--manager.port=${managerPort}`,
  ]
  const child = spawn(process.execPath, args, { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()))
  const base = `http://127.0.0.1:${port}`
  const until = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`adapter exited with ${child.exitCode}:\n${out}`)
    }
    try {
      if ((await fetch(`${base}/-/ping`)).status === 200) {
        return { child, port, managerPort, base, log: () => out }
      }
    } catch {
      // not listening yet
    }
    if (Date.now() > until) {
      child.kill('SIGKILL')
      throw new Error(`adapter not ready within 60 s:\n${out}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
}

function bash(script: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn('bash', ['-c', script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })))
}

async function sqlRows(base: string, sql: string): Promise<unknown[][]> {
  const res = await fetch(`${base}/rest/sql`, { method: 'POST', body: sql, headers: { Authorization: AUTH } })
  const body = (await res.json()) as { code: number; data: unknown[][]; desc?: string }
  expect(body.code, `${sql}: ${body.desc}`).toBe(0)
  return body.data
}

describe('README.md blocks', () => {
  it('marks what it does not run, and runs the rest', () => {
    const blocks = fencedBlocks(README)
    const sh = blocks.filter((b) => b.lang === 'sh')
    // the deployment and development blocks are marked; the usage examples are not
    expect(sh.filter((b) => b.notRun !== undefined).length).toBeGreaterThanOrEqual(3)
    const run = runnable(README)
    expect(run.length).toBeGreaterThanOrEqual(4)
    expect(run.map((b) => b.text).join('\n')).toMatch(/CREATE DATABASE metrics[\s\S]*lineproto[\s\S]*CREATE DATABASE prom/)
    expect(curlLines(README)).toBeGreaterThanOrEqual(10)
  })
})

describe.skipIf(need.skip)('README.md examples against a started adapter', () => {
  let adapter: Adapter
  let run: { code: number | null; stdout: string; stderr: string }
  let calls: string[]

  beforeAll(async () => {
    adapter = await startAdapter()
    const dir = mkdtempSync(join(tmpdir(), 'readme-run-'))
    const log = join(dir, 'calls')
    writeFileSync(log, '')
    run = await bash(readmeScript(README, adapter.port, adapter.managerPort), { README_CALLS: log })
    calls = readFileSync(log, 'utf8').trim().split('\n').filter(Boolean)
  }, 120_000)

  afterAll(async () => {
    if (adapter && adapter.child.exitCode === null) {
      const exited = new Promise((r) => adapter.child.once('exit', r))
      adapter.child.kill('SIGTERM')
      await exited
    }
  })

  it('every shell example runs, each curl answering 2xx (and "code":0 from /rest/sql)', () => {
    expect(run.code, `${run.stderr}\n--- stdout\n${run.stdout}\n--- adapter\n${adapter.log().slice(-3000)}`).toBe(0)
    expect(calls).toHaveLength(curlLines(README))
    for (const c of calls) {
      expect(c).toMatch(/^2\d\d (http:\/\/)?127\.0\.0\.1:\d+\//)
    }
  })

  it('the examples left what they say: power and metrics data, the prom database', async () => {
    expect(await sqlRows(adapter.base, 'select count(*) from power.meters')).toEqual([[2]])
    const stables = (await sqlRows(adapter.base, 'show metrics.stables')).map((r) => r[0]).sort()
    expect(stables).toEqual(['cpu', 'sys_cpu', 'sys_mem'])
    const dbs = (await sqlRows(adapter.base, 'show databases')).map((r) => r[0])
    expect(dbs).toEqual(expect.arrayContaining(['power', 'metrics', 'prom']))
  })

  it("Prometheus' remote_write URL takes a real Prometheus body; remote_read's database exists", async () => {
    const yaml = fencedBlocks(README).filter((b) => b.lang === 'yaml')[0].text
    const write = /remote_write:\s*\n\s*- url: http:\/\/[^/]+(\/metricsproto\/v1\/remote_write\/(\w+))\n\s*basic_auth: \{username: (\w+), password: (\w+)\}/.exec(yaml)
    const read = /remote_read:\s*\n\s*- url: http:\/\/[^/]+\/metricsproto\/v1\/remote_read\/(\w+)/.exec(yaml)
    expect(write, yaml).not.toBeNull()
    expect(read, yaml).not.toBeNull()
    const [, path, db, user, password] = write!
    const body = readFileSync(join(REPO, 'test/ingest/fixtures/prom2.42_remote_write.snappy.pb'))
    const res = await fetch(`${adapter.base}${path}`, {
      method: 'POST',
      body,
      headers: {
        Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
        'Content-Encoding': 'snappy',
        'Content-Type': 'application/x-protobuf',
        'X-Prometheus-Remote-Write-Version': '0.1.0',
      },
    })
    expect(res.status, await res.clone().text()).toBe(204)
    const [[samples]] = (await sqlRows(adapter.base, `select count(*) from ${db}.metrics`)) as [[number]]
    expect(samples).toBeGreaterThan(0)
    expect((await sqlRows(adapter.base, 'show databases')).map((r) => r[0])).toContain(read![1])
  })

  it("collectd's snippet names the receiver's default port; the TOML example loads", () => {
    const collectd = fencedBlocks(README).find((b) => b.lang === '' && b.text.includes('LoadPlugin network'))
    expect(collectd).toBeDefined()
    expect(/Server "[^"]+" "(\d+)"/.exec(collectd!.text)?.[1]).toBe(String(defaultConfig().collagent.port))
    const dir = mkdtempSync(join(tmpdir(), 'readme-toml-'))
    const load = (text: string): AppConfig => {
      writeFileSync(join(dir, 'adapter.toml'), text)
      const r = loadConfig(['-c', join(dir, 'adapter.toml')], {}, { cwd: dir })
      if (r.kind !== 'run') {
        throw new Error(`README TOML did not load: ${JSON.stringify(r)}`)
      }
      return r.config
    }
    const tomls = fencedBlocks(README).filter((b) => b.lang === 'toml')
    const main = tomls.find((b) => b.text.includes('[storage]'))
    expect(main).toBeDefined()
    const config = load(main!.text)
    expect(config.smlAutoCreateDB).toBe(true)
    expect(config.tsdbproto_telnet.ports).toEqual([6046, 6047, 6048, 6049])
    // the receivers' snippets load too
    const scraper = tomls.find((b) => b.text.includes('[hostexporter]'))
    expect(scraper).toBeDefined()
    const h = load(scraper!.text).hostexporter
    expect([h.enable, h.urls.length, h.gatherDuration, h.insecureSkipVerify]).toEqual([true, 2, 10_000, false])
  })
})
