/**
 * The management server on PostgreSQL: two adapter PROCESSES on one database share one events
 * list (an alert posted to one is listed, acknowledged and resolved through the other), the same
 * alert posted to both at once opens ONE event (the other counts), and events survive a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '../lib/free-port.js'
import { startAdapter, ROOT_AUTH } from './adapter-process.js'
import type { AdapterProcess } from './adapter-process.js'
import { startPostgres } from './pg-container.js'
import type { PgContainer } from './pg-container.js'
import { freshDatabase } from './pg-databases.js'

let pgc: PgContainer | undefined
let url = ''
const replicas: Array<{ proc: AdapterProcess; manager: string; managerPort: number }> = []

async function replica(managerPort?: number): Promise<{ proc: AdapterProcess; manager: string; managerPort: number }> {
  const port = managerPort ?? (await freePort())
  const proc = await startAdapter(url, ['--manager.enable=true', `--manager.port=${port}`])
  const manager = `http://127.0.0.1:${port}`
  // listening on the adapter's port comes first; wait for the manager's too
  for (let i = 0; i < 100; i++) {
    if ((await fetch(`${manager}/api/v1/openapi.json`).catch(() => undefined))?.ok === true) {
      break
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  return { proc, manager, managerPort: port }
}

async function api(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { Authorization: ROOT_AUTH, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  })
  return { status: res.status, json: await res.json() }
}

const firing = (fingerprint: string, name: string): object => ({
  version: '4',
  status: 'firing',
  alerts: [{ status: 'firing', fingerprint, labels: { alertname: name, instance: 'pg-node', severity: 'warning' }, annotations: { summary: name } }],
})

beforeAll(async () => {
  pgc = await startPostgres()
  url = await freshDatabase(pgc, 'manager')
  // both start together: the events table's creation races too
  replicas.push(...(await Promise.all([replica(), replica()])))
}, 120_000)

afterAll(async () => {
  await Promise.all(replicas.map((r) => r.proc.stop()))
  await pgc?.stop()
})

describe('events on PostgreSQL, two replicas', () => {
  it('one list: posted to A, listed, acknowledged and resolved through B', async () => {
    const [a, b] = replicas
    expect((await api(a.manager, 'POST', '/api/v1/alerts', firing('pg-fp-1', 'SharedAlert'))).json).toMatchObject({ opened: 1 })
    const list = await api(b.manager, 'GET', '/api/v1/events?elementId=pg-node')
    expect(list.json).toMatchObject({ total: 1, items: [{ title: 'SharedAlert', status: 'active', severity: 'warning' }] })
    const id = list.json.items[0].id as string
    expect((await api(b.manager, 'PUT', `/api/v1/events/${id}/acknowledge`)).json).toMatchObject({ status: 'acknowledged', acknowledgedBy: 'root' })
    expect((await api(a.manager, 'GET', `/api/v1/events/${id}`)).json.status).toBe('acknowledged')
    expect((await api(a.manager, 'PUT', `/api/v1/events/${id}/resolve`)).json.status).toBe('resolved')
    expect((await api(b.manager, 'PUT', `/api/v1/events/${id}/acknowledge`)).status).toBe(409)
  })

  it('the same alert to both replicas at once opens one event, counted twice', async () => {
    const [a, b] = replicas
    for (let round = 0; round < 5; round++) {
      const fp = `race-${round}`
      const answers = await Promise.all([a, b].map((r) => api(r.manager, 'POST', '/api/v1/alerts', firing(fp, `Race${round}`))))
      expect(answers.map((x) => x.status)).toEqual([200, 200])
      expect(answers.map((x) => x.json.opened).sort()).toEqual([0, 1])
      const list = await api(a.manager, 'GET', `/api/v1/events?elementId=pg-node&status=active`)
      const mine = (list.json.items as Array<{ title: string; count: number }>).filter((e) => e.title === `Race${round}`)
      expect(mine.map((e) => e.count)).toEqual([2])
    }
  })

  it('events survive a restart of a replica', async () => {
    const before = (await api(replicas[1].manager, 'GET', '/api/v1/events?pageSize=1000')).json
    await replicas[0].proc.stop()
    replicas[0] = await replica(replicas[0].managerPort)
    expect((await api(replicas[0].manager, 'GET', '/api/v1/events?pageSize=1000')).json).toEqual(before)
  }, 60_000)
})
