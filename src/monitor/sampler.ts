/**
 * @module
 * Samples memory and CPU every `monitor.collectDuration`, drives the Gate through the spec's
 * state machine (src/monitor/state-machine.ts) and exports the figures as gauges.
 *
 * Memory percent:
 * - `monitor.incgroup=true` and a cgroup found: cgroup working set / cgroup limit (see
 *   src/monitor/cgroup.ts for why the working set and not the RSS). An unlimited cgroup (or a
 *   limit above physical memory) is measured against physical memory.
 * - otherwise: process RSS / physical memory (the original's figure).
 * A memory-limited cgroup seen while incgroup is false gets one warning at start: the gate would
 * measure against the host's memory and never fire before the container is OOM-killed.
 *
 * CPU percent: process CPU time over wall time, as a percent of the cores the process may use (the
 * cgroup CPU quota when there is one, else all cores). The first sample is 0.
 *
 * Between two samples memory alone is read every `watchMs` (a few small files, or the RSS); such a
 * reading may only make the gate stricter. A load can take memory from the threshold to the
 * cgroup's limit well within one 3 s period (a 256 MiB cgroup went from 53% to 97% in 500 ms),
 * and the kernel does not wait for the next sample.
 */
import { readFileSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { Gauge } from 'prom-client'
import type { Registry } from 'prom-client'
import type { Logger } from '../logger.js'
import { locateCgroup, readCgroupCpuCores, readCgroupMemory } from './cgroup.js'
import type { CgroupLocation } from './cgroup.js'
import type { Gate, GateState } from './gate.js'
import { gateStateCode, nextGateState } from './state-machine.js'
import type { Thresholds } from './state-machine.js'

export interface MemorySample {
  percent: number
  usedBytes: number
  limitBytes: number
  /** what was measured: the cgroup working set or the process RSS */
  source: 'cgroup' | 'process'
}

/** Where samples come from; tests pass a fake. */
export interface ResourceProbe {
  memory(): MemorySample
  /** CPU percent since the previous call (0 on the first) */
  cpu(): number
}

export interface ProbeOptions {
  incgroup: boolean
  /** stands for `/` (tests point it at a fixture tree) */
  root?: string
  logger: Logger
  /** physical memory in bytes (default os.totalmem()) */
  totalMemory?: number
}

/** The live probe: reads the cgroup files (or the process RSS) on every call. */
export function createResourceProbe({ incgroup, root = '/', logger, totalMemory = os.totalmem() }: ProbeOptions): ResourceProbe {
  const loc = locateCgroup(root)
  const limitedCgroup = loc ? effectiveLimit(loc, totalMemory) : undefined
  if (!incgroup && limitedCgroup !== undefined) {
    logger.warn(
      { cgroupVersion: loc?.version, cgroupLimitBytes: limitedCgroup, physicalBytes: totalMemory },
      'running in a memory-limited cgroup but monitor.incgroup is false: memory thresholds are measured against physical memory and will not fire before the container is OOM-killed; set --monitor.incgroup=true',
    )
  }
  if (incgroup && loc === undefined) {
    logger.warn('monitor.incgroup is true but no cgroup memory controller was found: measuring the process RSS against physical memory')
  }
  const useCgroup = incgroup && loc !== undefined
  const cores = (loc ? readCgroupCpuCores(loc) : undefined) ?? os.availableParallelism()
  // a process moved to another cgroup at run time (echo pid > cgroup.procs) is followed: the
  // membership file is tiny, so it is re-read every sample and the cgroup re-located on change
  const membershipFile = join(root, 'proc/self/cgroup')
  const membership = (): string => {
    try {
      return readFileSync(membershipFile, 'utf8')
    } catch {
      return ''
    }
  }
  let member = useCgroup ? membership() : ''
  let current = loc

  let lastCpu = process.cpuUsage()
  let lastWall = process.hrtime.bigint()
  let first = true

  return {
    memory(): MemorySample {
      if (useCgroup && current !== undefined) {
        const now = membership()
        if (now !== member) {
          member = now
          const moved = locateCgroup(root)
          if (moved) {
            current = moved
            logger.info({ memoryDir: moved.memoryDir }, 'process moved to another cgroup: following it')
          }
        }
        const mem = readCgroupMemory(current)
        const limit = mem.limit === null ? totalMemory : Math.min(mem.limit, totalMemory)
        return { percent: (100 * mem.inUse) / limit, usedBytes: mem.inUse, limitBytes: limit, source: 'cgroup' }
      }
      const rss = process.memoryUsage.rss()
      return { percent: (100 * rss) / totalMemory, usedBytes: rss, limitBytes: totalMemory, source: 'process' }
    },
    cpu(): number {
      const cpu = process.cpuUsage()
      const wall = process.hrtime.bigint()
      const usedMicros = cpu.user - lastCpu.user + (cpu.system - lastCpu.system)
      const wallMicros = Number(wall - lastWall) / 1000
      lastCpu = cpu
      lastWall = wall
      if (first || wallMicros <= 0) {
        first = false
        return 0
      }
      return (100 * usedMicros) / wallMicros / cores
    },
  }
}

/** The cgroup's limit when it is below physical memory, else undefined (not limited). */
function effectiveLimit(loc: CgroupLocation, totalMemory: number): number | undefined {
  try {
    const limit = readCgroupMemory(loc).limit
    return limit !== null && limit < totalMemory ? limit : undefined
  } catch {
    return undefined
  }
}

export interface MonitorGauges {
  memoryPercent: Gauge
  memoryLimitBytes: Gauge
  cpuPercent: Gauge
  gateState: Gauge
}

/** The sampler's gauges in the adapter's registry (one set per registry). */
export function createMonitorGauges(registry: Registry): MonitorGauges {
  return {
    memoryPercent: new Gauge({
      name: 'db_adapter_memory_percent',
      help: 'memory in use as a percent of the memory the adapter may use (cgroup limit with monitor.incgroup, else physical memory)',
      registers: [registry],
    }),
    memoryLimitBytes: new Gauge({
      name: 'db_adapter_memory_limit_bytes',
      help: 'the memory the adapter may use, which memory_percent is measured against (the cgroup limit with monitor.incgroup, else physical memory)',
      registers: [registry],
    }),
    cpuPercent: new Gauge({
      name: 'db_adapter_cpu_percent',
      help: 'CPU use as a percent of the cores the adapter may use (cgroup quota when present)',
      registers: [registry],
    }),
    gateState: new Gauge({
      name: 'db_adapter_gate_state',
      help: 'memory-protection state: 0 normal, 1 query-paused, 2 all-paused',
      registers: [registry],
    }),
  }
}

export interface SamplerOptions {
  probe: ResourceProbe
  gate: Gate
  thresholds: Thresholds
  /** monitor.collectDuration in ms */
  intervalMs: number
  logger: Logger
  gauges?: MonitorGauges
  /**
   * Consecutive samples that must call for a milder state before the gate relaxes (default 1: the
   * spec's table as is). The adapter uses 2: memory freed by one GC right after a pause would
   * otherwise reopen the gate for a single interval and let the same load in again.
   */
  relaxAfter?: number
  /** memory is read this often between samples (default intervalMs: no reading in between) */
  watchMs?: number
  /** called after every full sample with the gate's state (not after the readings in between) */
  onSample?: (state: GateState) => void
}

export interface Sampler {
  /** samples once now, then every intervalMs; returns the state after the first sample */
  start(): GateState
  /** one sample: memory + CPU, gauges, gate transition; returns the new state */
  sampleOnce(): GateState
  stop(): void
  /** the latest samples (NaN before the first) */
  readonly last: { memoryPercent: number; cpuPercent: number }
}

export function createSampler({ probe, gate, thresholds, intervalMs, logger, gauges, relaxAfter = 1, watchMs = intervalMs, onSample }: SamplerOptions): Sampler {
  let timer: NodeJS.Timeout | undefined
  let milder = 0
  const last = { memoryPercent: NaN, cpuPercent: NaN }
  let failing = false
  let lastFull = 0
  let running = false

  function readMemory(): MemorySample | undefined {
    try {
      const mem = probe.memory()
      if (failing) {
        failing = false
        logger.info('memory sampling works again')
      }
      last.memoryPercent = mem.percent
      gauges?.memoryPercent.set(mem.percent)
      gauges?.memoryLimitBytes.set(mem.limitBytes)
      return mem
    } catch (err) {
      // a failed read keeps the current state; say so once, not every tick
      if (!failing) {
        failing = true
        logger.error({ err }, 'memory sample failed; the memory gate keeps its state until sampling works again')
      }
      return undefined
    }
  }

  function move(before: GateState, after: GateState, mem: MemorySample): void {
    milder = 0
    gate.set(after)
    const detail = { from: before, to: after, memoryPercent: round(mem.percent), usedBytes: mem.usedBytes, limitBytes: mem.limitBytes, thresholds }
    if (gateStateCode(after) > gateStateCode(before)) {
      logger.warn(detail, `memory gate: ${after}`)
    } else {
      logger.info(detail, `memory gate: ${after}`)
    }
    gauges?.gateState.set(gateStateCode(after))
  }

  function sampleOnce(): GateState {
    const mem = readMemory()
    if (mem === undefined) {
      return gate.state
    }
    const cpu = probe.cpu()
    last.cpuPercent = cpu
    gauges?.cpuPercent.set(cpu)

    const before = gate.state
    let after = nextGateState(before, mem.percent, thresholds)
    if (gateStateCode(after) < gateStateCode(before)) {
      milder++
      if (milder < relaxAfter) {
        after = before
      }
    } else {
      milder = 0
    }
    if (after !== before) {
      move(before, after, mem)
    }
    gauges?.gateState.set(gateStateCode(after))
    onSample?.(after)
    return after
  }

  /** A reading between samples: only a stricter state is taken from it. */
  function watchOnce(): void {
    const mem = readMemory()
    if (mem === undefined) {
      return
    }
    const before = gate.state
    const after = nextGateState(before, mem.percent, thresholds)
    if (gateStateCode(after) > gateStateCode(before)) {
      move(before, after, mem)
    }
  }

  function tick(): void {
    try {
      const now = Date.now()
      if (now - lastFull >= intervalMs - watchMs / 2) {
        lastFull = now
        sampleOnce()
      } else {
        watchOnce()
      }
    } finally {
      // re-armed whatever a listener threw, as an interval would be (not once stopped)
      if (running) {
        const untilFull = Math.max(1, lastFull + intervalMs - Date.now())
        timer = setTimeout(tick, Math.min(watchMs, untilFull))
        // sampling alone must not keep the process alive
        timer.unref()
      }
    }
  }

  return {
    start(): GateState {
      if (!running) {
        running = true
        tick()
      }
      return gate.state
    },
    sampleOnce,
    stop(): void {
      running = false
      if (timer) {
        clearTimeout(timer)
        timer = undefined
      }
    },
    last,
  }
}

function round(n: number): number {
  return Math.round(n * 100) / 100
}
