/**
 * One run of BENCH=group (a child process of group-commit.bench.ts): `bodies` appendColumns calls
 * of 2,000 rows (2,000 series, one sample each, as a remote-write body) from `concurrency` loops
 * into a DuckDB file, with the engine of the checkout at `root`. Prints one JSON line.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

const [root, concurrency, bodies] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])]
const { DuckDBEngine } = (await import(pathToFileURL(join(root, 'src/storage/duckdb/engine.ts')).href)) as typeof import('../src/storage/duckdb/engine.js')
const N = 2_000
const dir = mkdtempSync(join(tmpdir(), 'bench-group-'))
const engine = await DuckDBEngine.open(join(dir, 'd.duckdb'))
await engine.exec('CREATE SCHEMA td_g')
await engine.exec('CREATE TABLE td_g.m (_tid INTEGER, ts BIGINT, v DOUBLE)')
const tids = Int32Array.from({ length: N }, (_, i) => i)
const starts = Int32Array.from({ length: N + 1 }, (_, i) => i)
let slot = 0
let sent = 0
const started = performance.now()
const cpu = process.cpuUsage()
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (sent < bodies) {
      sent++
      const s = BigInt(++slot)
      const edge = Array.from({ length: N }, () => s)
      const b = { db: 'g', table: 'm', columns: ['ts', 'v'], count: N, tids, starts, ts: new BigInt64Array(N).fill(s), values: [new Float64Array(N).fill(Number(s))], valid: [undefined], first: edge, last: edge }
      if ((await engine.appendColumns([b])) !== N) {
        throw new Error('not appended')
      }
    }
  }),
)
const ms = performance.now() - started
const used = process.cpuUsage(cpu)
const [[stored]] = await engine.query('SELECT count(*) FROM td_g.m')
const stats = 'groupCommitStats' in engine ? engine.groupCommitStats() : undefined
await engine.close()
rmSync(dir, { recursive: true, force: true })
console.log(JSON.stringify({ rowsPerSec: (Number(stored) / ms) * 1000, cpuPerMillion: ((used.user + used.system) / 1e6 / Number(stored)) * 1e6, stored: Number(stored), callsPerGroup: stats === undefined ? 1 : stats.members / stats.groups }))
