/**
 * Prometheus labels live in the JSON tag `labels` of prom.metrics: the JSON operators of /rest/sql
 * (`labels->'job' = 'node'`, CONTAINS, GROUP BY a label) over data written by real remote-write
 * bodies (the captured Prometheus 2.42 body and one built here). Expected counts come from
 * decoding the same bodies in the test, not from the adapter.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningAdapter } from '../../src/lifecycle.js'
import { decodeWriteRequest, encodeWriteRequest, type TimeSeries } from '../../src/ingest/metricsproto/proto.js'
import { ROOT_AUTH, post, sql, sqlRows, startIngestServer } from './server.js'

const fixture = readFileSync(join(import.meta.dirname, 'fixtures/prom2.42_remote_write.snappy.pb'))
let server: RunningAdapter

const writeTo = (db: string, body: Uint8Array) =>
  post(`${server.url}/metricsproto/v1/remote_write/${db}`, body, { Authorization: ROOT_AUTH, 'Content-Encoding': 'snappy', 'Content-Type': 'application/x-protobuf' })

const label = (ts: TimeSeries, name: string): string | undefined => ts.labels.find((l) => l.name === name)?.value

/** samples per distinct timestamp-and-series: a series' samples at one ts overwrite each other */
function rowCount(series: TimeSeries[]): number {
  return series.reduce((n, s) => n + new Set(s.samples.map((x) => x.timestamp)).size, 0)
}

beforeAll(async () => {
  server = await startIngestServer((c) => {
    c.smlAutoCreateDB = true
  })
})

afterAll(async () => {
  await server.stop()
})

describe("labels->'key' over remote-written series", () => {
  it("select * from prom.metrics where labels->'job' = 'node' returns exactly the node series' samples", async () => {
    const node = (instance: string, samples: number[]): TimeSeries => ({
      labels: [
        { name: '__name__', value: 'up' },
        { name: 'instance', value: instance },
        { name: 'job', value: 'node' },
      ],
      samples: samples.map((v, i) => ({ value: v, timestamp: 1_700_000_000_000 + i * 1000 })),
    })
    const other: TimeSeries = {
      labels: [
        { name: '__name__', value: 'up' },
        { name: 'job', value: 'prometheus' },
      ],
      samples: [{ value: 1, timestamp: 1_700_000_000_000 }],
    }
    const noJob: TimeSeries = { labels: [{ name: '__name__', value: 'loose' }], samples: [{ value: 7, timestamp: 1_700_000_000_000 }] }
    const body = encodeWriteRequest({ timeseries: [node('a:9100', [1, 0, 1]), node('b:9100', [1]), other, noJob] })
    expect((await writeTo('prom', body)).status).toBe(204)
    expect((await writeTo('prom', fixture)).status).toBe(204)

    const decoded = decodeWriteRequest(fixture).timeseries
    const all = [...decodeWriteRequest(body).timeseries, ...decoded]
    const nodeSeries = all.filter((s) => label(s, 'job') === 'node')

    const res = await sql(server.url, "select * from prom.metrics where labels->'job' = 'node'")
    expect(res.code, JSON.stringify(res)).toBe(0)
    expect(res.column_meta?.map((c) => c[0])).toEqual(['ts', 'v', 'labels'])
    expect(res.rows).toBe(rowCount(nodeSeries))
    for (const row of res.data ?? []) {
      expect((row[2] as Record<string, string>).job).toBe('node')
    }
    const instances = await sqlRows(server.url, "select distinct labels->'instance' from prom.metrics where labels->'job' = 'node' and labels->'__name__' = 'up'")
    const expectedInstances = new Set(nodeSeries.filter((s) => label(s, '__name__') === 'up').map((s) => label(s, 'instance')))
    expect(instances.map((r) => r[0]).sort()).toEqual([...expectedInstances].sort())
    expect(expectedInstances.has('a:9100') && expectedInstances.has('b:9100')).toBe(true)
  })

  it('every job of the captured body: GROUP BY a label counts its rows; CONTAINS finds series with the label', async () => {
    const all = [...decodeWriteRequest(fixture).timeseries]
    const jobs = new Map<string, TimeSeries[]>()
    for (const s of all) {
      const j = label(s, 'job')
      if (j !== undefined) {
        jobs.set(j, [...(jobs.get(j) ?? []), s])
      }
    }
    expect(jobs.size).toBeGreaterThan(0)
    for (const [job, series] of jobs) {
      const [[n]] = await sqlRows(server.url, `select count(*) from prom.metrics where labels->'job' = '${job}' and labels->'__name__' != 'up'`)
      const expected = rowCount(series.filter((s) => label(s, '__name__') !== 'up'))
      expect(Number(n), job).toBe(expected)
    }
    const withoutJob = await sqlRows(server.url, "select count(*) from prom.metrics where not (labels contains 'job')")
    expect(Number(withoutJob[0][0])).toBeGreaterThanOrEqual(1)
    const grouped = await sqlRows(server.url, "select labels->'job', count(*) from prom.metrics where labels contains 'job' group by labels->'job'")
    expect(grouped.length).toBe(new Set([...jobs.keys(), 'node', 'prometheus']).size)
  })
})
