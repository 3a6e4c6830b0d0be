/**
 * @module
 * A bounded queue of expensive work, fair across clients: at most `concurrency` jobs run at once,
 * at most `maxWaiting` wait (and `maxWaitingPerKey` of one client); turns go round-robin over the
 * clients that have work waiting, so one client's backlog never delays another's next job by
 * more than one turn. Work beyond the bounds is refused at once (`QueueFullError`), never queued.
 *
 * Used for password verification (scrypt on libuv's threadpool, which file I/O shares).
 */

export class QueueFullError extends Error {
  constructor(
    /** 'key': this client has too much waiting; 'total': the queue is full */
    readonly scope: 'key' | 'total',
  ) {
    super(scope === 'key' ? 'too many verifications waiting for this client' : 'verification queue is full')
    this.name = 'QueueFullError'
  }
}

export interface FairQueueOptions {
  concurrency: number
  maxWaiting: number
  maxWaitingPerKey: number
}

interface Job {
  run: () => void
}

export class FairQueue {
  private running = 0
  private waiting = 0
  /** key -> its jobs in arrival order; Map order is the round-robin order */
  private readonly byKey = new Map<string, Job[]>()

  constructor(private readonly opts: FairQueueOptions) {}

  /** jobs running and waiting now */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting }
  }

  /** Runs `fn` in its turn; rejects with QueueFullError at once when the bounds are reached. */
  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    if (this.running < this.opts.concurrency && this.waiting === 0) {
      return this.start(fn)
    }
    const own = this.byKey.get(key)
    if ((own?.length ?? 0) >= this.opts.maxWaitingPerKey) {
      return Promise.reject(new QueueFullError('key'))
    }
    if (this.waiting >= this.opts.maxWaiting) {
      return Promise.reject(new QueueFullError('total'))
    }
    return new Promise<T>((resolve, reject) => {
      const job: Job = {
        run: () => {
          this.start(fn).then(resolve, reject)
        },
      }
      if (own) {
        own.push(job)
      } else {
        this.byKey.set(key, [job])
      }
      this.waiting++
    })
  }

  private start<T>(fn: () => Promise<T>): Promise<T> {
    this.running++
    let p: Promise<T>
    try {
      p = fn()
    } catch (err) {
      p = Promise.reject(err)
    }
    return p.finally(() => {
      this.running--
      this.next()
    })
  }

  /** The first waiting client's oldest job; the client goes to the back of the round. */
  private next(): void {
    const first = this.byKey.entries().next()
    if (first.done === true) {
      return
    }
    const [key, jobs] = first.value
    const job = jobs.shift() as Job
    this.byKey.delete(key)
    if (jobs.length > 0) {
      this.byKey.set(key, jobs)
    }
    this.waiting--
    job.run()
  }
}
