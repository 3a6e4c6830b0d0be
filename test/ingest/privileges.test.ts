/**
 * Every write path applies the users-and-privileges rules before any work (issue 32): line
 * protocol, OpenTSDB JSON and telnet, Prometheus remote write and read through real HTTP, each
 * against each privilege; a refusal is 403 naming user, privilege and database, and nothing is
 * written. smlAutoCreateDB is on, so a missing database needs CREATEDB and its creator owns it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningAdapter } from '../../src/lifecycle.js'
import { decodeReadResponse, encodeReadRequest, encodeWriteRequest } from '../../src/ingest/metricsproto/proto.js'
import { post, sql, sqlRows, startIngestServer } from './server.js'

const PASS = 'Pass_1234'
const auth = (user: string): string => `Basic ${Buffer.from(`${user}:${user === 'root' ? 'taosdata' : PASS}`).toString('base64')}`
const T = 1_700_000_000_000
let adapter: RunningAdapter
let base = ''

beforeAll(async () => {
  adapter = await startIngestServer((c) => {
    c.smlAutoCreateDB = true
  })
  base = adapter.url
  for (const u of ['p_writer', 'p_reader', 'p_none']) {
    await sql(base, `create user ${u} pass '${PASS}'`)
  }
  await sql(base, `create user p_creator pass '${PASS}' createdb 1`)
  await sql(base, "create database pdb precision 'ms'")
  await sql(base, 'grant write on pdb.* to p_writer')
  await sql(base, 'grant read on pdb.* to p_reader')
})

afterAll(async () => {
  await adapter.stop()
})

/** how each path writes one point of measurement `m` (value `v`) into `db` as `user` */
const WRITES: Record<string, (db: string, user: string, m: string, v: number) => Promise<{ status: number; text: string }>> = {
  lineproto: (db, user, m, v) => post(`${base}/lineproto/v1/write?db=${db}&precision=ms`, `${m},host=a v=${v} ${T + v}`, { Authorization: auth(user) }),
  'tsdbproto json': (db, user, m, v) =>
    post(`${base}/tsdbproto/v1/put/json/${db}`, JSON.stringify({ metric: m, timestamp: T + v, value: v, tags: { host: 'a' } }), { Authorization: auth(user) }),
  'tsdbproto telnet': (db, user, m, v) => post(`${base}/tsdbproto/v1/put/telnet/${db}`, `put ${m} ${T + v} ${v} host=a`, { Authorization: auth(user) }),
  'remote write': (db, user, m, v) =>
    post(
      `${base}/metricsproto/v1/remote_write/${db}`,
      encodeWriteRequest({ timeseries: [{ labels: [{ name: '__name__', value: m }], samples: [{ value: v, timestamp: T + v }] }] }),
      { Authorization: auth(user), 'Content-Encoding': 'snappy', 'Content-Type': 'application/x-protobuf' },
    ),
}

/** rows of measurement `m` in `db` (remote write keeps every series in `metrics`: one per test here) */
async function count(path: string, db: string, m: string): Promise<number> {
  if (path === 'remote write') {
    const st = await sqlRows(base, `select count(*) from information_schema.ins_stables where db_name = '${db}' and stable_name = 'metrics'`)
    if (st[0][0] === 0) {
      return 0
    }
    return Number((await sqlRows(base, `select count(*) from ${db}.metrics`))[0]?.[0] ?? 0)
  }
  const st = await sqlRows(base, `select count(*) from information_schema.ins_stables where db_name = '${db}' and stable_name = '${m}'`)
  return st[0][0] === 0 ? 0 : Number((await sqlRows(base, `select count(*) from ${db}.\`${m}\``))[0][0])
}

describe('privileges on every write path', () => {
  for (const [path, write] of Object.entries(WRITES)) {
    const m = `m_${path.replace(/ /g, '_')}`
    it(`${path}: root and WRITE write; READ and no privilege get 403 and write nothing`, async () => {
      for (const [user, allowed] of [['root', true], ['p_writer', true], ['p_reader', false], ['p_none', false], ['p_creator', false]] as const) {
        const before = await count(path, 'pdb', m)
        const res = await write('pdb', user, m, before + 1)
        if (allowed) {
          expect(res.status, `${user}: ${res.text}`).toBe(204)
          expect(await count(path, 'pdb', m)).toBe(before + 1)
        } else {
          expect(res.status, `${user}: ${res.text}`).toBe(403)
          expect(res.text).toContain(`user \\"${user}\\" has no WRITE privilege on database \\"pdb\\"`)
          expect(await count(path, 'pdb', m)).toBe(before)
        }
      }
    })

    it(`${path}: a missing database is created only by a CREATEDB user, who then owns it`, async () => {
      const db = `auto_${path.replace(/ /g, '_')}`
      for (const user of ['p_writer', 'p_none']) {
        const res = await write(db, user, m, 1)
        expect(res.status, `${user}: ${res.text}`).toBe(403)
        expect(res.text).toContain('may not create databases')
      }
      expect((await sqlRows(base, 'show databases')).map((r) => r[0])).not.toContain(db)
      expect((await write(db, 'p_creator', m, 1)).status).toBe(204)
      expect(await count(path, db, m)).toBe(1)
      // the creator owns it: it may drop it, others may not
      const drop = async (user: string): Promise<number> =>
        ((await (await fetch(`${base}/rest/sql`, { method: 'POST', headers: { Authorization: auth(user) }, body: `drop database ${db}` })).json()) as { code: number }).code
      expect(await drop('p_writer')).toBe(771)
      expect(await drop('p_creator')).toBe(0)
    })
  }

  it('remote read needs READ: 200 for READ and root, 403 for WRITE only and none', async () => {
    const m = 'm_remote_read'
    expect((await WRITES['remote write']('pdb', 'root', m, 5)).status).toBe(204)
    const query = encodeReadRequest({ queries: [{ startMs: BigInt(T), endMs: BigInt(T + 1000), matchers: [{ type: 0, name: '__name__', value: m }] }], acceptedResponseTypes: [0] })
    for (const [user, allowed] of [['root', true], ['p_reader', true], ['p_writer', false], ['p_none', false]] as const) {
      const res = await fetch(`${base}/metricsproto/v1/remote_read/pdb`, {
        method: 'POST',
        headers: { Authorization: auth(user), 'Content-Encoding': 'snappy', 'Content-Type': 'application/x-protobuf' },
        body: query,
      })
      if (allowed) {
        expect(res.status).toBe(200)
        const results = decodeReadResponse(Buffer.from(await res.arrayBuffer()))
        expect(results[0].timeseries.map((s) => s.samples.map((x) => x.value))).toEqual([[5]])
      } else {
        expect(res.status).toBe(403)
        expect(await res.text()).toContain(`user \\"${user}\\" has no READ privilege on database \\"pdb\\"`)
      }
    }
  })

  it('a GRANT or REVOKE applies to the next write, without a restart', async () => {
    const m = 'm_regrant'
    expect((await WRITES.lineproto('pdb', 'p_none', m, 1)).status).toBe(403)
    await sql(base, 'grant write on pdb.* to p_none')
    expect((await WRITES.lineproto('pdb', 'p_none', m, 1)).status).toBe(204)
    await sql(base, 'revoke write on pdb.* from p_none')
    expect((await WRITES.lineproto('pdb', 'p_none', m, 2)).status).toBe(403)
    expect(await count('lineproto', 'pdb', m)).toBe(1)
  })
})
