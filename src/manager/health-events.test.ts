import pino from 'pino'
import { Registry } from 'prom-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openStorage } from '../sql/catalog/open.js'
import type { Storage } from '../sql/catalog/types.js'
import { createEventMetrics } from './event-metrics.js'
import { EventStore } from './event-store.js'
import { HealthEvents, type GateStateName } from './health-events.js'

/** The probes' readings, set by each test as the adapter's state would change. */
const state = { gate: 'normal' as GateStateName, storageUp: true, drops: {} as Record<string, number>, cpu: NaN }
let clock = 1_000_000
let storage: Storage
let store: EventStore

/** A store whose every call fails while `state.storageUp` is false, as an unreachable backend would. */
function outageAware(real: EventStore): EventStore {
  return new Proxy(real, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown
      if (typeof v !== 'function') {
        return v
      }
      return (...args: unknown[]) => (state.storageUp ? (v as (...a: unknown[]) => unknown).apply(target, args) : Promise.reject(new Error('connection refused')))
    },
  })
}

function watcher(elementId: string, registry = new Registry()): HealthEvents {
  return new HealthEvents({
    store: outageAware(store),
    metrics: createEventMetrics(registry),
    logger: pino({ level: 'silent' }),
    probes: {
      gateState: () => state.gate,
      storageHealthy: () => Promise.resolve(state.storageUp),
      receiverDrops: () => Promise.resolve({ ...state.drops }),
      cpuPercent: () => state.cpu,
    },
    elementId,
    intervalMs: 3_600_000,
    cpuThreshold: 80,
    cpuDurationMs: 60_000,
    now: () => clock,
  })
}

const events = (elementId: string): ReturnType<EventStore['list']> => store.list({ elementId }, { pageNum: 1, pageSize: 100 })

beforeAll(async () => {
  storage = await openStorage('duckdb::memory:', { rootPassword: 'taosdata' })
  store = new EventStore(storage.engine)
})
afterAll(async () => {
  await storage.close()
})

describe('HealthEvents', () => {
  it('records a storage outage once storage answers again: opened when first seen, resolved when it ended', async () => {
    const h = watcher('a:1')
    await h.start()
    state.storageUp = false
    clock = 2_000_000
    await h.check()
    clock = 2_010_000
    await h.check()
    state.storageUp = true
    clock = 2_020_000
    await h.check()
    const page = await events('a:1')
    expect(page.items).toHaveLength(1)
    expect(page.items[0]).toMatchObject({ severity: 'critical', title: 'storage unreachable', createdAt: 2_000_000, resolvedAt: 2_020_000, status: 'resolved', resolvedBy: 'health' })
    await h.stop()
  })

  it('a receiver whose dropped counter grows opens a warning per receiver, resolved after a quiet check', async () => {
    const registry = new Registry()
    const h = watcher('b:1', registry)
    await h.start()
    state.drops = { statsagent: 5 }
    await h.check()
    state.drops = { statsagent: 9, collagent: 0 }
    await h.check()
    let page = await events('b:1')
    expect(page.items).toHaveLength(1)
    expect(page.items[0]).toMatchObject({ title: 'receiver statsagent is dropping input', count: 2, status: 'active', labels: { receiver: 'statsagent' } })
    expect(page.items[0].message).toMatch(/^4 dropped since the last check \(9 since the start\)/)
    await h.check()
    page = await events('b:1')
    expect(page.items[0].status).toBe('resolved')
    const metrics = await registry.getMetricsAsJSON()
    expect(metrics.map((m) => [m.name, m.values.map((x) => x.value)])).toEqual([
      ['db_adapter_events_opened_total', [1]],
      ['db_adapter_events_resolved_total', [1]],
    ])
    state.drops = {}
    await h.stop()
  })

  it('CPU over the threshold opens an event only after cpuDuration', async () => {
    const h = watcher('c:1')
    await h.start()
    state.cpu = 95
    clock = 3_000_000
    await h.check()
    clock = 3_030_000
    await h.check()
    expect((await events('c:1')).total).toBe(0)
    clock = 3_060_000
    await h.check()
    expect((await events('c:1')).items[0]).toMatchObject({ title: 'CPU use high', status: 'active' })
    state.cpu = 10
    await h.check()
    expect((await events('c:1')).items[0]).toMatchObject({ status: 'resolved' })
    state.cpu = NaN
    await h.stop()
  })

  it('an event a previous run left open is resolved at start when its condition is over', async () => {
    const first = watcher('d:1')
    await first.start()
    state.gate = 'all-paused'
    await first.check()
    // the process dies here: no check sees the gate return to normal
    await first.stop()
    state.gate = 'normal'
    const second = watcher('d:1')
    await second.start()
    const page = await events('d:1')
    expect(page.items).toHaveLength(1)
    expect(page.items[0]).toMatchObject({ title: 'memory gate: all requests paused', status: 'resolved' })
    await second.stop()
  })
})
