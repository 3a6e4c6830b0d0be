/**
 * test/lib/debian-package.ts in child processes, as test files use it at load time: the one skip
 * line, the failure under DB_ADAPTER_TEST_REQUIRE_PACKAGES=1, and (as root) the install path with
 * an apt-get put first on the PATH that counts its calls, so two workers of one run that need the
 * same package run it once between them. The real apt-get is exercised by the tests that need
 * packages (and by .ci/run on a fresh machine).
 */
import { spawn } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const REPO = join(import.meta.dirname, '../..')
const ROOT = process.getuid?.() === 0

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

/** needDebianPackages('demo', [{ pkg, present: file(marker) }]) in a fresh node; prints the result */
function need(pkg: string, marker: string, env: Record<string, string>): Promise<Run> {
  const script = `
import { file, needDebianPackages } from './test/lib/debian-package.ts'
console.log(JSON.stringify(needDebianPackages('demo', [{ pkg: ${JSON.stringify(pkg)}, present: file(${JSON.stringify(marker)}) }])))`
  const clean: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith('DB_ADAPTER_TEST_')) {
      clean[k] = v
    }
  }
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: REPO, env: { ...clean, ...env } })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })))
}

/** a folder with an apt-get that logs each call, sleeps a little and then runs `body` */
function fakeApt(body: string): { dir: string; calls: () => string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'fake-apt-'))
  const log = join(dir, 'calls')
  writeFileSync(join(dir, 'apt-get'), `#!/bin/sh\necho "$*" >> '${log}'\nsleep 0.5\n${body}\n`)
  chmodSync(join(dir, 'apt-get'), 0o755)
  return { dir, calls: () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []) }
}

describe('needDebianPackages', () => {
  it('present: no skip, no line', async () => {
    const r = await need('demo-pkg', REPO, { DB_ADAPTER_TEST_NO_APT: '1' })
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual({ skip: false, missing: [] })
    expect(r.stderr).toBe('')
  })

  it('missing and not installable: skipped with one line naming the package', async () => {
    const r = await need('demo-pkg', '/nonexistent/demo', { DB_ADAPTER_TEST_NO_APT: '1' })
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual({ skip: true, missing: ['demo-pkg'] })
    expect(r.stderr.trim().split('\n')).toEqual([
      'skipped: demo: needs Debian package demo-pkg (run as root or apt-get install demo-pkg; DB_ADAPTER_TEST_NO_APT=1)',
    ])
  })

  it('hidden on purpose (DB_ADAPTER_TEST_HIDE_PACKAGES): skipped although present', async () => {
    const r = await need('demo-pkg', REPO, { DB_ADAPTER_TEST_NO_APT: '1', DB_ADAPTER_TEST_HIDE_PACKAGES: 'other,demo-pkg' })
    expect(JSON.parse(r.stdout)).toEqual({ skip: true, missing: ['demo-pkg'] })
  })

  it('DB_ADAPTER_TEST_REQUIRE_PACKAGES=1: missing fails, naming the package', async () => {
    const r = await need('demo-pkg', '/nonexistent/demo', { DB_ADAPTER_TEST_NO_APT: '1', DB_ADAPTER_TEST_REQUIRE_PACKAGES: '1' })
    expect(r.code).not.toBe(0)
    expect(r.stdout).toBe('')
    expect(r.stderr).toContain('demo: needs Debian package demo-pkg')
    expect(r.stderr).toContain('DB_ADAPTER_TEST_REQUIRE_PACKAGES=1: not skipping')
  })

  it.skipIf(!ROOT)('as root: two workers install a missing package with one apt-get install between them', async () => {
    const marker = join(mkdtempSync(join(tmpdir(), 'fake-pkg-')), 'installed')
    const apt = fakeApt(`touch '${marker}'`)
    const env = { PATH: `${apt.dir}:${process.env.PATH}`, TMPDIR: mkdtempSync(join(tmpdir(), 'run-')) }
    const [a, b] = await Promise.all([need('db-adapter-demo-pkg', marker, env), need('db-adapter-demo-pkg', marker, env)])
    expect(JSON.parse(a.stdout), a.stderr).toEqual({ skip: false, missing: [] })
    expect(JSON.parse(b.stdout), b.stderr).toEqual({ skip: false, missing: [] })
    expect(apt.calls()).toEqual([expect.stringMatching(/^-q -o DPkg::Lock::Timeout=\d+ install -y --no-install-recommends db-adapter-demo-pkg$/)])
    expect(`${a.stderr}${b.stderr}`.match(/installing Debian package db-adapter-demo-pkg/g)).toHaveLength(1)
  })

  it.skipIf(!ROOT)('as root: a failed install is tried once with apt-get update, then both workers skip', async () => {
    const apt = fakeApt('echo "E: Unable to locate package db-adapter-demo-pkg" >&2; exit 100')
    const env = { PATH: `${apt.dir}:${process.env.PATH}`, TMPDIR: mkdtempSync(join(tmpdir(), 'run-')) }
    const [a, b] = await Promise.all([need('db-adapter-demo-pkg', '/nonexistent/demo', env), need('db-adapter-demo-pkg', '/nonexistent/demo', env)])
    for (const r of [a, b]) {
      expect(JSON.parse(r.stdout), r.stderr).toEqual({ skip: true, missing: ['db-adapter-demo-pkg'] })
      expect(r.stderr).toContain(
        'skipped: demo: needs Debian package db-adapter-demo-pkg (run as root or apt-get install db-adapter-demo-pkg; apt-get install exited 100: E: Unable to locate package db-adapter-demo-pkg)',
      )
    }
    expect(apt.calls().map((c) => c.replace(/^-q -o DPkg::Lock::Timeout=\d+ /, ''))).toEqual([
      'install -y --no-install-recommends db-adapter-demo-pkg',
      'update',
      'install -y --no-install-recommends db-adapter-demo-pkg',
    ])
  })
})

describe('.ci/run', () => {
  it('installs every Debian package the tests ask for, and requires them', () => {
    const asked = new Set<string>()
    for (const f of readdirSync(join(REPO, 'test'), { recursive: true, encoding: 'utf8' })) {
      if (!f.endsWith('.ts') || f.startsWith('lib/debian-package')) {
        continue
      }
      const text = readFileSync(join(REPO, 'test', f), 'utf8')
      if (!text.includes('needDebianPackages(')) {
        continue
      }
      for (const m of text.matchAll(/\{ pkg: '([^']+)'(.*)/g)) {
        if (!m[2].includes('apt: false')) {
          asked.add(m[1])
        }
      }
    }
    const ci = readFileSync(join(REPO, '.ci/run'), 'utf8')
    const list = /DEBIAN_TEST_PACKAGES=\(\n([\s\S]*?)\n\)/.exec(ci)
    expect(list).not.toBeNull()
    const installed = list![1].split('\n').flatMap((l) => l.replace(/#.*/, '').trim().split(/\s+/)).filter(Boolean)
    expect([...asked].sort()).toEqual([...installed].sort())
    expect(asked.size).toBeGreaterThanOrEqual(8)
    expect(ci).toMatch(/^export DB_ADAPTER_TEST_REQUIRE_PACKAGES=1$/m)
  })
})
