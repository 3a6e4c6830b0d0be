/**
 * POST /lineproto/v1/write against the real server (startAdapter + DuckDB in memory), read back
 * through /rest/sql: values and types, child names, precisions, overwrite, schema evolution,
 * per-line errors, auto-create, ttl, auth codes, body limits, gzip, disabled routes.
 */
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningAdapter } from '../../src/lifecycle.js'
import { ROOT_AUTH, childName, describe as describeTable, post, sql, sqlRows, startIngestServer } from './server.js'

// every case runs on both parse paths: on the main thread, and on a parse worker (parse-worker.ts)
describe.each([0, 1])('lineproto.parseWorkers=%i', (parseWorkers) => {
  let server: RunningAdapter
  let base: string
  const MAX_BODY = 64 * 1024

  function write(body: RequestInit['body'], query = 'db=db', headers: Record<string, string> = { Authorization: ROOT_AUTH }) {
    return post(`${base}/lineproto/v1/write?${query}`, body, headers)
  }

  beforeAll(async () => {
    server = await startIngestServer((c) => {
      c.http.maxBodySize = MAX_BODY
      c.lineproto.parseWorkers = parseWorkers
    })
    base = server.url
    await sql(base, "create database db precision 'ns'")
    await sql(base, "create database dbms precision 'ms'")
  })

  afterAll(async () => {
    await server.stop()
  })

  describe('POST /lineproto/v1/write', () => {
    it('writes typed fields and NCHAR tags into a super table and child t_<md5>; 204 with no body', async () => {
      const body = [
        'weather,location=us-midwest,season=summer temperature=82,humidity=71i,raining=false,note="warm \\"day\\"",code=7u 1465839830100400200',
        'weather,season=summer,location=us-midwest temperature=83.5 1465839830100400300',
      ].join('\n')
      const res = await write(body)
      expect(res.status, res.text).toBe(204)
      expect(res.text).toBe('')
      expect(await describeTable(base, 'db.weather')).toEqual([
        ['_ts', 'TIMESTAMP', 8, ''],
        ['temperature', 'DOUBLE', 8, ''],
        ['humidity', 'BIGINT', 8, ''],
        ['raining', 'BOOL', 1, ''],
        ['note', 'VARCHAR', 16, ''],
        ['code', 'BIGINT UNSIGNED', 8, ''],
        ['location', 'NCHAR', 16, 'TAG'],
        ['season', 'NCHAR', 8, 'TAG'],
      ])
      const child = childName('weather', [
        ['location', 'us-midwest'],
        ['season', 'summer'],
      ])
      expect(await sqlRows(base, 'select tbname, _ts, temperature, humidity, raining, note, code, location, season from db.weather order by _ts')).toEqual([
        [child, '2016-06-13T17:43:50.100400200Z', 82, 71, false, 'warm "day"', 7, 'us-midwest', 'summer'],
        [child, '2016-06-13T17:43:50.100400300Z', 83.5, null, null, null, null, 'us-midwest', 'summer'],
      ])
    })

    it('applies the escaping rules, skips comments and blank lines, accepts CRLF', async () => {
      const body =
        '# a comment line\r\n' +
        '\r\n' +
        'esc\\,aped\\ m,tag\\ key=va\\=l\\,ue field\\=k="a\\\\b" 1\r\n' +
        '   \n'
      const res = await write(body)
      expect(res.status, res.text).toBe(204)
      expect(await sqlRows(base, 'select `tag key`, `field=k` from db.`esc,aped m`')).toEqual([['va=l,ue', 'a\\b']])
      expect(await sqlRows(base, 'select tbname from db.`esc,aped m`')).toEqual([[childName('esc,aped m', [['tag key', 'va=l,ue']])]])
    })

    it('measurement dots become underscores in the super table name', async () => {
      const res = await write('disk.io,host=a reads=1i 1')
      expect(res.status, res.text).toBe(204)
      expect(await sqlRows(base, 'select reads from db.disk_io')).toEqual([[1]])
    })

    it('converts every precision into the database precision', async () => {
      const cases: Array<[string, string, string]> = [
        // precision query value, timestamp sent, expected RFC 3339 in the ns database
        ['h', '474000', '2024-01-28T00:00:00Z'],
        ['m', '28440000', '2024-01-28T00:00:00Z'],
        ['s', '1706400000', '2024-01-28T00:00:00Z'],
        ['ms', '1706400000123', '2024-01-28T00:00:00.123Z'],
        ['u', '1706400000123456', '2024-01-28T00:00:00.123456Z'],
        ['us', '1706400000123457', '2024-01-28T00:00:00.123457Z'],
        ['µ', '1706400000123458', '2024-01-28T00:00:00.123458Z'],
        ['μ', '1706400000123459', '2024-01-28T00:00:00.123459Z'],
        ['n', '1706400000123456789', '2024-01-28T00:00:00.123456789Z'],
        ['ns', '1706400000123456790', '2024-01-28T00:00:00.12345679Z'],
      ]
      for (const [precision, ts, _] of cases) {
        const res = await write(`prec,p=${encodeURIComponent(precision)} v=1 ${ts}`, `db=db&precision=${encodeURIComponent(precision)}`)
        expect(res.status, `${precision}: ${res.text}`).toBe(204)
      }
      // /rest/sql renders ns timestamps as RFC 3339 with nine fraction digits (exact, unlike a JSON number)
      const got = (await sqlRows(base, 'select p, _ts from db.prec')) as Array<[string, string]>
      const byP = new Map(got.map(([p, t]) => [decodeURIComponent(p), t]))
      for (const [precision, , iso] of cases) {
        const frac = iso.match(/\.(\d+)Z$/)?.[1] ?? ''
        const expected = `${iso.replace(/(\.\d+)?Z$/, '')}.${(frac + '000000000').slice(0, 9)}Z`
        expect(byP.get(precision), precision).toBe(expected)
      }
      // into a millisecond database the nanoseconds are cut (floored)
      const ms = await write('prec v=1 1706400000123999999', 'db=dbms&precision=ns')
      expect(ms.status, ms.text).toBe(204)
      expect(await sqlRows(base, 'select cast(_ts as bigint) from dbms.prec')).toEqual([[1706400000123]])
    })

    it('rejects an unknown precision with 400', async () => {
      const res = await write('m v=1 1', 'db=db&precision=d')
      expect(res.status).toBe(400)
      expect(res.json?.desc).toMatch(/precision "d"/)
    })

    it('a second write of the same series and timestamp overwrites the row', async () => {
      expect((await write('ow,h=a v=1,w=10 1000')).status).toBe(204)
      expect((await write('ow,h=a v=2 1000')).status).toBe(204)
      expect(await sqlRows(base, 'select count(*), last(v), last(w) from db.ow')).toEqual([[1, 2, 10]])
      // twice in one request: the later line wins
      expect((await write('ow,h=a v=3 2000\now,h=a v=4 2000')).status).toBe(204)
      expect(await sqlRows(base, 'select v from db.ow where _ts = 2000')).toEqual([[4]])
    })

    it('a new field adds a column and a longer string widens its column', async () => {
      expect((await write('evo,h=a s="abc" 1')).status).toBe(204)
      expect(await describeTable(base, 'db.evo')).toContainEqual(['s', 'VARCHAR', 4, ''])
      expect((await write(`evo,h=a s="${'y'.repeat(100)}",n=5i 2`)).status).toBe(204)
      const d = await describeTable(base, 'db.evo')
      expect(d).toContainEqual(['s', 'VARCHAR', 128, ''])
      expect(d).toContainEqual(['n', 'BIGINT', 8, ''])
      expect(await sqlRows(base, 'select s, n from db.evo order by _ts')).toEqual([
        ['abc', null],
        ['y'.repeat(100), 5],
      ])
    })

    it('a type conflict is a 400 naming line, field and types; the other lines are written', async () => {
      expect((await write('tc,h=a v=1 1')).status).toBe(204)
      const res = await write('tc,h=a v=2 2\ntc,h=a v=3i 3\ntc,h=a v=4 4')
      expect(res.status).toBe(400)
      expect(res.json).toMatchObject({ code: 400, line: 2, rejected: 1, written: 2 })
      expect(String(res.json?.desc)).toMatch(/line 2: field "v" type mismatch: the column in super table "tc" is DOUBLE, this line sent BIGINT/)
      expect(String(res.json?.desc)).toMatch(/the other 2 line\(s\) were written/)
      expect(await sqlRows(base, 'select v from db.tc order by _ts')).toEqual([[1], [2], [4]])
    })

    it('malformed lines: 400 naming the first bad line; good lines are still written', async () => {
      const res = await write('mal,h=a v=1 1\nmal,h=a\nmal,h=a v=3 3\nmal v= 4')
      expect(res.status).toBe(400)
      expect(res.json).toMatchObject({ line: 2, rejected: 2, written: 2 })
      expect(String(res.json?.desc)).toMatch(/lineproto line 2/)
      expect(await sqlRows(base, 'select v from db.mal order by _ts')).toEqual([[1], [3]])
    })

    it('a body parsed in several slices reports the true number of a bad line near its end', async () => {
      // ~60 KB: several worker slices (WORKER_SLICE_CHARS) (and under this suite's 64 KiB body limit)
      const lines = Array.from({ length: 1500 }, (_, i) => `slices,host=h${i % 7} v=${i}i ${1_700_000_000_000_000_000n + BigInt(i)}`)
      lines[1234] = 'slices,host=h1 v='
      const res = await write(lines.join('\r\n'))
      expect(res.status, res.text).toBe(400)
      expect(res.json).toMatchObject({ line: 1235, rejected: 1, written: 1499 })
      expect(await sqlRows(base, 'select count(*), sum(v) from db.slices')).toEqual([[1499, (1499 * 1500) / 2 - 1234]])
    })

    it('an empty body is a 204 no-op', async () => {
      expect((await write('')).status).toBe(204)
    })

    it('missing db parameter: 404 "db required"; unknown database without smlAutoCreateDB: 404 "database does not exist"', async () => {
      const noDb = await write('m v=1 1', '')
      expect(noDb.status).toBe(404)
      expect(noDb.json?.desc).toMatch(/db required/)
      const missing = await write('m v=1 1', 'db=nosuchdb')
      expect(missing.status).toBe(404)
      expect(missing.json?.desc).toMatch(/database does not exist: "nosuchdb"/)
      expect(await sqlRows(base, "select name from information_schema.ins_databases where name = 'nosuchdb'")).toEqual([])
    })

    it('ttl applies to the child tables the write creates; a non-integer ttl is 400', async () => {
      expect((await write('ttlm,h=a v=1 1', 'db=db&ttl=12')).status).toBe(204)
      expect((await write('ttlm,h=a v=1 2', 'db=db&ttl=99')).status).toBe(204)
      expect(await sqlRows(base, `select ttl from information_schema.ins_tables where db_name = 'db' and stable_name = 'ttlm'`)).toEqual([[12]])
      const bad = await write('ttlm,h=a v=1 3', 'db=db&ttl=ten')
      expect(bad.status).toBe(400)
      expect(bad.json?.desc).toMatch(/ttl/)
    })

    it('authentication: none 401, wrong password 401, Basic 204, u/p query 204, u/p override Basic', async () => {
      expect((await write('auth v=1 1', 'db=db', {})).status).toBe(401)
      const wrong = `Basic ${Buffer.from('root:nope').toString('base64')}`
      expect((await write('auth v=1 1', 'db=db', { Authorization: wrong })).status).toBe(401)
      expect((await write('auth v=1 1', 'db=db&u=root&p=nope', {})).status).toBe(401)
      expect((await write('auth v=1 2', 'db=db&u=root&p=taosdata', {})).status).toBe(204)
      expect((await write('auth v=1 3', 'db=db&p=taosdata', { Authorization: wrong })).status).toBe(204)
      expect((await write('auth v=1 4', 'db=db', { Authorization: 'Bearer abc' })).status).toBe(401)
      expect(await sqlRows(base, 'select count(*) from db.auth')).toEqual([[2]])
    })

    it('413 over http.maxBodySize: by Content-Length, by streamed size, and by decompressed gzip size', async () => {
      const big = `big v=1 1\n${'#'.repeat(MAX_BODY)}\n`
      const byLength = await write(big)
      expect(byLength.status).toBe(413)
      expect(byLength.json?.desc).toMatch(/maxBodySize/)
      const bytes = new TextEncoder().encode(big)
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < bytes.length; i += 8192) {
            controller.enqueue(bytes.slice(i, i + 8192))
          }
          controller.close()
        },
      })
      const chunked = await fetch(`${base}/lineproto/v1/write?db=db`, {
        method: 'POST',
        headers: { Authorization: ROOT_AUTH },
        body: stream,
        duplex: 'half',
      } as RequestInit)
      expect(chunked.status).toBe(413)
      const bomb = gzipSync(Buffer.from(big))
      expect(bomb.length).toBeLessThan(MAX_BODY)
      const gz = await write(bomb, 'db=db', { Authorization: ROOT_AUTH, 'Content-Encoding': 'gzip' })
      expect(gz.status).toBe(413)
      expect(await sqlRows(base, "select count(*) from information_schema.ins_stables where stable_name = 'big'")).toEqual([[0]])
    })

    it('reads a body by its Content-Length or streamed in chunks without one, the same bytes either way', async () => {
      const lines = Array.from({ length: 300 }, (_, i) => `sized,h=a v=${i} ${i + 1}`).join('\n')
      expect((await write(lines)).status).toBe(204)
      const bytes = new TextEncoder().encode(lines.replaceAll('sized', 'streamed'))
      const res = await fetch(`${base}/lineproto/v1/write?db=db`, {
        method: 'POST',
        headers: { Authorization: ROOT_AUTH },
        body: new ReadableStream<Uint8Array>({
          start(controller) {
            for (let i = 0; i < bytes.length; i += 1000) {
              controller.enqueue(bytes.slice(i, i + 1000))
            }
            controller.close()
          },
        }),
        duplex: 'half',
      } as RequestInit)
      expect(res.status, await res.text()).toBe(204)
      for (const t of ['sized', 'streamed']) {
        expect(await sqlRows(base, `select count(*), sum(v) from db.${t}`)).toEqual([[300, 44850]])
      }
    })

    it('accepts gzip request bodies', async () => {
      const res = await write(gzipSync(Buffer.from('gz,h=a v=42 1\n')), 'db=db', { Authorization: ROOT_AUTH, 'Content-Encoding': 'gzip' })
      expect(res.status, res.text).toBe(204)
      expect(await sqlRows(base, 'select v from db.gz')).toEqual([[42]])
    })

    it('the all-paused memory gate refuses writes with 503 and Retry-After, on both protocols', async () => {
      server.gate.set('all-paused')
      try {
        const res = await write('paused v=1 1')
        expect(res.status).toBe(503)
        expect(res.headers.get('Retry-After')).toBe('120')
        const tsdb = await post(`${base}/tsdbproto/v1/put/telnet/db`, 'paused 1700000000 1 a=b', { Authorization: ROOT_AUTH })
        expect(tsdb.status).toBe(503)
      } finally {
        server.gate.set('normal')
      }
      // the query-only pause does not stop writes
      server.gate.set('query-paused')
      try {
        expect((await write('paused v=1 1')).status).toBe(204)
      } finally {
        server.gate.set('normal')
      }
    })

    it('many concurrent writes creating one super table and new columns all succeed', async () => {
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) => write(`par,h=h${i} v=${i},c${i % 4}=${i}i ${i + 1}`)),
      )
      expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 12 }, () => 204))
      expect(await sqlRows(base, 'select count(*) from db.par')).toEqual([[12]])
    })

    it('a corrupt gzip body is 400, not 5xx', async () => {
      const res = await write(Buffer.from('not gzip at all'), 'db=db', { Authorization: ROOT_AUTH, 'Content-Encoding': 'gzip' })
      expect(res.status).toBe(400)
    })
  })
})

describe('smlAutoCreateDB', () => {
  it('creates a missing database with precision ns on the first write', async () => {
    const auto = await startIngestServer((c) => {
      c.smlAutoCreateDB = true
    })
    try {
      const res = await post(`${auto.url}/lineproto/v1/write?db=autodb&precision=ms`, 'm,h=a v=1 1706400000123', { Authorization: ROOT_AUTH })
      expect(res.status, res.text).toBe(204)
      expect(await sqlRows(auto.url, "select name, `precision` from information_schema.ins_databases where name = 'autodb'")).toEqual([
        ['autodb', 'ns'],
      ])
      expect(await sqlRows(auto.url, 'select _ts from autodb.m')).toEqual([['2024-01-28T00:00:00.123000000Z']])
    } finally {
      await auto.stop()
    }
  })
})

describe('disabled protocols', () => {
  it('lineproto.enable=false and tsdbproto.enable=false remove the routes (404)', async () => {
    const off = await startIngestServer((c) => {
      c.lineproto.enable = false
      c.tsdbproto.enable = false
    })
    try {
      expect((await post(`${off.url}/lineproto/v1/write?db=db`, 'm v=1 1', { Authorization: ROOT_AUTH })).status).toBe(404)
      expect((await post(`${off.url}/tsdbproto/v1/put/json/db`, '{}', { Authorization: ROOT_AUTH })).status).toBe(404)
      expect((await post(`${off.url}/tsdbproto/v1/put/telnet/db`, 'm 1 1 a=b', { Authorization: ROOT_AUTH })).status).toBe(404)
    } finally {
      await off.stop()
    }
  })
})
