import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { Gate } from './gate.js'
import { createMonitorGauges, createResourceProbe, createSampler } from './sampler.js'
import type { MemorySample, ResourceProbe } from './sampler.js'

const FIXTURES = join(import.meta.dirname, '../../test/monitor/fixtures')

/** A fake probe that returns the memory percents it is fed, in order. */
function fakeProbe(percents: number[]): ResourceProbe & { fail: boolean } {
  let i = 0
  return {
    fail: false,
    memory(): MemorySample {
      if (this.fail) {
        throw new Error('EIO')
      }
      const percent = percents[Math.min(i++, percents.length - 1)]
      return { percent, usedBytes: percent, limitBytes: 100, source: 'process' }
    },
    cpu: () => 12.5,
  }
}

function captureLogger(): { logger: pino.Logger; lines: Array<{ level: number; msg: string }> } {
  const lines: Array<{ level: number; msg: string }> = []
  const logger = pino({ level: 'debug' }, { write: (s: string) => lines.push(JSON.parse(s) as { level: number; msg: string }) })
  return { logger, lines }
}

describe('sampler drives the gate through the spec table', () => {
  it('walks normal -> query -> all -> query -> normal -> all -> normal, with gauges', async () => {
    const registry = new Registry()
    const gauges = createMonitorGauges(registry)
    const gate = new Gate()
    const { logger, lines } = captureLogger()
    const probe = fakeProbe([10, 75, 85, 75, 60, 95, 20])
    const sampler = createSampler({ probe, gate, thresholds: { query: 70, all: 80 }, intervalMs: 1000, logger, gauges })
    const seen = [1, 2, 3, 4, 5, 6, 7].map(() => {
      const s = sampler.sampleOnce()
      expect(gate.state).toBe(s)
      return s
    })
    expect(seen).toEqual(['normal', 'query-paused', 'all-paused', 'query-paused', 'normal', 'all-paused', 'normal'])
    // what the handlers read
    gate.set('query-paused')
    expect([gate.queryPaused(), gate.allPaused()]).toEqual([true, false])

    const text = await registry.metrics()
    expect(text).toMatch(/^db_adapter_memory_percent 20$/m)
    expect(text).toMatch(/^db_adapter_cpu_percent 12.5$/m)
    expect(text).toMatch(/^db_adapter_gate_state 0$/m)
    // every transition logged: pauses as warnings (40), resumes as info (30)
    const gateLogs = lines.filter((l) => l.msg.startsWith('memory gate:'))
    expect(gateLogs.map((l) => [l.level, l.msg])).toEqual([
      [40, 'memory gate: query-paused'],
      [40, 'memory gate: all-paused'],
      [30, 'memory gate: query-paused'],
      [30, 'memory gate: normal'],
      [40, 'memory gate: all-paused'],
      [30, 'memory gate: normal'],
    ])
  })

  it('relaxAfter: the gate relaxes only after that many samples in a row call for it; pausing is at once', () => {
    const gate = new Gate()
    const percents = [85, 60, 85, 60, 60, 75, 60, 60]
    const sampler = createSampler({ probe: fakeProbe(percents), gate, thresholds: { query: 70, all: 80 }, intervalMs: 1000, logger: captureLogger().logger, relaxAfter: 2 })
    const seen = percents.map(() => sampler.sampleOnce())
    expect(seen).toEqual(['all-paused', 'all-paused', 'all-paused', 'all-paused', 'normal', 'query-paused', 'query-paused', 'normal'])
  })

  it('a failing probe keeps the state and logs once', () => {
    const gate = new Gate()
    const { logger, lines } = captureLogger()
    const probe = fakeProbe([90])
    const sampler = createSampler({ probe, gate, thresholds: { query: 70, all: 80 }, intervalMs: 1000, logger })
    expect(sampler.sampleOnce()).toBe('all-paused')
    probe.fail = true
    expect(sampler.sampleOnce()).toBe('all-paused')
    expect(sampler.sampleOnce()).toBe('all-paused')
    expect(lines.filter((l) => l.msg.startsWith('memory sample failed'))).toHaveLength(1)
  })

  it('start() samples at once and then on the interval; stop() ends it', async () => {
    const gate = new Gate()
    const probe = fakeProbe([10, 75, 75, 75, 75, 75, 75, 75, 75, 75])
    const sampler = createSampler({ probe, gate, thresholds: { query: 70, all: 80 }, intervalMs: 20, logger: captureLogger().logger })
    expect(sampler.start()).toBe('normal')
    await new Promise((r) => setTimeout(r, 80))
    expect(gate.state).toBe('query-paused')
    sampler.stop()
    gate.set('normal')
    await new Promise((r) => setTimeout(r, 60))
    expect(gate.state).toBe('normal')
  })

  it('memory is read between samples, and such a reading only tightens the gate', async () => {
    const gate = new Gate()
    let percent = 10
    let reads = 0
    const probe: ResourceProbe = {
      memory: () => {
        reads++
        return { percent, usedBytes: percent, limitBytes: 100, source: 'process' }
      },
      cpu: () => 0,
    }
    const states: string[] = []
    const sampler = createSampler({ probe, gate, thresholds: { query: 70, all: 80 }, intervalMs: 60_000, watchMs: 10, logger: captureLogger().logger, onSample: (s) => states.push(s) })
    const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))
    try {
      sampler.start()
      await sleep(100)
      expect(reads).toBeGreaterThan(3)
      expect(gate.state).toBe('normal')
      // the next full sample is a minute away; memory climbs
      percent = 85
      await sleep(100)
      expect(gate.state).toBe('all-paused')
      // memory falls again: a reading between samples does not reopen the gate
      percent = 10
      await sleep(100)
      expect(gate.state).toBe('all-paused')
      // the readings in between are not samples
      expect(states).toEqual(['normal'])
      expect(sampler.sampleOnce()).toBe('normal')
    } finally {
      sampler.stop()
    }
  })
})

describe('createResourceProbe', () => {
  it('incgroup with the v2 fixture: memory in use (page cache left out) over the cgroup limit', () => {
    const probe = createResourceProbe({ incgroup: true, root: join(FIXTURES, 'v2'), logger: captureLogger().logger, totalMemory: 8 * 2 ** 30 })
    const m = probe.memory()
    // (500000000 - 100000000 inactive - 20000000 active file) / 1073741824
    expect(m.source).toBe('cgroup')
    expect(m.limitBytes).toBe(1073741824)
    expect(m.percent).toBeCloseTo((100 * 380000000) / 1073741824, 10)
  })

  it('an unlimited cgroup is measured against physical memory', () => {
    const probe = createResourceProbe({ incgroup: true, root: join(FIXTURES, 'v2-unlimited'), logger: captureLogger().logger, totalMemory: 700000000 })
    expect(probe.memory().percent).toBeCloseTo(10, 10)
  })

  it('warns once when a limited cgroup exists but incgroup is false, and measures RSS against physical memory', () => {
    const { logger, lines } = captureLogger()
    const probe = createResourceProbe({ incgroup: false, root: join(FIXTURES, 'v1'), logger, totalMemory: 16 * 2 ** 30 })
    const warnings = lines.filter((l) => l.level === 40)
    expect(warnings).toHaveLength(1)
    expect(warnings[0].msg).toMatch(/memory-limited cgroup but monitor.incgroup is false/)
    const m = probe.memory()
    expect(m.source).toBe('process')
    expect(m.limitBytes).toBe(16 * 2 ** 30)
    expect(m.usedBytes).toBeGreaterThan(0)
  })

  it('no warning when the cgroup is unlimited', () => {
    const { logger, lines } = captureLogger()
    createResourceProbe({ incgroup: false, root: join(FIXTURES, 'v2-unlimited'), logger, totalMemory: 2 ** 34 })
    expect(lines.filter((l) => l.level >= 40)).toHaveLength(0)
  })

  it('follows the process into another cgroup (pid written to cgroup.procs at run time)', () => {
    const root = mkdtempSync(join(tmpdir(), 'cgroup-move-'))
    try {
      cpSync(join(FIXTURES, 'v1'), root, { recursive: true })
      const probe = createResourceProbe({ incgroup: true, root, logger: captureLogger().logger, totalMemory: 2 ** 34 })
      // c1: (300000000 - 50000000 - 10000000) / 536870912
      expect(probe.memory().percent).toBeCloseTo((100 * 240000000) / 536870912, 10)
      const moved = join(root, 'sys/fs/cgroup/memory/limited')
      mkdirSync(moved)
      writeFileSync(join(moved, 'memory.limit_in_bytes'), '100000000\n')
      writeFileSync(join(moved, 'memory.usage_in_bytes'), '30000000\n')
      writeFileSync(join(moved, 'memory.stat'), 'total_inactive_file 5000000\n')
      writeFileSync(join(root, 'proc/self/cgroup'), '4:memory:/limited\n3:cpu,cpuacct:/kubepods/pod1/c1\n')
      const m = probe.memory()
      expect(m.limitBytes).toBe(100000000)
      expect(m.percent).toBeCloseTo(25, 10)
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })

  it('CPU percent: 0 first, then positive after busy work', () => {
    const probe = createResourceProbe({ incgroup: false, root: join(FIXTURES, 'none'), logger: captureLogger().logger })
    expect(probe.cpu()).toBe(0)
    const end = Date.now() + 50
    let x = 0
    while (Date.now() < end) {
      x += Math.sqrt(x + 1)
    }
    expect(x).toBeGreaterThan(0)
    const cpu = probe.cpu()
    expect(cpu).toBeGreaterThan(0)
  })
})
