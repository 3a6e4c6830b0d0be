/**
 * The worker thread that encodes large numeric chunks of query bodies
 * (query-body.ts, RowsOffload). One worker, at most MAX_JOBS chunks at a time: the main thread encodes
 * the chunks that come while it is full, so a 2-core machine uses both cores for a large result.
 * The worker starts with the first chunk it gets. If it fails or cannot start, `accepting` stays
 * false and everything is encoded on the main thread, as without an offload; a failed job's
 * chunk is encoded there too.
 */
import type { Worker } from 'node:worker_threads'
import type { Logger } from '../../logger.js'
import { siblingModule, startModuleWorker } from '../../worker-thread.js'
import type { EncodedRows, RowsAnswer, RowsJob, RowsOffloadHandle } from './rows-offload.js'

/**
 * Chunks the worker holds at once. With one, the main thread (which also fetches and converts
 * every chunk) ended up encoding about half of a large result; with two it hands over more.
 */
const MAX_JOBS = 2

interface RowsOffloadOptions {
  /** the worker's code instead of worker.ts (tests: a worker that cannot start) */
  workerSource?: string
}

export function createRowsOffload(logger: Logger, options: RowsOffloadOptions = {}): RowsOffloadHandle {
  let worker: Worker | undefined
  let broken = false
  let closed = false
  let nextId = 1
  const pending = new Map<number, { resolve: (e: EncodedRows) => void; reject: (e: Error) => void }>()

  const failAll = (err: Error): void => {
    for (const p of pending.values()) {
      p.reject(err)
    }
    pending.clear()
  }

  const start = (): Worker => {
    const w = startModuleWorker(siblingModule(import.meta.url, 'worker'), 'rest-encode', options.workerSource)
    w.on('message', (m: RowsAnswer) => {
      const p = pending.get(m.id)
      pending.delete(m.id)
      if ('failure' in m) {
        logger.error({ failure: m.failure }, 'query-body encode worker failed on a chunk; the main thread encodes it')
        p?.reject(new Error(m.failure.split('\n')[0]))
        return
      }
      p?.resolve(m.encoded)
    })
    const stop = (err: Error): void => {
      if (worker === w) {
        worker = undefined
      }
      if (!broken && !closed) {
        broken = true
        logger.error({ err }, 'query-body encode worker stopped; large results are encoded on the main thread from now on')
      }
      failAll(err)
    }
    w.on('error', (err) => stop(err instanceof Error ? err : new Error(String(err))))
    w.on('exit', (code) => stop(new Error(`query-body encode worker exited with code ${code}`)))
    // an idle worker must not keep a stopping process alive
    w.unref()
    return w
  }

  return {
    get accepting(): boolean {
      return !broken && !closed && pending.size < MAX_JOBS
    },
    encode(job: Omit<RowsJob, 'id'>): Promise<EncodedRows> {
      if (broken || closed) {
        return Promise.reject(new Error('query-body encode worker is not running'))
      }
      worker ??= start()
      const id = nextId++
      const transfer = job.columns.flatMap((c) => (c.nulls === undefined ? [c.values.buffer] : [c.values.buffer, c.nulls.buffer]))
      const answer = new Promise<EncodedRows>((resolve, reject) => {
        pending.set(id, { resolve, reject })
      })
      worker.postMessage({ ...job, id } satisfies RowsJob, transfer as ArrayBuffer[])
      return answer
    },
    async close(): Promise<void> {
      closed = true
      const w = worker
      worker = undefined
      failAll(new Error('query-body encode worker is closed'))
      await w?.terminate()
    },
  }
}
