/**
 * @module
 * Bytes that requests in flight hold, bounded (issue 33): a write reserves what its body will
 * cost while it is read, parsed and queued for storage; a query what producing its result costs
 * while it streams. Past the budget new work waits (granted in arrival order as room allows) at most `waitMs`,
 * and is then refused (the caller answers 503 with Retry-After). The gate samples memory every
 * few seconds; this bounds what can pile up between two samples.
 *
 * Reservations made with `onRevoke` (running queries) are revoked when the gate goes all-paused:
 * their work is cancelled so what they hold is freed before the kernel has to step in.
 *
 * After all-paused the budget opens again slowly (`narrow`, then `widen` once per sampling period
 * the gate stays normal): a gate that reopens at once lets every queued writer and reader in
 * within one period, and in a small cgroup that burst went from the query threshold to the kill.
 */
import { Counter, Gauge, type Registry } from 'prom-client'

export interface Reservation {
  readonly bytes: number
  release(): void
}

export interface ReserveOptions {
  /** how long to wait for room; 0: refuse at once */
  waitMs: number
  /** the requester went away: stop waiting */
  signal?: AbortSignal
  /** makes the reservation revocable: called by revokeAll with the reason */
  onRevoke?: (reason: Error) => void
}

export interface WorkBudgetStats {
  capacity: number
  /** what may be reserved now: the capacity, or less while the budget opens again after all-paused */
  open: number
  reserved: number
  waiting: number
}

/** The share of the capacity open right after `narrow`; each `widen` doubles it. */
const NARROWED_SHARE = 1 / 8

interface Waiter {
  bytes: number
  grant: (r: Reservation | undefined) => void
  onRevoke?: (reason: Error) => void
}

export class WorkBudget {
  #reserved = 0
  #share = 1
  readonly #queue: Waiter[] = []
  readonly #revocable = new Set<{ onRevoke: (reason: Error) => void }>()

  constructor(readonly capacity: number) {
    if (!(capacity > 0)) {
      throw new RangeError(`work budget must be positive, got ${capacity}`)
    }
  }

  stats(): WorkBudgetStats {
    return { capacity: this.capacity, open: this.#open(), reserved: this.#reserved, waiting: this.#queue.length }
  }

  /** Opens only NARROWED_SHARE of the capacity until widened again (reservations held are kept). */
  narrow(): void {
    this.#share = NARROWED_SHARE
  }

  /** Doubles the open share, up to the whole capacity; returns whether it is whole now. */
  widen(): boolean {
    if (this.#share < 1) {
      this.#share = Math.min(1, this.#share * 2)
      this.#drain()
    }
    return this.#share === 1
  }

  #open(): number {
    return Math.floor(this.capacity * this.#share)
  }

  /**
   * Reserves `bytes` (at most the whole budget, so one large request can still run alone), or
   * resolves undefined when no room was found within `waitMs`. While the budget is narrowed, a
   * request larger than what is open runs only alone: a query (its share is reserved while its
   * request's body holds its own) waits until its share is open, as the writes come back first.
   */
  reserve(bytes: number, opts: ReserveOptions): Promise<Reservation | undefined> {
    const want = Math.min(this.capacity, Math.max(0, Math.ceil(bytes)))
    if (want === 0) {
      return Promise.resolve({ bytes: 0, release: () => {} })
    }
    if (this.#fits(want)) {
      return Promise.resolve(this.#grant(want, opts.onRevoke))
    }
    if (opts.waitMs <= 0 || opts.signal?.aborted === true) {
      return Promise.resolve(undefined)
    }
    return new Promise((resolve) => {
      const waiter: Waiter = { bytes: want, grant: resolve, ...(opts.onRevoke ? { onRevoke: opts.onRevoke } : {}) }
      const leave = (): void => {
        const i = this.#queue.indexOf(waiter)
        if (i >= 0) {
          this.#queue.splice(i, 1)
          resolve(undefined)
          // the head may have been what held the others back
          this.#drain()
        }
      }
      const timer = setTimeout(leave, opts.waitMs)
      timer.unref()
      opts.signal?.addEventListener('abort', leave, { once: true })
      waiter.grant = (r) => {
        clearTimeout(timer)
        opts.signal?.removeEventListener('abort', leave)
        resolve(r)
      }
      this.#queue.push(waiter)
    })
  }

  /** Room for `bytes` now: within what is open, or alone. */
  #fits(bytes: number): boolean {
    return this.#reserved + bytes <= this.#open() || this.#reserved === 0
  }

  /** Cancels every revocable reservation's work; returns how many were told. */
  revokeAll(reason: Error): number {
    const told = [...this.#revocable]
    for (const r of told) {
      r.onRevoke(reason)
    }
    return told.length
  }

  #grant(bytes: number, onRevoke: ((reason: Error) => void) | undefined): Reservation {
    this.#reserved += bytes
    const entry = onRevoke ? { onRevoke } : undefined
    if (entry) {
      this.#revocable.add(entry)
    }
    let released = false
    return {
      bytes,
      release: () => {
        if (released) {
          return
        }
        released = true
        this.#reserved -= bytes
        if (entry) {
          this.#revocable.delete(entry)
        }
        this.#drain()
      },
    }
  }

  /**
   * Grants waiters in arrival order, skipping those that do not fit yet: a query waiting for a
   * large share must not hold up the small writes behind it (it is bounded by its own wait).
   */
  #drain(): void {
    for (let i = 0; i < this.#queue.length; ) {
      const w = this.#queue[i]
      if (this.#fits(w.bytes)) {
        this.#queue.splice(i, 1)
        w.grant(this.#grant(w.bytes, w.onRevoke))
      } else {
        i++
      }
    }
  }
}

/** db_adapter_work_memory_{limit,open,reserved}_bytes, _waiting and _refused_total{kind}; returns the refusal counter. */
export function createWorkMetrics(registry: Registry, budget: WorkBudget): (kind: string) => void {
  new Gauge({
    name: 'db_adapter_work_memory_limit_bytes',
    help: 'monitor.workMemory: bytes requests in flight may reserve at once',
    registers: [registry],
    collect() {
      this.set(budget.capacity)
    },
  })
  new Gauge({
    name: 'db_adapter_work_memory_open_bytes',
    help: 'Bytes of the work budget open now: all of it, or less while it opens again after the memory gate was all-paused',
    registers: [registry],
    collect() {
      this.set(budget.stats().open)
    },
  })
  new Gauge({
    name: 'db_adapter_work_memory_reserved_bytes',
    help: 'Bytes reserved by requests in flight (bodies being parsed, query results being produced)',
    registers: [registry],
    collect() {
      this.set(budget.stats().reserved)
    },
  })
  new Gauge({
    name: 'db_adapter_work_memory_waiting',
    help: 'Requests waiting for room in the work budget',
    registers: [registry],
    collect() {
      this.set(budget.stats().waiting)
    },
  })
  const refused = new Counter({
    name: 'db_adapter_work_memory_refused_total',
    help: 'Requests refused with 503 because the work budget stayed full for monitor.workWait, by route class',
    labelNames: ['kind'],
    registers: [registry],
  })
  return (kind) => refused.inc({ kind })
}
