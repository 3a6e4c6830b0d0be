/**
 * The storage floor of the prom bench: the same samples appended by raw DuckDB (no HTTP, no snappy,
 * no protobuf, no series lookup) into a table of the adapter's layout for `metrics`
 * (`_tid INTEGER, ts BIGINT, v DOUBLE`), one appender and one commit (WAL written and synced) per
 * body, as the adapter must do before it answers a lone body. At concurrency 2, two connections
 * each take the next body. What no remote write acknowledged after a DuckDB commit can beat with
 * one commit per body: compared with VictoriaMetrics in the same run, it says how much of the
 * 0.5x target DuckDB alone leaves (bench/README.md).
 */
import { BIGINT, DOUBLE, DuckDBDataChunk, DuckDBInstance, INTEGER } from '@duckdb/node-api'
import type { DuckDBConnection } from '@duckdb/node-api'
import bindings from '@duckdb/node-bindings'
import { join } from 'node:path'

export interface FloorBody {
  tids: Int32Array
  ts: BigInt64Array
  v: Float64Array
}

export class StorageFloor {
  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly conns: DuckDBConnection[],
  ) {}

  static async open(dir: string): Promise<StorageFloor> {
    const instance = await DuckDBInstance.create(join(dir, 'floor.duckdb'))
    const conns = [await instance.connect(), await instance.connect()]
    await conns[0].run('CREATE TABLE m (_tid INTEGER, ts BIGINT, v DOUBLE)')
    return new StorageFloor(instance, conns)
  }

  /** Appends the bodies, `concurrency` at a time (at most 2), one commit each: the seconds taken. */
  async write(bodies: FloorBody[], concurrency: number): Promise<{ seconds: number }> {
    let next = 0
    const t = performance.now()
    await Promise.all(this.conns.slice(0, Math.max(1, Math.min(2, concurrency))).map(async (c) => {
      while (next < bodies.length) {
        await appendBody(c, bodies[next++])
      }
    }))
    return { seconds: (performance.now() - t) / 1000 }
  }

  /** rows stored with ts in [fromMs, toMs] */
  async count(fromMs: number, toMs: number): Promise<number> {
    const r = await this.conns[0].runAndReadAll(`SELECT count(*) FROM m WHERE ts BETWEEN ${fromMs} AND ${toMs}`)
    return Number(r.getRows()[0][0])
  }

  close(): void {
    for (const c of this.conns) {
      c.closeSync()
    }
    this.instance.closeSync()
  }
}

async function appendBody(c: DuckDBConnection, b: FloorBody): Promise<void> {
  const appender = await c.createAppender('m')
  const n = b.tids.length
  // one chunk of at most 2,048 rows at a time, each column copied from its typed array in one call
  for (let start = 0; start < n; start += 2048) {
    const k = Math.min(2048, n - start)
    const chunk = DuckDBDataChunk.create([INTEGER, BIGINT, DOUBLE], k)
    const cols = [b.tids.subarray(start, start + k), b.ts.subarray(start, start + k), b.v.subarray(start, start + k)]
    cols.forEach((a, j) => {
      bindings.copy_data_to_vector(bindings.data_chunk_get_vector(chunk.chunk, j), 0, a.buffer as ArrayBuffer, a.byteOffset, a.byteLength)
    })
    appender.appendDataChunk(chunk)
  }
  // an appender closed outside a transaction commits here
  appender.closeSync()
}
