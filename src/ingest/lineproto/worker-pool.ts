/**
 * Line-protocol parse workers (`lineproto.parseWorkers`): the main thread hands a body to a
 * worker and consumes its parsed slices as they arrive, so parsing one slice overlaps the schema
 * work and appends of the previous one, and parsing of one request overlaps the writing of
 * another. Parsing was the largest share of the main thread's time per point.
 *
 * A worker that dies is replaced by the next request that needs one. The parts of bodies it
 * had sent nothing of are parsed on the main thread; a body it was half-way through fails (the
 * write answers 503 and the agent retries). Workers that cannot start at all (a packaging fault)
 * are given up: every body is then parsed on the main thread, and the log says so once.
 */
import { availableParallelism } from 'node:os'
import type { Worker } from 'node:worker_threads'
import type { Logger } from '../../logger.js'
import { siblingModule, startModuleWorker } from '../../worker-thread.js'
import { WorkSlice } from '../../event-loop.js'
import type { Point } from '../point.js'
import type { PointSource, ReceivedSlice, Rejection, SliceMessage } from '../types.js'
import { asBuffer, forEachLineSlice } from '../slices.js'
import { LineProtoParser } from './parse.js'
import { SliceDictionary, decodeSlice } from './slice-decoder.js'
import { SliceEncoder, encodeSlices } from './slice-encoder.js'
import type { ParseJob } from './parse-worker.js'
import type { BodyLease } from '../body-pool.js'

/** `lineproto.parseWorkers` -1: one per core beside the main thread's, at most this many */
const AUTO_MAX_WORKERS = 4

/** The worker count `lineproto.parseWorkers` asks for (-1: automatic; 0: parse on the main thread). */
/**
 * Below this memory limit the automatic count is 0: a parse worker's own heap costs about 35 MB
 * under load (measured in a 256 MiB cgroup), more than such a container can spare.
 */
export const AUTO_WORKERS_MIN_MEMORY = 384 * 2 ** 20

export function parseWorkerCount(setting: number, cores: number = availableParallelism(), memoryLimitBytes = Infinity): number {
  if (setting >= 0) {
    return setting
  }
  if (memoryLimitBytes < AUTO_WORKERS_MIN_MEMORY) {
    return 0
  }
  return Math.min(AUTO_MAX_WORKERS, Math.max(0, cores - 1))
}

/** Bodies from this size up are split between workers, a part each, parsed side by side. */
export const MIN_PART_BYTES = 64 * 1024

/** Where a body is cut for `parts` workers: after a newline, with the lines before each part. */
export function splitBody(body: Uint8Array, parts: number): Array<{ start: number; end: number; lineOffset: number }> {
  const n = Math.max(1, Math.min(parts, Math.floor(body.length / MIN_PART_BYTES)))
  const out: Array<{ start: number; end: number; lineOffset: number }> = []
  const buf = asBuffer(body)
  let start = 0
  let lineOffset = 0
  for (let k = 1; k <= n && start < body.length; k++) {
    let end = body.length
    if (k < n) {
      const nl = buf.indexOf(10, Math.max(start, Math.floor((body.length * k) / n)))
      end = nl < 0 ? body.length : nl + 1
    }
    out.push({ start, end, lineOffset })
    if (end < body.length) {
      // a part ends just after a newline (10 never occurs inside a UTF-8 sequence), so it has
      // exactly as many lines as newlines; nothing needs the last part's count (a body for the
      // columnar lane is one part, and counting its lines showed in profiles)
      for (let nl = buf.indexOf(10, start); nl >= 0 && nl < end; nl = buf.indexOf(10, nl + 1)) {
        lineOffset++
      }
    }
    start = end
  }
  if (out.length === 0) {
    out.push({ start: 0, end: 0, lineOffset: 0 })
  }
  return out
}

/** A part of a body parsed here, on the main thread, when the body is read as a source. */
interface InlinePart {
  /** the part's bytes (a view of the request body) */
  inline: Uint8Array
  lineOffset: number
}

/** A part of a body parsed by a worker: its slices as they arrive. */
interface WorkerPart {
  /** the part's bytes (a view of the request body), parsed here if its worker dies before sending any */
  bytes: Uint8Array
  lineOffset: number
  slices: ReceivedSlice[]
  done: boolean
}

/**
 * The parsed points of one body, delivered in order and kept for replay. The first part may be
 * parsed on the main thread while the workers parse the rest (the main thread waits for the
 * workers otherwise): as points, which saves encoding and decoding that part, or as slices for
 * the columnar lane, which takes slices only.
 */
export class ParsedBody {
  private failure: Error | undefined
  private wake: (() => void) | undefined

  constructor(
    private readonly parts: Array<InlinePart | WorkerPart>,
    private readonly parser: LineProtoParser,
  ) {}

  /** the body failed: nothing more of it is read */
  get failed(): boolean {
    return this.failure !== undefined
  }

  /** slices of the body: from workers, or encoded here for the lane (a pool that fell back to parsing here delivers none) */
  get workerSlices(): number {
    let n = 0
    for (const p of this.parts) {
      n += 'slices' in p ? p.slices.length : 0
    }
    return n
  }

  push(part: number, slice: ReceivedSlice): void {
    const p = this.parts[part] as WorkerPart
    p.slices.push(slice)
    if (slice.message.done) {
      p.done = true
    }
    this.notify()
  }

  /**
   * The worker of `part` failed. A part it sent nothing of yet is parsed here instead (a worker
   * that cannot start costs no write); otherwise the whole body fails.
   */
  fail(part: number, err: Error): void {
    const p = this.parts[part]
    if (!('inline' in p) && p.slices.length === 0) {
      this.parts[part] = { inline: p.bytes, lineOffset: p.lineOffset }
    } else {
      this.failure ??= err
    }
    this.notify()
  }

  /** Fails the body whatever has arrived (the pool is closing). */
  close(err: Error): void {
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

  /**
   * Every slice of the body once the workers have sent them all, for the columnar lane;
   * undefined when a part is parsed on this thread instead. Throws the body's failure.
   */
  async allSlices(): Promise<ReceivedSlice[] | undefined> {
    const out: ReceivedSlice[] = []
    for (let i = 0; i < this.parts.length; i++) {
      const part = await this.partWith(i, Infinity)
      if ('inline' in part) {
        return undefined
      }
      out.push(...part.slices)
    }
    return out
  }

  /** Part i once it is parsed here, has more than k slices or is done; throws the body's failure. */
  private async partWith(i: number, k: number): Promise<InlinePart | WorkerPart> {
    let part = this.parts[i]
    while (!('inline' in part) && k >= part.slices.length && !part.done && this.failure === undefined) {
      await new Promise<void>((resolve) => {
        this.wake = resolve
      })
      part = this.parts[i]
    }
    if (this.failure !== undefined) {
      throw this.failure
    }
    return part
  }

  private async replay(onPoint: (p: Point, line: number) => void, onError: (e: Rejection) => void): Promise<void> {
    // slices that arrived while the main thread was busy are decoded in turns, not all at once
    const turn = new WorkSlice()
    for (let i = 0; i < this.parts.length; i++) {
      for (let k = 0; ; k++) {
        const part = await this.partWith(i, k)
        if ('inline' in part) {
          // (a part turns inline only before any of its slices arrived, so k is 0 here)
          const { inline, lineOffset } = part
          const parser = this.parser
          const keyed = (p: Point, line: number): void => {
            p.seriesKey = parser.seriesKey()
            onPoint(p, line)
          }
          await forEachLineSlice(inline, (slice, offset) => {
            parser.parse(slice, keyed, onError, lineOffset + offset)
          })
          break
        }
        if (k >= part.slices.length) {
          break
        }
        decodeSlice(part.slices[k], onPoint, onError)
        await turn.pause()
      }
    }
  }
}

/**
 * Encodes the first part of a body on this thread, into slices as a worker would, for the columnar
 * lane: a slice at a time with turns of the event loop between them, like the lane itself. Each
 * slice is encoded, taken and received in one step, so encodings of two bodies may interleave.
 * A failure (a bug: bad lines are rejections, not throws) fails the part as a worker's would.
 */
async function encodeHere(
  parsed: ParsedBody,
  bytes: Uint8Array,
  lineOffset: number,
  parser: LineProtoParser,
  encoder: SliceEncoder,
  dictionary: SliceDictionary,
): Promise<void> {
  const turn = new WorkSlice()
  try {
    for (const { message } of encodeSlices(bytes, lineOffset, parser, encoder, 0)) {
      parsed.push(0, dictionary.receive(message))
      if (message.done || parsed.failed) {
        return
      }
      await turn.pause()
    }
  } catch (err) {
    parsed.fail(0, err instanceof Error ? err : new Error(String(err)))
  }
}

/** A body parsed wholly on the main thread, a slice at a time (no workers, or none that run). */
export function parsedHere(body: Uint8Array, parser: LineProtoParser): ParsedBody {
  return new ParsedBody([{ inline: body, lineOffset: 0 }], parser)
}

interface PoolJob {
  body: ParsedBody
  part: number
  /** the body's shared memory this job reads, released when the worker is done with it */
  lease?: BodyLease
}

interface PoolWorker {
  worker: Worker
  dictionary: SliceDictionary
  /** job id -> the body, which of its parts this worker parses, and the shared bytes it reads */
  jobs: Map<number, PoolJob>
  /** it has sent a message: it started */
  spoke: boolean
}

/**
 * The main thread's share of a body the workers parse, when it has nothing else to do (the caller
 * knows whether other writes run): `points` parses the first part for the row path; `slices`
 * encodes it into slices as a worker would, for the columnar lane (allSlices).
 */
export type MainShare = 'none' | 'points' | 'slices'

export interface LineProtoWorkers {
  /**
   * Starts parsing `body` on the workers; the result's source feeds the schemaless core. A large
   * body's first part is parsed on the main thread as `share` says. When `lease` holds `body` in
   * shared memory, the workers read it there instead of a copy each; every job retains the lease
   * until its worker is done with it.
   */
  parse(body: Uint8Array, share?: MainShare, lease?: BodyLease): ParsedBody
  close(): Promise<void>
}

export interface LineProtoWorkerOptions {
  /** the workers' code instead of parse-worker (tests: a worker that cannot start) */
  workerSource?: string
}

export function createLineProtoWorkers(count: number, logger: Logger, options: LineProtoWorkerOptions = {}): LineProtoWorkers {
  const workers: Array<PoolWorker | undefined> = new Array(count).fill(undefined)
  let nextJob = 1
  let closed = false
  /** a worker failed before it ever answered: they cannot run here, so bodies are parsed inline */
  let broken = false
  // each parse or encode call on this thread runs to its end without awaiting, so one parser
  // serves every body parsed here, and one encoder and its dictionary every part encoded here
  const parser = new LineProtoParser()
  const encoder = new SliceEncoder()
  const dictionary = new SliceDictionary()

  const start = (slot: number): PoolWorker => {
    const worker = startModuleWorker(siblingModule(import.meta.url, 'parse-worker'), `lineproto-parse-${slot}`, options.workerSource)
    const pw: PoolWorker = { worker, dictionary: new SliceDictionary(), jobs: new Map(), spoke: false }
    const failAll = (err: Error): void => {
      if (workers[slot] === pw) {
        workers[slot] = undefined
      }
      if (!pw.spoke && !broken) {
        broken = true
        logger.error({ err, worker: slot }, 'line-protocol parse workers cannot start; parsing on the main thread from now on')
      }
      for (const job of pw.jobs.values()) {
        job.lease?.release()
        job.body.fail(job.part, err)
      }
      pw.jobs.clear()
    }
    worker.on('message', (m: SliceMessage) => {
      pw.spoke = true
      const job = pw.jobs.get(m.job)
      // the dictionary must see every message, in order, even of a job nobody waits for
      const slice = pw.dictionary.receive(m)
      if (job === undefined) {
        return
      }
      if (m.failure !== undefined) {
        pw.jobs.delete(m.job)
        job.lease?.release()
        logger.error({ worker: slot, failure: m.failure }, 'line-protocol parse worker failed on a body')
        job.body.fail(job.part, new Error(`line-protocol parse worker failed: ${m.failure.split('\n')[0]}`))
        return
      }
      if (m.done) {
        pw.jobs.delete(m.job)
        job.lease?.release()
      }
      job.body.push(job.part, slice)
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

  // Started now rather than by the first write, which would wait for them to load. A worker that
  // dies later is started again by the next write.
  for (let slot = 0; slot < count; slot++) {
    start(slot)
  }

  /** the `n` least busy workers (started as needed) */
  const pick = (n: number): PoolWorker[] => {
    const all = workers.map((w, i) => w ?? start(i))
    return all.sort((a, b) => a.jobs.size - b.jobs.size).slice(0, n)
  }

  return {
    parse(body: Uint8Array, share: MainShare = 'none', lease?: BodyLease): ParsedBody {
      if (closed) {
        throw new Error('line-protocol parse workers are closed')
      }
      if (broken) {
        return parsedHere(body, parser)
      }
      const parts = splitBody(body, workers.length + (share === 'none' ? 0 : 1))
      const here = share !== 'none' && parts.length > 1
      const chosen = pick(parts.length - (here ? 1 : 0))
      const parsed = new ParsedBody(
        parts.map(({ start, end, lineOffset }, k) =>
          here && k === 0 && share === 'points'
            ? { inline: body.subarray(start, end), lineOffset }
            : { bytes: body.subarray(start, end), lineOffset, slices: [], done: false },
        ),
        parser,
      )
      parts.forEach(({ start, end, lineOffset }, part) => {
        if (here && part === 0) {
          return
        }
        const pw = chosen[part - (here ? 1 : 0)]
        const job = nextJob++
        if (lease?.shared === true) {
          lease.retain()
          pw.jobs.set(job, { body: parsed, part, lease })
          pw.worker.postMessage({ job, body: body.subarray(start, end), lineOffset } satisfies ParseJob)
          return
        }
        pw.jobs.set(job, { body: parsed, part })
        // a copy the worker owns: the request's buffer may share its memory with other data
        // (Buffer#slice would be a view of it)
        const copy = new Uint8Array(end - start)
        copy.set(body.subarray(start, end))
        pw.worker.postMessage({ job, body: copy, lineOffset } satisfies ParseJob, [copy.buffer])
      })
      if (here && share === 'slices') {
        // after the workers got their parts, so both run side by side
        const { start, end, lineOffset } = parts[0]
        // the request may end (a worker failed) while this part is still being encoded
        lease?.retain()
        void encodeHere(parsed, body.subarray(start, end), lineOffset, parser, encoder, dictionary).finally(() => lease?.release())
      }
      return parsed
    },
    async close(): Promise<void> {
      closed = true
      const running = workers.filter((w): w is PoolWorker => w !== undefined)
      workers.fill(undefined)
      for (const w of running) {
        for (const { body, lease } of w.jobs.values()) {
          lease?.release()
          body.close(new Error('line-protocol parse workers are closed'))
        }
        w.jobs.clear()
      }
      await Promise.all(running.map((w) => w.worker.terminate()))
    },
  }
}
