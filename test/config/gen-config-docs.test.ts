import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('../../', import.meta.url))
const tsx = path.join(root, 'node_modules/.bin/tsx')
const script = path.join(root, 'scripts/gen-config-docs.ts')

function run(args: string[]) {
  return spawnSync(tsx, [script, ...args], { encoding: 'utf8' })
}

describe('scripts/gen-config-docs.ts', () => {
  it('--check passes on the committed files', () => {
    const r = run(['--check'])
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
  })

  it('detects stale files, rewrites them, and leaves the README outside the markers alone', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'db-adapter-docs-'))
    copyFileSync(path.join(root, 'README.md'), path.join(dir, 'README.md'))
    writeFileSync(path.join(dir, '.env.example'), 'DB_ADAPTER_PORT=1\n')
    const readme = readFileSync(path.join(dir, 'README.md'), 'utf8')
    const stale = readme.replace('<!-- flags:end -->', '| stale | row |\n<!-- flags:end -->\nMore text.\n')
    writeFileSync(path.join(dir, 'README.md'), stale)

    const check = run(['--check', `--root=${dir}`])
    expect(check.status).toBe(1)
    expect(check.stderr).toContain('.env.example is out of date')
    expect(check.stderr).toContain('README.md is out of date')

    expect(run([`--root=${dir}`]).status).toBe(0)
    expect(readFileSync(path.join(dir, '.env.example'), 'utf8')).toBe(readFileSync(path.join(root, '.env.example'), 'utf8'))
    const fixed = readFileSync(path.join(dir, 'README.md'), 'utf8')
    expect(fixed).not.toContain('| stale | row |')
    expect(fixed).toContain('<!-- flags:end -->\nMore text.\n')
    expect(run(['--check', `--root=${dir}`]).status).toBe(0)
  })
})
