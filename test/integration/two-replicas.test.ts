/**
 * Two adapter PROCESSES on one PostgreSQL database, as replicas run in Kubernetes: writes through
 * both, reads through either, the auto-create race of the same database / super table / child
 * table / column from both at once (neither fails nor duplicates), catalog changes seen by the
 * other replica, and a restart of one replica.
 */
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sql, sqlOk, startAdapter, ROOT_AUTH } from './adapter-process.js'
import type { AdapterProcess } from './adapter-process.js'
import { startPostgres } from './pg-container.js'
import type { PgContainer } from './pg-container.js'
import { freshDatabase } from './pg-databases.js'

let pgc: PgContainer | undefined
let url = ''
let a: AdapterProcess | undefined
let b: AdapterProcess | undefined

beforeAll(async () => {
  pgc = await startPostgres()
  url = await freshDatabase(pgc, 'replicas')
  // both start together: their catalog init races too
  ;[a, b] = await Promise.all([startAdapter(url), startAdapter(url)])
})

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()])
  await pgc?.stop()
})

function A(): AdapterProcess {
  return a as AdapterProcess
}
function B(): AdapterProcess {
  return b as AdapterProcess
}

async function pgQuery(text: string): Promise<unknown[][]> {
  const c = new pg.Client({ connectionString: url })
  await c.connect()
  try {
    return (await c.query({ text, rowMode: 'array' })).rows as unknown[][]
  } finally {
    await c.end()
  }
}

/** `n` requests at once, alternating between the replicas; every reply must be 200 / code 0. */
async function raceBoth(n: number, stmt: (i: number) => string): Promise<void> {
  const replies = await Promise.all(
    Array.from({ length: n }, (_, i) => sql((i % 2 === 0 ? A() : B()).base, stmt(i))),
  )
  const failed = replies.filter((r) => r.status !== 200 || r.json?.code !== 0)
  expect(failed.map((r) => r.text)).toEqual([])
}

/** polls `check` on a replica until it passes (catalog changes travel by NOTIFY) */
async function eventually(check: () => Promise<void>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      await check()
      return
    } catch (err) {
      if (Date.now() > deadline) {
        throw err
      }
      await new Promise((r) => setTimeout(r, 100))
    }
  }
}

const T0 = 1_700_000_000_000

describe('two adapter replicas on one PostgreSQL', () => {
  it('both serve the root user created once', async () => {
    expect((await pgQuery(`SELECT count(*) FROM db_adapter_catalog.users WHERE name = 'root'`))[0][0]).toBe('1')
    await sqlOk(A().base, 'SELECT SERVER_VERSION()')
    await sqlOk(B().base, 'SELECT SERVER_VERSION()')
  })

  it('a GRANT through one replica and a REVOKE through the other apply on both', async () => {
    const as = (base: string, stmt: string): Promise<Response> =>
      fetch(`${base}/rest/sql`, { method: 'POST', headers: { Authorization: `Basic ${Buffer.from('gr_u:Pass_1234').toString('base64')}` }, body: stmt })
    const code = async (r: Promise<Response>): Promise<number> => ((await (await r).json()) as { code: number }).code
    await sqlOk(A().base, 'CREATE DATABASE gr_db')
    await sqlOk(A().base, 'CREATE TABLE gr_db.t (ts TIMESTAMP, v INT)')
    await sqlOk(A().base, "CREATE USER gr_u PASS 'Pass_1234'")
    await eventually(async () => {
      expect(await code(as(B().base, 'SELECT count(*) FROM gr_db.t'))).toBe(771)
    })
    await sqlOk(A().base, 'GRANT READ ON gr_db.* TO gr_u')
    expect(await pgQuery(`SELECT usr, db, privilege FROM db_adapter_catalog.privileges WHERE usr = 'gr_u'`)).toEqual([['gr_u', 'gr_db', 'read']])
    for (const r of [A(), B()]) {
      await eventually(async () => {
        expect(await code(as(r.base, 'SELECT count(*) FROM gr_db.t'))).toBe(0)
      })
      expect(await code(as(r.base, `INSERT INTO gr_db.t VALUES (${T0}, 1)`))).toBe(771)
    }
    await sqlOk(B().base, 'REVOKE READ ON gr_db.* FROM gr_u')
    for (const r of [A(), B()]) {
      await eventually(async () => {
        expect(await code(as(r.base, 'SELECT count(*) FROM gr_db.t'))).toBe(771)
      })
    }
  })

  it('concurrent auto-creation of the same database, super table and children neither fails nor duplicates', async () => {
    await raceBoth(20, () => 'CREATE DATABASE IF NOT EXISTS race')
    await raceBoth(20, () => 'CREATE STABLE IF NOT EXISTS race.st (ts TIMESTAMP, v INT) TAGS (loc VARCHAR(16))')
    await raceBoth(20, () => `CREATE TABLE IF NOT EXISTS race.d0 USING race.st TAGS ('zero')`)
    // each request writes its own timestamp into the same auto-created child
    await raceBoth(20, (i) => `INSERT INTO race.d1 USING race.st TAGS ('one') VALUES (${T0 + i}, ${i})`)
    // many children at once, each created by both replicas
    await raceBoth(20, (i) => `INSERT INTO race.c${i % 10} USING race.st TAGS ('c${i % 10}') VALUES (${T0 + i}, ${i})`)

    expect(await pgQuery(`SELECT count(*) FROM db_adapter_catalog.databases WHERE name = 'race'`)).toEqual([['1']])
    expect(await pgQuery(`SELECT count(*) FROM db_adapter_catalog.stables WHERE db = 'race'`)).toEqual([['1']])
    // d0, d1, c0..c9, each once, with distinct tids
    expect(await pgQuery(`SELECT count(*), count(DISTINCT tid) FROM db_adapter_catalog.tables WHERE db = 'race'`)).toEqual([
      ['12', '12'],
    ])
    expect(await pgQuery(`SELECT count(*) FROM td_race."st$tags"`)).toEqual([['12']])
    for (const r of [A(), B()]) {
      await eventually(async () => {
        const tables = await sqlOk(r.base, 'SHOW race.TABLES')
        expect(tables.json.rows).toBe(12)
      })
      const d1 = await sqlOk(r.base, 'SELECT count(*), sum(v) FROM race.d1')
      expect(d1.json.data).toEqual([[20, (19 * 20) / 2]])
      const all = await sqlOk(r.base, 'SELECT count(*) FROM race.st')
      expect(all.json.data).toEqual([[40]])
    }
  })

  it('concurrent schemaless writes adding the same new column from both replicas', async () => {
    await sqlOk(A().base, 'CREATE DATABASE IF NOT EXISTS lp')
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        fetch(`${(i % 2 === 0 ? A() : B()).base}/lineproto/v1/write?db=lp&precision=ms`, {
          method: 'POST',
          headers: { Authorization: ROOT_AUTH },
          // same measurement and child from everyone; field f2 appears in every request
          body: `cpu,host=h1 f1=${i}i,f2=${i * 2}i ${T0 + i}\n`,
        }).then(async (r) => ({ status: r.status, text: await r.text() })),
      ),
    )
    expect(replies.filter((r) => r.status !== 204)).toEqual([])
    expect(await pgQuery(`SELECT count(*) FROM db_adapter_catalog.stables WHERE db = 'lp'`)).toEqual([['1']])
    expect(await pgQuery(`SELECT count(*) FROM db_adapter_catalog.tables WHERE db = 'lp'`)).toEqual([['1']])
    for (const r of [A(), B()]) {
      await eventually(async () => {
        const res = await sqlOk(r.base, 'SELECT count(*), sum(f1), sum(f2) FROM lp.cpu')
        expect(res.json.data).toEqual([[20, 190, 380]])
      })
    }
  })

  it('writes through both, reads through either, changes seen by the other replica', async () => {
    await sqlOk(A().base, 'CREATE DATABASE IF NOT EXISTS w')
    await sqlOk(A().base, 'CREATE STABLE w.m (ts TIMESTAMP, v DOUBLE) TAGS (k INT)')
    // B has not used w.m yet: it finds it (NOTIFY, or a re-read on the miss)
    await sqlOk(B().base, `INSERT INTO w.b1 USING w.m TAGS (2) VALUES (${T0}, 1.5) (${T0 + 1}, 2.5)`)
    await sqlOk(A().base, `INSERT INTO w.a1 USING w.m TAGS (1) VALUES (${T0}, 10) (${T0 + 1}, 20)`)
    // a normal table created on B, written on A at once
    await sqlOk(B().base, 'CREATE TABLE w.n (ts TIMESTAMP, s VARCHAR(8))')
    await sqlOk(A().base, `INSERT INTO w.n VALUES (${T0}, 'x')`)
    for (const r of [A(), B()]) {
      const res = await sqlOk(r.base, 'SELECT tbname, count(*), sum(v) FROM w.m GROUP BY tbname ORDER BY tbname')
      expect(res.json.data).toEqual([
        ['a1', 2, 30],
        ['b1', 2, 4],
      ])
      expect((await sqlOk(r.base, 'SELECT s FROM w.n')).json.data).toEqual([['x']])
    }
    // a column added on A is visible to B's DESCRIBE without any miss
    await sqlOk(A().base, 'ALTER STABLE w.m ADD COLUMN extra INT')
    await eventually(async () => {
      const d = await sqlOk(B().base, 'DESCRIBE w.m')
      expect(d.json.data.map((row: unknown[]) => row[0])).toContain('extra')
    })
    // a drop on B is seen by A
    await sqlOk(B().base, 'DROP TABLE w.n')
    await eventually(async () => {
      const r = await sql(A().base, 'SELECT * FROM w.n')
      expect(r.json?.code).not.toBe(0)
    })
  })

  it('RENAME, COMMENT and ALTER DATABASE through one replica are seen by the other; DELETE through either', async () => {
    await sqlOk(A().base, 'CREATE DATABASE rn')
    await sqlOk(A().base, 'CREATE STABLE rn.m (ts TIMESTAMP, v DOUBLE) TAGS (k INT)')
    await sqlOk(A().base, `INSERT INTO rn.c1 USING rn.m TAGS (1) VALUES (${T0}, 1)`)
    await sqlOk(A().base, 'CREATE TABLE rn.n (ts TIMESTAMP, x INT)')
    await sqlOk(A().base, `INSERT INTO rn.n VALUES (${T0}, 5)`)
    // B has the old names cached
    expect((await sqlOk(B().base, 'SELECT k FROM rn.m')).json.data).toEqual([[1]])
    expect((await sqlOk(B().base, 'SELECT x FROM rn.n')).json.data).toEqual([[5]])
    await sqlOk(A().base, 'ALTER STABLE rn.m RENAME TAG k kk')
    await sqlOk(A().base, 'ALTER TABLE rn.n RENAME COLUMN x y')
    await sqlOk(A().base, "ALTER TABLE rn.n COMMENT 'hello'")
    await sqlOk(A().base, "ALTER DATABASE rn CACHEMODEL 'both' WAL_LEVEL 2")
    await eventually(async () => {
      expect((await sqlOk(B().base, 'SELECT tbname, kk FROM rn.m')).json.data).toEqual([['c1', 1]])
      expect((await sqlOk(B().base, 'SELECT y FROM rn.n')).json.data).toEqual([[5]])
      const t = await sqlOk(B().base, "SELECT table_comment FROM information_schema.ins_tables WHERE db_name = 'rn' AND table_name = 'n'")
      expect(t.json.data).toEqual([['hello']])
      const d = await sqlOk(B().base, "SELECT cachemodel, wal_level FROM information_schema.ins_databases WHERE name = 'rn'")
      expect(d.json.data).toEqual([['both', 2]])
    })
    // B writes under the new tag name; A reads it, deletes through A are seen by B
    await sqlOk(B().base, `INSERT INTO rn.m (tbname, kk, ts, v) VALUES ('c2', 2, ${T0}, 2)`)
    expect((await sqlOk(A().base, 'SELECT tbname, kk, v FROM rn.m ORDER BY kk')).json.data).toEqual([
      ['c1', 1, 1],
      ['c2', 2, 2],
    ])
    expect((await sqlOk(A().base, 'DELETE FROM rn.m WHERE kk = 2')).json.data).toEqual([[1]])
    expect((await sqlOk(B().base, 'SELECT count(*) FROM rn.m')).json.data).toEqual([[1]])
  })

  it('a restarted replica serves everything the other wrote meanwhile', async () => {
    await B().stop()
    await sqlOk(A().base, `INSERT INTO w.a2 USING w.m TAGS (3) (ts, v) VALUES (${T0}, 100)`)
    await sqlOk(A().base, 'CREATE DATABASE after_restart')
    b = await startAdapter(url)
    const res = await sqlOk(B().base, 'SELECT count(*), sum(v) FROM w.m')
    expect(res.json.data).toEqual([[5, 134]])
    expect((await sqlOk(B().base, 'SHOW DATABASES')).json.data.map((r: unknown[]) => r[0])).toContain('after_restart')
    // and it writes again, read back through the other replica
    await sqlOk(B().base, `INSERT INTO w.a2 (ts, v) VALUES (${T0 + 1}, 200)`)
    expect((await sqlOk(A().base, 'SELECT count(*) FROM w.a2')).json.data).toEqual([[2]])
  })
})
