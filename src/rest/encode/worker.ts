/**
 * A query-body encode worker (encode-offload.ts starts it): numeric row chunks in, JSON bytes
 * out, encoded by the same column writers as on the main thread (encode.ts).
 */
import { parentPort } from 'node:worker_threads'
import { JsonBytes, encodeRowsJob, type EncodedRows, type RowsJob } from './query-body.js'

export type RowsAnswer = { id: number; encoded: EncodedRows } | { id: number; failure: string }

const port = parentPort
if (port === null) {
  throw new Error('encode-worker.ts runs as a worker thread')
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
