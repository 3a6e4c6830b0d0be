/**
 * Remote write in process, no HTTP: the prom bench's bodies (2,000 samples each over 10,000
 * series) through RemoteStream.write into a DuckDB file, each body's milliseconds split into
 * snappy, scan, our part of the write and the engine's appendColumns; beside it, in the same
 * loop, a raw DuckDB appender of the same 2,000 rows with its commit (the floor: the appender
 * committing in its closeSync, as the engine does for a lone body) and the same in BEGIN/COMMIT.
 *
 *   npx tsx bench/prom-inproc.ts [bodies=500]
 */
import { DuckDBDataChunk, DuckDBInstance, DOUBLE, INTEGER, BIGINT } from '@duckdb/node-api'
import bindings from '@duckdb/node-bindings'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { uncompressSync } from 'snappy'
import { openStorage } from '../src/sql/catalog/open.js'
import { RemoteStream } from '../src/ingest/metricsproto/stream.js'
import { scanWriteRequest } from '../src/ingest/metricsproto/write-scan.js'
import { writeBodies } from './prom.bench.js'

const BODIES = Number(process.argv[2] ?? 500)
const dir = mkdtempSync(join(tmpdir(), 'rw-inproc-'))
const storage = await openStorage(`duckdb:${join(dir, 'a.duckdb')}`, { rootPassword: 'taosdata' })
const stream = new RemoteStream(storage, { autoCreateDb: true })
const engine = storage.engine
const append = engine.appendColumns!.bind(engine)
let appendMs = 0
engine.appendColumns = async (b) => {
  const t = performance.now()
  const n = await append(b)
  appendMs += performance.now() - t
  return n
}
const raw = await DuckDBInstance.create(join(dir, 'raw.duckdb'))
const con = await raw.connect()
await con.run('CREATE TABLE m (_tid INTEGER, ts BIGINT, v DOUBLE)')
const N = 2_000
const tids = Int32Array.from({ length: N }, (_, i) => i)

async function rawBody(slot: number, tx: boolean): Promise<void> {
  if (tx) {
    await con.run('BEGIN TRANSACTION')
  }
  const app = await con.createAppender('m')
  const chunk = DuckDBDataChunk.create([INTEGER, BIGINT, DOUBLE], N)
  const ts = new BigInt64Array(N).fill(BigInt(slot))
  const v = new Float64Array(N).fill(slot)
  for (const [j, a] of [tids, ts, v].entries()) {
    bindings.copy_data_to_vector(bindings.data_chunk_get_vector(chunk.chunk, j), 0, a.buffer as ArrayBuffer, 0, a.byteLength)
  }
  app.appendDataChunk(chunk)
  app.closeSync()
  if (tx) {
    await con.run('COMMIT')
  }
}

const first = writeBodies(0, 1)
for (const b of first) {
  await stream.write('rw', b, 0, 'root')
}
const bodies = writeBodies(1, Math.ceil(BODIES / 5)).slice(0, BODIES)
const t = { snappy: 0, scan: 0, write: 0, raw: 0, rawTx: 0, cpu: 0, rawCpu: 0, rawTxCpu: 0 }
for (let i = 0; i < bodies.length; i++) {
  let c = process.cpuUsage()
  let s = performance.now()
  await rawBody(2 * i + 1, false)
  t.raw += performance.now() - s
  let u = process.cpuUsage(c)
  t.rawCpu += (u.user + u.system) / 1000
  c = process.cpuUsage()
  s = performance.now()
  await rawBody(2 * i + 2, true)
  t.rawTx += performance.now() - s
  u = process.cpuUsage(c)
  t.rawTxCpu += (u.user + u.system) / 1000
  c = process.cpuUsage()
  s = performance.now()
  const inflated = uncompressSync(bodies[i], { asBuffer: true }) as Buffer
  const s1 = performance.now()
  scanWriteRequest(inflated)
  const s2 = performance.now()
  await stream.write('rw', bodies[i], 0, 'root')
  const s3 = performance.now()
  t.snappy += s1 - s
  t.scan += s2 - s1
  t.write += s3 - s2
  u = process.cpuUsage(c)
  t.cpu += (u.user + u.system) / 1000
}
const per = (x: number): string => (x / bodies.length).toFixed(3)
// stream.write repeats the snappy and the scan: our part is write - snappy - scan - append
console.log(JSON.stringify({
  bodies: bodies.length,
  msPerBody: {
    snappy: per(t.snappy), scan: per(t.scan), oursInWrite: per(t.write - t.snappy - t.scan - appendMs), appendColumns: per(appendMs),
    adapterTotal: per(t.write), rawAppendCommit: per(t.raw), rawInBeginCommit: per(t.rawTx),
  },
  cpuMsPerBody: { adapterIncludingRepeat: per(t.cpu), raw: per(t.rawCpu), rawInBeginCommit: per(t.rawTxCpu) },
}))
await storage.close()
con.closeSync()
raw.closeSync()
rmSync(dir, { recursive: true, force: true })
