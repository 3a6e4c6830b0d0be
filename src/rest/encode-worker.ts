/**
 * A query-body encode worker (encode-offload.ts starts it): numeric row chunks in, JSON bytes
 * out, encoded by the same column writers as on the main thread (encode.ts).
 */
import { parentPort } from 'node:worker_threads'
import { JsonBytes, encodeRowsJob, type RowsJob } from './encode.js'

export type RowsAnswer = { id: number; bytes: Uint8Array } | { id: number; failure: string }

const port = parentPort
if (port === null) {
  throw new Error('encode-worker.ts runs as a worker thread')
}
const out = new JsonBytes(128 * 1024)

port.on('message', (job: RowsJob) => {
  try {
    encodeRowsJob(job, out)
    const bytes = out.take()
    port.postMessage({ id: job.id, bytes } satisfies RowsAnswer, [bytes.buffer as ArrayBuffer])
  } catch (err) {
    out.take()
    port.postMessage({ id: job.id, failure: err instanceof Error ? (err.stack ?? err.message) : String(err) } satisfies RowsAnswer)
  }
})
