import { connect, options } from '@tdengine/rest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Server } from '../sql/harness.js'
import { startServer } from '../sql/harness.js'

/**
 * The official `@tdengine/rest` client, used as its README and example do, against the real
 * server: it posts to `/rest/sql/` (trailing slash) with Basic auth, reads only HTTP 200 bodies
 * and throws "Authentication failed." on 401.
 */
describe('@tdengine/rest client end to end', () => {
  let server: Server | undefined
  let port = 0

  beforeAll(async () => {
    server = await startServer('duckdb::memory:')
    port = Number(new URL(server.url).port)
    options.host = '127.0.0.1'
    options.port = port
    options.path = '/rest/sql/'
    options.user = 'root'
    options.passwd = 'taosdata'
  })

  afterAll(async () => {
    await server?.stop()
  })

  it('creates a database and a super table, inserts and queries', async () => {
    const cursor = connect(options).cursor()

    let res = await cursor.query('create database if not exists rest_ts_db keep 3650')
    expect(res.getErrCode()).toBe(0)
    expect(res.getAffectRows()).toBe(0)

    res = await cursor.query(
      'create stable if not exists rest_ts_db.meters (ts timestamp, current float, voltage int, phase float) tags (location binary(64), groupid int)',
    )
    expect(res.getErrCode()).toBe(0)

    res = await cursor.query(
      "insert into rest_ts_db.d1001 using rest_ts_db.meters tags ('California.SanFrancisco', 2) values ('2022-03-30 18:30:51.567', 10.3, 219, 0.31) ('2022-03-30 18:30:52.567', 12.6, 218, 0.33) ('2022-03-30 18:30:53.567', 12.3, 221, 0.31)",
    )
    expect(res.getErrCode()).toBe(0)
    expect(res.getAffectRows()).toBe(3)

    res = await cursor.query('select ts, current, voltage, location from rest_ts_db.meters order by ts')
    expect(res.getErrCode()).toBe(0)
    expect(res.getMeta()).toEqual([
      { columnName: 'ts', typeName: 'TIMESTAMP', size: 8 },
      { columnName: 'current', typeName: 'FLOAT', size: 4 },
      { columnName: 'voltage', typeName: 'INT', size: 4 },
      { columnName: 'location', typeName: 'VARCHAR', size: 64 },
    ])
    expect(res.getData()).toEqual([
      ['2022-03-30T18:30:51.567Z', 10.3, 219, 'California.SanFrancisco'],
      ['2022-03-30T18:30:52.567Z', 12.6, 218, 'California.SanFrancisco'],
      ['2022-03-30T18:30:53.567Z', 12.3, 221, 'California.SanFrancisco'],
    ])
    expect(res.getAffectRows()).toBe(3)
  })

  it('selects a database through the path', async () => {
    const cursor = connect({ ...options, path: '/rest/sql/rest_ts_db' }).cursor()
    const res = await cursor.query('select count(*) from meters')
    expect(res.getErrCode()).toBe(0)
    expect(res.getData()).toEqual([[3]])
  })

  it('exposes SQL errors through getErrCode/getErrStr', async () => {
    const res = await connect(options).cursor().query('show database')
    expect(res.getErrCode()).toBe(9728)
    expect(res.getErrStr()).toContain('syntax error')
  })

  it('reports a wrong password as "Authentication failed."', async () => {
    const cursor = connect({ ...options, passwd: 'wrong' }).cursor()
    await expect(cursor.query('show databases')).rejects.toThrow('Authentication failed.')
  })
})
