/**
 * Child process of group-commit-crash.test.ts (arguments: file, loops, rows a call): concurrent
 * appendColumns loops into one DuckDB file; after each acknowledged call prints
 * `ack <tid> <batch> <groups> <members>`. Killed with SIGKILL by the test.
 */
import { DuckDBEngine } from '../../src/storage/duckdb/engine.js'
import { columnBatch, span } from './column-batch.js'

async function main(path: string, loops: number, rows: number): Promise<void> {
  const engine = await DuckDBEngine.open(path)
  await engine.exec('CREATE SCHEMA td_g')
  await engine.exec('CREATE TABLE td_g.a (_tid INTEGER, ts BIGINT, v DOUBLE)')
  process.stdout.write('ready\n')
  await Promise.all(
    Array.from({ length: loops }, async (_, tid) => {
      for (let j = 0; ; j++) {
        const ts = span(j * rows, (j + 1) * rows)
        const n = await engine.appendColumns([columnBatch('g', 'a', [{ tid, ts, v: ts }])])
        if (n !== rows) {
          throw new Error(`batch ${j} of ${tid}: ${n}`)
        }
        const s = engine.groupCommitStats()
        process.stdout.write(`ack ${tid} ${j} ${s.groups} ${s.members}\n`)
      }
    }),
  )
}

await main(process.argv[2], Number(process.argv[3]), Number(process.argv[4]))
