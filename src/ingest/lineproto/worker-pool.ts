/**
 * Line-protocol parse workers (`lineproto.parseWorkers`): the main thread hands a body to a
 * worker and consumes its parsed slices as they arrive, so parsing one slice overlaps the schema
 * work and appends of the previous one, and parsing of one request overlaps the writing of
 * another. On this project's 2-core bench machine parsing was ~45% of the main thread's time per
 * point.
 *
 * A worker that dies fails the requests it held (the write answers 503 and the agent retries)
 * and is replaced by the next request that needs one.
 */
import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'
import type { Logger } from '../../logger.js'
import type { Point } from '../point.js'
import type { PointSource, Rejection } from '../schemaless/schemaless.js'
import { SliceDictionary, decodeSlice, type ReceivedSlice, type SliceMessage } from './parsed-slice.js'
import type { ParseJob } from './parse-worker.js'

/** `lineproto.parseWorkers` -1: one per core beside the main thread's, at most this many */
const AUTO_MAX_WORKERS = 4

/** The worker count `lineproto.parseWorkers` asks for (-1: automatic; 0: parse on the main thread). */
export function parseWorkerCount(setting: number, cores: number = availableParallelism()): number {
  if (setting >= 0) {
    return setting
  }
  return Math.min(AUTO_MAX_WORKERS, Math.max(0, cores - 1))
}

/** The parsed points of one body, delivered as they arrive and kept for replay. */
export class ParsedBody {
  private readonly slices: ReceivedSlice[] = []
  private done = false
  private failure: Error | undefined
  private wake: (() => void) | undefined

  push(slice: ReceivedSlice): void {
    this.slices.push(slice)
    if (slice.message.done) {
      this.done = true
    }
    this.notify()
  }

  fail(err: Error): void {
    this.failure ??= err
    this.notify()
  }

  private notify(): void {
    const w = this.wake
    this.wake = undefined
    w?.()
  }

  /** A schemaless point source over this body: may run again (it replays what arrived). */
  source(): PointSource {
    return (onPoint, onError) => this.replay(onPoint, onError)
  }

  private async replay(onPoint: (p: Point, line: number) => void, onError: (e: Rejection) => void): Promise<void> {
    for (let k = 0; ; k++) {
      while (k >= this.slices.length) {
        if (this.failure !== undefined) {
          throw this.failure
        }
        if (this.done) {
          return
        }
        await new Promise<void>((resolve) => {
          this.wake = resolve
        })
      }
      if (this.failure !== undefined) {
        throw this.failure
      }
      decodeSlice(this.slices[k], onPoint, onError)
    }
  }
}

interface PoolWorker {
  worker: Worker
  dictionary: SliceDictionary
  jobs: Map<number, ParsedBody>
}

export interface LineProtoWorkers {
  /** Starts parsing `body` on a worker; the result's source feeds the schemaless core. */
  parse(body: Uint8Array): ParsedBody
  close(): Promise<void>
}

/**
 * Starts the worker module beside this one: `.js` when built; `.ts` under tsx (development,
 * tests), where the worker registers tsx itself first, because Node 20 does not pass the
 * parent's `--import` loader hooks on to worker threads.
 */
function startWorker(name: string): Worker {
  if (!import.meta.url.endsWith('.ts')) {
    return new Worker(new URL('./parse-worker.js', import.meta.url), { name })
  }
  const api = JSON.stringify(import.meta.resolve('tsx/esm/api'))
  const entry = JSON.stringify(new URL('./parse-worker.ts', import.meta.url).href)
  return new Worker(`import(${api}).then((tsx) => { tsx.register(); return import(${entry}) })`, { eval: true, name })
}

export function createLineProtoWorkers(count: number, logger: Logger): LineProtoWorkers {
  const workers: Array<PoolWorker | undefined> = new Array(count).fill(undefined)
  let nextJob = 1
  let closed = false

  const start = (slot: number): PoolWorker => {
    const worker = startWorker(`lineproto-parse-${slot}`)
    const pw: PoolWorker = { worker, dictionary: new SliceDictionary(), jobs: new Map() }
    const failAll = (err: Error): void => {
      if (workers[slot] === pw) {
        workers[slot] = undefined
      }
      for (const body of pw.jobs.values()) {
        body.fail(err)
      }
      pw.jobs.clear()
    }
    worker.on('message', (m: SliceMessage) => {
      const body = pw.jobs.get(m.job)
      // the dictionary must see every message, in order, even of a job nobody waits for
      const slice = pw.dictionary.receive(m)
      if (body === undefined) {
        return
      }
      if (m.failure !== undefined) {
        pw.jobs.delete(m.job)
        logger.error({ worker: slot, failure: m.failure }, 'line-protocol parse worker failed on a body')
        body.fail(new Error(`line-protocol parse worker failed: ${m.failure.split('\n')[0]}`))
        return
      }
      if (m.done) {
        pw.jobs.delete(m.job)
      }
      body.push(slice)
    })
    worker.on('error', (err) => {
      logger.error({ err, worker: slot }, 'line-protocol parse worker crashed; a new one starts with the next write')
      failAll(err instanceof Error ? err : new Error(String(err)))
    })
    worker.on('exit', (code) => {
      if (!closed) {
        failAll(new Error(`line-protocol parse worker exited with code ${code}`))
      }
    })
    // idle workers must not keep a stopping process alive
    worker.unref()
    workers[slot] = pw
    return pw
  }

  const pick = (): PoolWorker => {
    let best: PoolWorker | undefined
    for (let i = 0; i < workers.length; i++) {
      const w = workers[i] ?? start(i)
      if (best === undefined || w.jobs.size < best.jobs.size) {
        best = w
      }
    }
    return best as PoolWorker
  }

  return {
    parse(body: Uint8Array): ParsedBody {
      if (closed) {
        throw new Error('line-protocol parse workers are closed')
      }
      const pw = pick()
      const job = nextJob++
      const parsed = new ParsedBody()
      pw.jobs.set(job, parsed)
      // a copy the worker owns: the request's buffer may share its memory with other data
      const copy = new Uint8Array(body)
      pw.worker.postMessage({ job, body: copy } satisfies ParseJob, [copy.buffer])
      return parsed
    },
    async close(): Promise<void> {
      closed = true
      const running = workers.filter((w): w is PoolWorker => w !== undefined)
      workers.fill(undefined)
      for (const w of running) {
        for (const body of w.jobs.values()) {
          body.fail(new Error('line-protocol parse workers are closed'))
        }
        w.jobs.clear()
      }
      await Promise.all(running.map((w) => w.worker.terminate()))
    },
  }
}
