/**
 * Remote write's series cache (src/ingest/metricsproto/write.ts) against the real server: series
 * known by the bytes of their labels must still land in the table their labels name when the same
 * labels come in another order, when the database or a child table is dropped and made again, or
 * when a normal table takes a series' name; known and new series mixed in one request keep the
 * order and rows the rows path always wrote.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningAdapter } from '../../src/lifecycle.js'
import { encodeWriteRequest, type Label, type TimeSeries } from '../../src/ingest/metricsproto/proto.js'
import { seriesKey, seriesTableName, sortLabels } from '../../src/ingest/metricsproto/series.js'
import { ROOT_AUTH, post, sql, sqlRows, startIngestServer } from './server.js'

let server: RunningAdapter

const write = (db: string, timeseries: TimeSeries[]) =>
  post(`${server.url}/metricsproto/v1/remote_write/${db}`, encodeWriteRequest({ timeseries }), { Authorization: ROOT_AUTH, 'Content-Encoding': 'snappy' })

const labels = (...pairs: [string, string][]): Label[] => pairs.map(([name, value]) => ({ name, value }))
const tableOf = (l: Label[]): string => seriesTableName(seriesKey(sortLabels(l)))
const series = (l: Label[], ...samples: [number, number][]): TimeSeries => ({ labels: l, samples: samples.map(([timestamp, value]) => ({ timestamp, value })) })

const UP = labels(['__name__', 'up'], ['job', 'node'])
const UP_REORDERED = labels(['job', 'node'], ['__name__', 'up'])
const T = 1_700_000_000_000

beforeAll(async () => {
  server = await startIngestServer()
})

afterAll(async () => {
  await server.stop()
})

describe('remote write series cache', () => {
  it('the same labels in another order are the same series, in one request and across requests', async () => {
    await sql(server.url, "create database sc1 precision 'ms'")
    const first = await write('sc1', [series(UP, [T, 1]), series(UP_REORDERED, [T + 1000, 2])])
    expect(first.status, first.text).toBe(204)
    const second = await write('sc1', [series(UP_REORDERED, [T + 2000, 3]), series(UP, [T + 3000, 4])])
    expect(second.status, second.text).toBe(204)
    expect(await sqlRows(server.url, 'select count(*) from information_schema.ins_tables where db_name = \'sc1\'')).toEqual([[1]])
    expect(await sqlRows(server.url, `select v from sc1.${tableOf(UP)} order by ts`)).toEqual([[1], [2], [3], [4]])
  })

  it('a dropped and re-created database, and a dropped child table, get their series again', async () => {
    await sql(server.url, "create database sc2 precision 'ms'")
    expect((await write('sc2', [series(UP, [T, 1])])).status).toBe(204)
    await sql(server.url, 'drop database sc2')
    await sql(server.url, "create database sc2 precision 'ms'")
    const again = await write('sc2', [series(UP, [T, 2])])
    expect(again.status, again.text).toBe(204)
    expect(await sqlRows(server.url, `select v, labels from sc2.${tableOf(UP)}`)).toEqual([[2, { __name__: 'up', job: 'node' }]])
    await sql(server.url, `drop table sc2.${tableOf(UP)}`)
    const third = await write('sc2', [series(UP, [T + 1000, 3])])
    expect(third.status, third.text).toBe(204)
    expect(await sqlRows(server.url, `select v from sc2.${tableOf(UP)}`)).toEqual([[3]])
    expect(await sqlRows(server.url, 'select count(*) from sc2.metrics')).toEqual([[1]])
  })

  it('a normal table that took a known series\' name rejects that series; the others are written', async () => {
    await sql(server.url, "create database sc3 precision 'ms'")
    const other = labels(['__name__', 'other'])
    expect((await write('sc3', [series(UP, [T, 1]), series(other, [T, 1])])).status).toBe(204)
    await sql(server.url, `drop table sc3.${tableOf(UP)}`)
    await sql(server.url, `create table sc3.${tableOf(UP)} (ts timestamp, v double)`)
    const res = await write('sc3', [series(UP, [T + 1000, 2]), series(other, [T + 1000, 2])])
    expect(res.status).toBe(400)
    expect(res.text).toMatch(/1 series rejected, 1 series \(1 samples\) written; first: \{__name__=up,job=node\}: table t_[0-9a-f]{32} exists and is not a child table of metrics/)
    expect(await sqlRows(server.url, `select v from sc3.${tableOf(other)} order by ts`)).toEqual([[1], [2]])
    expect(await sqlRows(server.url, `select count(*) from sc3.${tableOf(UP)}`)).toEqual([[0]])
  })

  it('known and new series in one request, with NaN and a resent sample: every row as written, last write wins', async () => {
    await sql(server.url, "create database sc4 precision 'ms'")
    const a = labels(['__name__', 'a'])
    const b = labels(['__name__', 'b'])
    const c = labels(['__name__', 'c'])
    expect((await write('sc4', [series(a, [T, 1]), series(b, [T, 1])])).status).toBe(204)
    // new c between known a and b; a NaN for b; a's first sample resent with another value
    const res = await write('sc4', [series(a, [T + 1000, 2]), series(c, [T, 10], [T + 1000, 11]), series(b, [T + 1000, Number.NaN]), series(a, [T, 5])])
    expect(res.status, res.text).toBe(204)
    expect(await sqlRows(server.url, `select v from sc4.${tableOf(a)} order by ts`)).toEqual([[5], [2]])
    expect(await sqlRows(server.url, `select v from sc4.${tableOf(b)} order by ts`)).toEqual([[1], [null]])
    expect(await sqlRows(server.url, `select v from sc4.${tableOf(c)} order by ts`)).toEqual([[10], [11]])
    // and the next request of the now-known series takes the column append again
    expect((await write('sc4', [series(c, [T + 2000, 12]), series(a, [T + 2000, 3])])).status).toBe(204)
    expect(await sqlRows(server.url, 'select count(*), sum(v) from sc4.metrics')).toEqual([[8, 5 + 2 + 1 + 10 + 11 + 12 + 3]])
  })
})
