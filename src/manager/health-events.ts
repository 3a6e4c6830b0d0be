/**
 * @module
 * Events from the adapter's own health, opened and resolved by themselves. Every
 * `manager.healthInterval` (and at once when the memory gate pauses) the conditions are checked:
 *  - memory gate query-paused (warning) and all-paused (critical), from src/monitor's gate;
 *  - storage unreachable (critical): Storage.healthy() false;
 *  - a receiver dropping input (warning): its dropped counters grew since the last check;
 *  - CPU above manager.cpuThreshold for manager.cpuDuration (warning).
 * A condition that holds is reported on each check (the open event's `count` grows, no second
 * event); one that no longer holds is resolved by `health`. Storage being down is itself a
 * condition, so what cannot be written is kept and written (opened at the time it was first
 * seen, resolved if it has ended) once storage answers again.
 */
import type { Logger } from '../logger.js'
import type { EventMetrics } from './event-metrics.js'
import type { EventStore } from './event-store.js'
import type { EventSeverity, RaisedCondition } from './event-types.js'

export type GateStateName = 'normal' | 'query-paused' | 'all-paused'

export interface HealthProbes {
  gateState(): GateStateName
  /** true while the storage answers; absent: always reachable */
  storageHealthy?(): Promise<boolean>
  /** input dropped so far by each receiver (counters since the start) */
  receiverDrops(): Promise<Record<string, number>>
  /** the latest CPU percent (NaN when not sampled) */
  cpuPercent(): number
}

export interface HealthEventsOptions {
  store: EventStore
  metrics: EventMetrics
  logger: Logger
  probes: HealthProbes
  /** monitor.identity, else hostname:port */
  elementId: string
  intervalMs: number
  cpuThreshold: number
  cpuDurationMs: number
  now?: () => number
}

type Found = Omit<RaisedCondition, 'key' | 'source' | 'elementId'>

interface Tracked {
  cond: RaisedCondition
  firstSeen: number
  /** the event is in storage */
  written: boolean
}

export class HealthEvents {
  readonly #o: HealthEventsOptions
  readonly #now: () => number
  readonly #prefix: string
  readonly #tracked = new Map<string, Tracked>()
  readonly #lastDrops = new Map<string, number>()
  #cpuOverSince: number | undefined
  #timer: NodeJS.Timeout | undefined
  #running: Promise<void> | undefined
  #again = false
  #stopped = false
  #starting: Promise<void> | undefined
  #storageErrorLogged = false

  constructor(opts: HealthEventsOptions) {
    this.#o = opts
    this.#now = opts.now ?? Date.now
    this.#prefix = `health:${opts.elementId}:`
  }

  /**
   * Learns the events a previous run left open (resolved on the first check if over), then checks
   * periodically. Resolves after the first check; a caller need not wait (storage may be slow).
   */
  start(): Promise<void> {
    this.#starting ??= this.#start()
    return this.#starting
  }

  async #start(): Promise<void> {
    try {
      for (const key of await this.#o.store.openKeys(this.#prefix)) {
        const name = key.slice(this.#prefix.length)
        this.#tracked.set(name, { cond: this.#condition(name, { severity: 'info', title: name, message: '', labels: {} }), firstSeen: this.#now(), written: true })
      }
    } catch (err) {
      this.#o.logger.warn({ err }, 'health events: the open events of a previous run could not be read')
    }
    await this.check()
    if (this.#stopped) {
      return
    }
    this.#timer = setInterval(() => void this.check(), this.#o.intervalMs)
    this.#timer.unref()
  }

  /** One check now (a check already running is followed by another). */
  check(): Promise<void> {
    if (this.#stopped) {
      return Promise.resolve()
    }
    if (this.#running !== undefined) {
      this.#again = true
      return this.#running
    }
    this.#running = (async () => {
      do {
        this.#again = false
        await this.#checkOnce().catch((err: unknown) => this.#o.logger.error({ err }, 'health events: check failed'))
      } while (this.#again && !this.#stopped)
      this.#running = undefined
    })()
    return this.#running
  }

  async stop(): Promise<void> {
    this.#stopped = true
    clearInterval(this.#timer)
    await this.#starting
    await this.#running
  }

  async #checkOnce(): Promise<void> {
    const now = this.#now()
    const found = await this.#conditions(now)
    for (const [name, f] of found) {
      const seen = this.#tracked.get(name)
      const tracked: Tracked = seen === undefined ? { cond: this.#condition(name, f), firstSeen: now, written: false } : { ...seen, cond: this.#condition(name, f) }
      this.#tracked.set(name, tracked)
      try {
        const { opened } = await this.#o.store.raise(tracked.cond, tracked.written ? now : tracked.firstSeen)
        tracked.written = true
        if (opened) {
          this.#o.metrics.opened.inc({ source: 'health' })
          this.#o.logger.warn({ condition: name, elementId: this.#o.elementId }, `event opened: ${tracked.cond.title}`)
        }
        this.#storageErrorLogged = false
      } catch (err) {
        this.#storageFailed(err)
      }
    }
    for (const [name, tracked] of this.#tracked) {
      if (found.has(name)) {
        continue
      }
      try {
        if (!tracked.written) {
          // seen only while storage was down (storage unreachable itself): it happened, so it is recorded
          await this.#o.store.raise(tracked.cond, tracked.firstSeen)
          this.#o.metrics.opened.inc({ source: 'health' })
        }
        const resolved = await this.#o.store.resolveCondition(tracked.cond.key, 'health', now)
        this.#tracked.delete(name)
        if (resolved !== undefined) {
          this.#o.metrics.resolved.inc({ source: 'health' })
          this.#o.logger.info({ condition: name, elementId: this.#o.elementId }, `event resolved: ${resolved.title}`)
        }
      } catch (err) {
        this.#storageFailed(err)
      }
    }
  }

  #storageFailed(err: unknown): void {
    if (!this.#storageErrorLogged) {
      this.#storageErrorLogged = true
      this.#o.logger.warn({ err }, 'health events: storage refused the event; kept and written when it answers again')
    }
  }

  #condition(name: string, f: Found): RaisedCondition {
    return { ...f, key: `${this.#prefix}${name}`, source: 'health', elementId: this.#o.elementId }
  }

  /** What holds now, by condition name. */
  async #conditions(now: number): Promise<Map<string, Found>> {
    const found = new Map<string, Found>()
    const add = (name: string, severity: EventSeverity, title: string, message: string, labels: Record<string, string> = {}): void => {
      found.set(name, { severity, title, message, labels: { condition: name, ...labels } })
    }
    const gate = this.#o.probes.gateState()
    if (gate === 'query-paused') {
      add('memory-query-paused', 'warning', 'memory gate: queries paused', 'memory use is above monitor.pauseQueryMemoryThreshold: queries are refused with 503 until it falls')
    } else if (gate === 'all-paused') {
      add('memory-all-paused', 'critical', 'memory gate: all requests paused', 'memory use is above monitor.pauseAllMemoryThreshold: every request is refused with 503 until it falls')
    }
    if (this.#o.probes.storageHealthy !== undefined) {
      const healthy = await this.#o.probes.storageHealthy().catch(() => false)
      if (!healthy) {
        add('storage-unreachable', 'critical', 'storage unreachable', 'the storage backend does not answer: queries and writes fail with 503')
      }
    }
    const drops = await this.#o.probes.receiverDrops()
    for (const [receiver, total] of Object.entries(drops)) {
      const before = this.#lastDrops.get(receiver) ?? 0
      this.#lastDrops.set(receiver, total)
      if (total > before) {
        add(`receiver-drops:${receiver}`, 'warning', `receiver ${receiver} is dropping input`, `${total - before} dropped since the last check (${total} since the start): memory gate, full queue, bad credentials or storage errors`, { receiver })
      }
    }
    const cpu = this.#o.probes.cpuPercent()
    if (Number.isFinite(cpu) && cpu > this.#o.cpuThreshold) {
      this.#cpuOverSince ??= now
      if (now - this.#cpuOverSince >= this.#o.cpuDurationMs) {
        add('cpu-high', 'warning', 'CPU use high', `CPU at ${cpu.toFixed(1)}%, above manager.cpuThreshold (${this.#o.cpuThreshold}%) for ${Math.round((now - this.#cpuOverSince) / 1000)} s`)
      }
    } else {
      this.#cpuOverSince = undefined
    }
    return found
  }
}
