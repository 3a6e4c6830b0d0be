/**
 * A query-body encode worker (offload.ts starts it): numeric row chunks in, JSON bytes
 * out, encoded by the same column writers as on the main thread (rows.ts).
 */
import { parentPort } from 'node:worker_threads'
import { JsonBytes } from './json-bytes.js'
import { columnWriter, numericCell, writeNumericRows, writeRows } from './rows.js'
import type { EncodedRows, RowsAnswer, RowsJob } from './rows-offload.js'

/** Writes a job's rows as the main thread would: `[..],[..]`, no leading comma; deflated when the job says so. */
function encodeRowsJob(job: Omit<RowsJob, 'id'>, out: JsonBytes): EncodedRows {
  const cols = job.columns
  const kinds = cols.map((c) => c.kind)
  if (job.tz === undefined) {
    writeNumericRows(out, job.rows, cols, kinds, job.precision, false)
  } else {
    const write = cols.map((c) => columnWriter(c.kind, job.precision, job.tz))
    writeRows(out, job.rows, write, numericCell(cols, kinds), false)
  }
  return job.deflate ? { ...out.deflate(), deflated: true } : { bytes: out.take(), deflated: false }
}

const port = parentPort
if (port === null) {
  throw new Error('rest/encode/worker.ts runs as a worker thread')
}
const out = new JsonBytes(128 * 1024)

port.on('message', (job: RowsJob) => {
  try {
    const encoded = encodeRowsJob(job, out)
    // plain bytes own their buffer (JsonBytes.take): moved, not copied. zlib's output may be a
    // view of a buffer it shares, so deflated bytes (a few KB) are copied.
    port.postMessage({ id: job.id, encoded } satisfies RowsAnswer, encoded.deflated ? [] : [encoded.bytes.buffer as ArrayBuffer])
  } catch (err) {
    out.take()
    port.postMessage({ id: job.id, failure: err instanceof Error ? (err.stack ?? err.message) : String(err) } satisfies RowsAnswer)
  }
})
