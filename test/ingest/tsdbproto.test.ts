/**
 * POST /tsdbproto/v1/put/{json,telnet}/{db} against the real server, read back through /rest/sql:
 * the captured collectd write_tsdb traffic, JSON single object and array, auth codes, ttl, empty
 * bodies, per-item errors.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningAdapter } from '../../src/lifecycle.js'
import { ROOT_AUTH, childName, describe as describeTable, post, sql, sqlRows, startIngestServer } from './server.js'

let server: RunningAdapter
let base: string

const put = (kind: 'json' | 'telnet', body: string, db = 'tsdb', query = '', headers: Record<string, string> = { Authorization: ROOT_AUTH }) =>
  post(`${base}/tsdbproto/v1/put/${kind}/${db}${query}`, body, headers)

beforeAll(async () => {
  server = await startIngestServer()
  base = server.url
  await sql(base, "create database tsdb precision 'ms'")
})

afterAll(async () => {
  await server.stop()
})

describe('telnet endpoint', () => {
  it('stores the captured collectd 5.12 write_tsdb lines and reads every one back', async () => {
    const text = readFileSync(join(import.meta.dirname, 'fixtures', 'collectd5.12_write_tsdb.txt'), 'utf8')
    const res = await put('telnet', text)
    expect(res.status, res.text).toBe(204)
    // expected rows worked out from the fixture text itself: metric -> super table (dots -> _),
    // seconds -> ms, value as a double, tags fqdn and source; later duplicates overwrite earlier ones
    const expected = new Map<string, number>()
    for (const raw of text.split('\n')) {
      const line = raw.trim()
      if (line === '') {
        continue
      }
      const parts = line.replace(/^put /, '').split(/\s+/)
      const [metric, ts, value] = parts
      const tags = parts.slice(3).map((kv): [string, string] => {
        const at = kv.indexOf('=')
        return [kv.slice(0, at), kv.slice(at + 1)]
      })
      const st = metric.replaceAll('.', '_')
      expected.set(`${st}|${childName(st, tags)}|${Number(ts) * 1000}`, Number(value))
    }
    expect(expected.size).toBeGreaterThan(20)
    const stables = [...new Set([...expected.keys()].map((k) => k.split('|')[0]))]
    const got = new Map<string, number>()
    for (const st of stables) {
      for (const [tbname, ts, v, fqdn, source] of (await sqlRows(base, `select tbname, cast(_ts as bigint), _value, fqdn, source from tsdb.\`${st}\``)) as Array<
        [string, number, number, string, string]
      >) {
        expect(fqdn).toBe('peers-probe')
        expect(source).toBe('collectd')
        got.set(`${st}|${tbname}|${ts}`, v)
      }
    }
    expect(got).toEqual(expected)
    expect(await describeTable(base, `tsdb.memory_used_memory`)).toEqual([
      ['_ts', 'TIMESTAMP', 8, ''],
      ['_value', 'DOUBLE', 8, ''],
      ['fqdn', 'NCHAR', 16, 'TAG'],
      ['source', 'NCHAR', 16, 'TAG'],
    ])
  })

  it('the put prefix is optional; a bad line is a 400 naming it while the good ones are written', async () => {
    const res = await put('telnet', 'tel.a 1700000000 1.5 host=a\r\nput tel.a 1700000001000 2.5 host=a\nput tel.a notatime 3 host=a\n')
    expect(res.status).toBe(400)
    expect(res.json).toMatchObject({ code: 400, line: 3, rejected: 1, written: 2 })
    expect(String(res.json?.message)).toMatch(/line 3/)
    expect(await sqlRows(base, 'select cast(_ts as bigint), _value from tsdb.tel_a order by _ts')).toEqual([
      [1700000000000, 1.5],
      [1700000001000, 2.5],
    ])
  })

  it('an empty body is a 204 no-op, even for a database that does not exist', async () => {
    expect((await put('telnet', '', 'nosuch')).status).toBe(204)
    expect((await put('telnet', '\r\n \n', 'nosuch')).status).toBe(204)
    const missing = await put('telnet', 'm 1700000000 1 a=b', 'nosuch')
    expect(missing.status).toBe(404)
    expect(missing.json?.message).toMatch(/database does not exist/)
  })
})

describe('json endpoint', () => {
  it('accepts a single object and an array; seconds and milliseconds timestamps', async () => {
    const one = await put('json', JSON.stringify({ metric: 'sys.cpu', timestamp: 1700000000, value: 18, tags: { host: 'web01', dc: 'lga' } }))
    expect(one.status, one.text).toBe(204)
    const many = await put(
      'json',
      JSON.stringify([
        { metric: 'sys.cpu', timestamp: 1700000001000, value: 19.5, tags: { host: 'web01', dc: 'lga' } },
        { metric: 'sys.cpu', timestamp: 1700000002, value: 20, tags: { dc: 'lga', host: 'web02' } },
      ]),
    )
    expect(many.status, many.text).toBe(204)
    const web01 = childName('sys_cpu', [
      ['host', 'web01'],
      ['dc', 'lga'],
    ])
    const web02 = childName('sys_cpu', [
      ['host', 'web02'],
      ['dc', 'lga'],
    ])
    expect(await sqlRows(base, 'select tbname, cast(_ts as bigint), _value, host, dc from tsdb.sys_cpu order by _ts')).toEqual([
      [web01, 1700000000000, 18, 'web01', 'lga'],
      [web01, 1700000001000, 19.5, 'web01', 'lga'],
      [web02, 1700000002000, 20, 'web02', 'lga'],
    ])
  })

  it('bad items: 400 naming the first bad item; the good items are written', async () => {
    const res = await put(
      'json',
      JSON.stringify([
        { metric: 'jbad', timestamp: 1700000000, value: 1, tags: { h: 'a' } },
        { metric: 'jbad', timestamp: 'yesterday', value: 2, tags: { h: 'a' } },
        { metric: 'jbad', timestamp: 1700000003, value: 3, tags: { h: 'a' } },
      ]),
    )
    expect(res.status).toBe(400)
    expect(res.json).toMatchObject({ item: 1, rejected: 1, written: 2 })
    expect(await sqlRows(base, 'select _value from tsdb.jbad order by _ts')).toEqual([[1], [3]])
    const notJson = await put('json', '{"metric":')
    expect(notJson.status).toBe(400)
  })

  it('a value type conflict with the existing column is a per-item 400', async () => {
    expect((await put('json', JSON.stringify({ metric: 'jt', timestamp: 1700000000, value: 1, tags: { h: 'a' } }))).status).toBe(204)
    const res = await put('json', JSON.stringify({ metric: 'jt', timestamp: 1700000001, value: 'text', tags: { h: 'a' } }))
    expect(res.status).toBe(400)
    expect(String(res.json?.message)).toMatch(/item 0: field "_value" type mismatch: the column in super table "jt" is DOUBLE, this line sent NCHAR/)
  })

  it('ttl applies to the children the request creates', async () => {
    const res = await put('json', JSON.stringify({ metric: 'jttl', timestamp: 1700000000, value: 1, tags: { h: 'a' } }), 'tsdb', '?ttl=5')
    expect(res.status, res.text).toBe(204)
    expect(await sqlRows(base, "select ttl from information_schema.ins_tables where db_name = 'tsdb' and stable_name = 'jttl'")).toEqual([[5]])
    expect((await put('json', '[]', 'tsdb', '?ttl=x')).status).toBe(400)
  })
})

describe('authentication', () => {
  it('missing Authorization: 401 auth needed; malformed or wrong: 401; good: 204', async () => {
    for (const kind of ['json', 'telnet'] as const) {
      const body = kind === 'json' ? JSON.stringify({ metric: 'au', timestamp: 1700000000, value: 1, tags: { h: 'a' } }) : 'au 1700000000 1 h=a'
      const none = await put(kind, body, 'tsdb', '', {})
      expect(none.status).toBe(401)
      expect(none.json).toMatchObject({ code: 401, message: 'auth needed' })
      expect((await put(kind, body, 'tsdb', '', { Authorization: 'Basic ###' })).status).toBe(401)
      expect((await put(kind, body, 'tsdb', '', { Authorization: `Basic ${Buffer.from('root:bad').toString('base64')}` })).status).toBe(401)
      expect((await put(kind, body, 'tsdb', '', { Authorization: ROOT_AUTH })).status).toBe(204)
    }
  })
})
