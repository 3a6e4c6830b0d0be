import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { NODE_FLAGS } from './node-flags.js'

const root = new URL('../', import.meta.url)

describe('NODE_FLAGS', () => {
  it('are what `npm start` passes to node, before the entry point', () => {
    const start = (JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { scripts: Record<string, string> }).scripts.start
    expect(start).toBe(['node', ...NODE_FLAGS, '--import', 'tsx', 'src/main.ts'].join(' '))
  })

  it("are what the container's ENTRYPOINT passes to node", () => {
    const dockerfile = readFileSync(new URL('Dockerfile', root), 'utf8')
    const entry = /^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)
    expect(entry).not.toBeNull()
    expect(JSON.parse(entry![1])).toEqual(['tini', '--', 'node', ...NODE_FLAGS, 'dist/src/main.js'])
  })

  it('are accepted by this Node (an unknown flag stops node before it runs anything)', () => {
    const r = spawnSync(process.execPath, [...NODE_FLAGS, '-'], {
      input: 'process.stdout.write(process.execArgv.join(" "))',
      encoding: 'utf8',
    })
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    expect(r.stdout).toBe(NODE_FLAGS.join(' '))
  })
})
