/**
 * A line-protocol parse worker (worker-pool.ts starts it): bodies in, parsed slices out
 * (slice-encoder.ts). Parsing is the largest CPU cost of a write, so it runs here, beside the main
 * thread's schema work and appends, instead of before them.
 *
 * A body is posted as slices of about WORKER_SLICE_CHARS, so the main thread consumes the first slice
 * while this thread parses the next one.
 */
import { setPriority } from 'node:os'
import { parentPort } from 'node:worker_threads'
import { LineProtoParser } from './parse.js'
import { SliceEncoder, encodeSlices } from './slice-encoder.js'

export interface ParseJob {
  job: number
  /** the body, or one part of it */
  body: Uint8Array
  /** lines of the body before this part */
  lineOffset: number
}

const port = parentPort
if (port === null) {
  throw new Error('parse-worker.ts runs as a worker thread')
}
const parser = new LineProtoParser()
const encoder = new SliceEncoder()

/**
 * Parsing is background work: the main thread answers readiness probes and queries, and on a
 * machine with few cores it must not wait for a parse worker's time slice. On Linux, setpriority(2) with pid 0 changes the calling thread only; raising one's own nice
 * value needs no privilege.
 */
const WORKER_NICE = 10
try {
  setPriority(WORKER_NICE)
} catch {
  // not permitted here (some sandboxes): run at the process's priority
}

port.on('message', (msg: ParseJob) => {
  try {
    for (const { message, transfer } of encodeSlices(msg.body, msg.lineOffset, parser, encoder, msg.job)) {
      port.postMessage(message, transfer)
    }
  } catch (err) {
    const { message, transfer } = encoder.take(msg.job, true)
    message.failure = err instanceof Error ? (err.stack ?? err.message) : String(err)
    port.postMessage(message, transfer)
  }
})
