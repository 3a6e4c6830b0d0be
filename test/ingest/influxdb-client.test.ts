/**
 * End-to-end with a real InfluxDB client: Debian's python3-influxdb (`InfluxDBClient(...,
 * path='lineproto/v1').write_points(...)`) writes to the real server; the data is read back
 * through /rest/sql. The client must be importable by /usr/bin/python3: test/lib/debian-package.ts
 * installs python3-influxdb when it can, else the test is skipped with one line (fails in CI).
 */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningAdapter } from '../../src/lifecycle.js'
import { needDebianPackages, pythonModule } from '../lib/debian-package.js'
import { childName, describe as describeTable, sql, sqlRows, startIngestServer } from './server.js'

const run = promisify(execFile)
const PYTHON = '/usr/bin/python3'

const need = needDebianPackages('python3-influxdb client', [{ pkg: 'python3-influxdb', present: pythonModule('influxdb') }])
let server: RunningAdapter

async function python(script: string): Promise<string> {
  try {
    const { stdout } = await run(PYTHON, ['-c', script], { timeout: 60_000 })
    return stdout
  } catch (err) {
    const e = err as { stderr?: string; message: string }
    throw new Error(`python client failed: ${e.message}\n${e.stderr ?? ''}`, { cause: err })
  }
}

describe.skipIf(need.skip)('python3-influxdb client', () => {
  beforeAll(async () => {
    server = await startIngestServer()
    await sql(server.url, "create database db precision 'ms'")
  })

  afterAll(async () => {
    await server.stop()
  })

  it('write_points lands in the database and reads back through /rest/sql', async () => {
    const { port, url } = server
    const out = await python(`
import json
from influxdb import InfluxDBClient
from influxdb.exceptions import InfluxDBClientError
c = InfluxDBClient(host='127.0.0.1', port=${port}, username='root', password='taosdata', database='db', path='lineproto/v1')
ok = c.write_points([
    {"measurement": "cpu_load", "tags": {"host": "server01", "region": "us-west"}, "time": 1700000000123,
     "fields": {"value": 0.64, "count": 3, "healthy": True, "note": "fine, \\"quoted\\""}},
    {"measurement": "cpu_load", "tags": {"host": "server02", "region": "us-west"}, "time": 1700000000456,
     "fields": {"value": 0.5, "count": 4, "healthy": False, "note": "ok"}},
], time_precision='ms')
result = {"ok": ok}
try:
    # count is BIGINT now; a float for it is a type conflict the client must see as a 400
    c.write_points([{"measurement": "cpu_load", "tags": {"host": "server01", "region": "us-west"},
                     "time": 1700000000999, "fields": {"count": 1.5}}], time_precision='ms')
    result["conflict"] = None
except InfluxDBClientError as e:
    result["conflict"] = e.code
bad = InfluxDBClient(host='127.0.0.1', port=${port}, username='root', password='wrong', database='db', path='lineproto/v1')
try:
    bad.write_points([{"measurement": "cpu_load", "fields": {"value": 1.0}}])
    result["wrong_password"] = None
except InfluxDBClientError as e:
    result["wrong_password"] = e.code
print(json.dumps(result))
`)
    expect(JSON.parse(out.trim().split('\n').pop() ?? '')).toEqual({ ok: true, conflict: 400, wrong_password: 401 })
    // the client serialises fields sorted by key, so the columns come in that order
    expect(await describeTable(url, 'db.cpu_load')).toEqual([
      ['_ts', 'TIMESTAMP', 8, ''],
      ['count', 'BIGINT', 8, ''],
      ['healthy', 'BOOL', 1, ''],
      ['note', 'VARCHAR', 16, ''],
      ['value', 'DOUBLE', 8, ''],
      ['host', 'NCHAR', 16, 'TAG'],
      ['region', 'NCHAR', 8, 'TAG'],
    ])
    expect(await sqlRows(url, 'select tbname, _ts, value, count, healthy, note, host, region from db.cpu_load order by _ts')).toEqual([
      [childName('cpu_load', [['host', 'server01'], ['region', 'us-west']]), '2023-11-14T22:13:20.123Z', 0.64, 3, true, 'fine, "quoted"', 'server01', 'us-west'],
      [childName('cpu_load', [['host', 'server02'], ['region', 'us-west']]), '2023-11-14T22:13:20.456Z', 0.5, 4, false, 'ok', 'server02', 'us-west'],
    ])
  })
})
