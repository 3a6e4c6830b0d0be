/**
 * Group commit keeps durability: every appendColumns call acknowledged by a process killed with
 * SIGKILL mid-stream is found after reopening its DuckDB file (the answer comes after COMMIT).
 */
import { spawn } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { describe, expect, it } from 'vitest'
import { DuckDBEngine } from '../../src/storage/duckdb/engine.js'

const LOOPS = 4
const ROWS = 500

describe('group commit durability', () => {
  it('rows of every acknowledged call survive SIGKILL', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'group-crash-')), 'd.duckdb')
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'group-commit-writer.ts'), path, String(LOOPS), String(ROWS)], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')))
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
    // per loop, its highest acknowledged batch
    const acked = new Map<number, number>()
    let acks = 0
    let shared = false
    const lines = createInterface({ input: child.stdout })
    for await (const line of lines) {
      const m = /^ack (\d+) (\d+) (\d+) (\d+)$/.exec(line)
      if (m === null) {
        continue
      }
      acked.set(Number(m[1]), Number(m[2]))
      // a group took more than one call
      shared ||= Number(m[4]) > Number(m[3])
      if (++acks >= 200) {
        child.kill('SIGKILL')
        break
      }
    }
    await exited
    expect(acks, stderr).toBe(200)
    expect(shared).toBe(true)
    const engine = await DuckDBEngine.open(path)
    try {
      for (let tid = 0; tid < LOOPS; tid++) {
        const last = acked.get(tid) ?? -1
        const [[n, distinct]] = await engine.query(`SELECT count(*), count(DISTINCT ts) FROM td_g.a WHERE _tid = ${tid} AND ts < ${(last + 1) * ROWS}`)
        expect([tid, n, distinct]).toEqual([tid, BigInt((last + 1) * ROWS), BigInt((last + 1) * ROWS)])
      }
    } finally {
      await engine.close()
    }
  }, 60_000)
})
