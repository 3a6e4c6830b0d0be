/**
 * The PostgreSQL Engine against a real server (Testcontainers; image from
 * DB_ADAPTER_TEST_PG_IMAGE, see docker-env.sh). The outage tests stop the container, so they
 * run last in this file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { StorageUnavailableError } from '../../src/storage/errors.js'
import { openPostgresEngine, PostgresEngine } from '../../src/storage/postgres/index.js'
import type { CatalogChange } from '../../src/storage/postgres/index.js'
import type { RowBatch } from '../../src/storage/types.js'
import { freePort, startPostgres } from './pg-container.js'
import type { PgContainer } from './pg-container.js'

let pg: PgContainer
const engines: PostgresEngine[] = []

async function open(opts: Parameters<typeof openPostgresEngine>[1] = {}): Promise<PostgresEngine> {
  const e = await openPostgresEngine(pg.url, opts)
  engines.push(e)
  return e
}

beforeAll(async () => {
  pg = await startPostgres()
})

afterAll(async () => {
  for (const e of engines) {
    await e.close()
  }
  await pg?.stop()
})

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

async function until(what: string, fn: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await fn())) {
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`)
    }
    await sleep(100)
  }
}

let seq = 0
/** a fresh schema per test, named like the dialect names TDengine databases */
async function freshDb(e: PostgresEngine): Promise<{ db: string; schema: string; q: (t: string) => string }> {
  const db = `t${process.pid}_${++seq}`
  const d = e.dialect
  const schema = d.schemaName(db)
  await e.exec(`CREATE SCHEMA ${d.quoteIdent(schema)}`)
  return { db, schema, q: (t) => `${d.quoteIdent(schema)}.${d.quoteIdent(t)}` }
}

/** a super-table-shaped data table (_tid, ts, ...) like the catalog creates */
async function meters(e: PostgresEngine, q: (t: string) => string): Promise<void> {
  const d = e.dialect
  const cols = [
    ['ts', d.columnType({ name: 'ts', type: 'TIMESTAMP', length: 8 })],
    ['current', d.columnType({ name: 'current', type: 'FLOAT', length: 4 })],
    ['voltage', d.columnType({ name: 'voltage', type: 'INT', length: 4 })],
    ['note', d.columnType({ name: 'note', type: 'VARCHAR', length: 20 })],
  ]
  await e.exec(
    `CREATE TABLE ${q('meters')} ("_tid" INTEGER NOT NULL, ${cols.map(([n, t]) => `"${n}" ${t}`).join(', ')}, PRIMARY KEY ("_tid", "ts"))`,
  )
}

describe('PostgreSQL engine: values', () => {
  it('round-trips ns ticks beyond 2^53, unsigned ranges and every physical type', async () => {
    const e = await open()
    const { db, q } = await freshDb(e)
    const d = e.dialect
    const defs = [
      { name: 'ts', type: 'TIMESTAMP' },
      { name: 'b', type: 'BOOL' },
      { name: 'i8', type: 'TINYINT' },
      { name: 'u8', type: 'TINYINT UNSIGNED' },
      { name: 'u16', type: 'SMALLINT UNSIGNED' },
      { name: 'i32', type: 'INT' },
      { name: 'u32', type: 'INT UNSIGNED' },
      { name: 'i64', type: 'BIGINT' },
      { name: 'u64', type: 'BIGINT UNSIGNED' },
      { name: 'f', type: 'FLOAT' },
      { name: 'dbl', type: 'DOUBLE' },
      { name: 's', type: 'VARCHAR' },
      { name: 'n', type: 'NCHAR' },
    ] as const
    await e.exec(
      `CREATE TABLE ${q('all_types')} (${defs.map((c) => `${d.quoteIdent(c.name)} ${d.columnType({ ...c, length: 8 })}`).join(', ')}, PRIMARY KEY ("ts"))`,
    )
    // 2^53 + 1 is the first integer a double cannot hold; ns ticks of today are ~1.7e18
    const ts1 = 1_700_000_000_123_456_789n
    const ts2 = 2n ** 53n + 1n
    const u64max = 2n ** 64n - 1n
    const i64min = -(2n ** 63n)
    const text = 'tab\there\nnew line \\ backslash \'q\' "dq" 中文'
    const batch: RowBatch = {
      db,
      table: 'all_types',
      columns: defs.map((c) => c.name),
      rows: [
        [ts1, true, -128, 255, 65535, -2147483648, 4294967295, i64min, u64max, 0.1, 1 / 3, text, '\\N'],
        [ts2, false, 127, 0, 0, 2147483647, 0, 2n ** 63n - 1n, 0n, -1.5, -0, '', null],
        [ts2 + 1n, null, null, null, null, null, null, null, null, null, null, null, null],
      ],
    }
    expect(await e.writeRows([batch])).toBe(3)
    const rows = await e.query(`SELECT * FROM ${q('all_types')} ORDER BY ts`)
    expect(rows).toEqual([
      [ts2, false, 127, 0, 0, 2147483647, 0n, 2n ** 63n - 1n, 0n, -1.5, -0, '', null],
      [ts2 + 1n, null, null, null, null, null, null, null, null, null, null, null, null],
      // REAL comes back as the float32 value, like DuckDB's FLOAT
      [ts1, true, -128, 255, 65535, -2147483648, 4294967295n, i64min, u64max, Math.fround(0.1), 1 / 3, text, '\\N'],
    ])
    // arithmetic on ticks stays exact on the server too
    const [[diff]] = await e.query(`SELECT max(ts) - min(ts) FROM ${q('all_types')}`)
    expect(diff).toBe(ts1 - ts2)
    // aggregates: sum(bigint) is numeric -> bigint when integral, avg -> number
    const [[sum, avg]] = await e.query(`SELECT sum(i32), avg(i32) FROM ${q('all_types')}`)
    expect(sum).toBe(-1n)
    expect(avg).toBe(-0.5)
  })

  it('exposes exact floor division, arg_min/arg_max variants and regex on the dialect', async () => {
    const e = await open()
    const d = e.dialect
    const v = (x: string): string => `CAST(${x} AS BIGINT)`
    // -1_000_000_000_000_000_001 ns floored to 1 s buckets: -1_000_000_001 (not -1_000_000_000)
    const [[f1, f2, f3]] = await e.query(
      `SELECT ${d.floorDiv(v('-1000000000000000001'), v('1000000000'))}, ${d.floorDiv(v('1700000000123456789'), v('1000'))}, ${d.floorDiv(v('-1000'), v('1000'))}`,
    )
    expect([f1, f2, f3]).toEqual([-1_000_000_001n, 1_700_000_000_123_456n, -1n])
    const data = `(VALUES (1, 'a', 10), (2, NULL, 20), (3, 'c', 5), (4, 'd', NULL)) AS t(k, s, w)`
    const [[mn, mx, mxNull, byW]] = await e.query(
      `SELECT ${d.argMin('s', 'k')}, ${d.argMax('s', 'k')}, ${d.argMaxNull('s', 'k')}, ${d.argMax('k', 'w')} FROM ${data}`,
    )
    expect([mn, mx, mxNull, byW]).toEqual(['a', 'd', 'd', 2])
    const [[nullLast]] = await e.query(
      `SELECT ${d.argMaxNull('s', 'k')} FROM (VALUES (1, 'a'), (2, NULL)) AS t(k, s)`,
    )
    expect(nullLast).toBeNull()
    const [[m1, m2, txt, sd]] = await e.query(
      `SELECT ${d.regexMatch(`'meter-42'`, `'r-[0-9]+$'`)}, ${d.regexMatch(`'meter'`, `'^x'`)}, ${d.castText('CAST(12 AS BIGINT)')}, ${d.stddevPop('x')} FROM (VALUES (1.0::float8), (3.0::float8)) AS t(x)`,
    )
    expect([m1, m2, txt, sd]).toEqual([true, false, '12', 1])
  })

  it('shortens identifiers beyond 63 bytes consistently instead of letting PostgreSQL truncate them', async () => {
    const e = await open()
    const { db, q } = await freshDb(e)
    const long1 = `t_${'x'.repeat(100)}_1`
    const long2 = `t_${'x'.repeat(100)}_2`
    for (const t of [long1, long2]) {
      await e.exec(`CREATE TABLE ${q(t)} ("ts" BIGINT PRIMARY KEY, v INTEGER)`)
    }
    await e.writeRows([
      { db, table: long1, columns: ['ts', 'v'], rows: [[1n, 1]] },
      { db, table: long2, columns: ['ts', 'v'], rows: [[1n, 2]] },
    ])
    expect(await e.query(`SELECT v FROM ${q(long1)}`)).toEqual([[1]])
    expect(await e.query(`SELECT v FROM ${q(long2)}`)).toEqual([[2]])
  })

  it('runs the hypertable hook as a no-op where TimescaleDB is absent', async () => {
    const e = await open()
    const { schema, q } = await freshDb(e)
    await meters(e, q)
    const stmts = e.dialect.afterCreateDataTable(schema, 'meters', 'ts', 864_000_000_000n)
    expect(stmts.length).toBe(1)
    for (const s of stmts) {
      await e.exec(s)
    }
    const [[ext]] = await e.query(`SELECT count(*) FROM pg_extension WHERE extname = 'timescaledb'`)
    expect(ext).toBe(0n)
  })
})

describe('PostgreSQL engine: writeRows', () => {
  for (const optimisticCopy of [true, false]) {
    it(`overwrites by key, keeps unnamed columns, last row in a batch wins (optimisticCopy=${optimisticCopy})`, async () => {
      const e = await open({ optimisticCopy })
      const { db, q } = await freshDb(e)
      await meters(e, q)
      const t0 = 1_700_000_000_000n
      const w = (tid: number, columns: string[], rows: unknown[][]): RowBatch => ({ db, table: 'meters', tid, columns, rows })
      expect(
        await e.writeRows([
          w(1, ['ts', 'current', 'voltage', 'note'], [
            [t0, 1.5, 220, 'a'],
            [t0 + 1n, 2.5, 221, 'b'],
          ]),
          w(2, ['ts', 'current', 'voltage', 'note'], [[t0, 9.5, 230, 'other child']]),
        ]),
      ).toBe(3)
      // partial write on an existing key: voltage and note keep their values
      expect(await e.writeRows([w(1, ['ts', 'current'], [[t0, 3.5]])])).toBe(1)
      // duplicates inside one call, across two batches of the same child: the last one wins
      expect(
        await e.writeRows([
          w(1, ['ts', 'voltage'], [
            [t0 + 1n, 1],
            [t0 + 2n, 5],
            [t0 + 1n, 2],
          ]),
          w(1, ['ts', 'voltage'], [[t0 + 1n, 3]]),
        ]),
      ).toBe(4)
      expect(await e.query(`SELECT _tid, ts, current, voltage, note FROM ${q('meters')} ORDER BY _tid, ts`)).toEqual([
        [1, t0, 3.5, 220, 'a'],
        [1, t0 + 1n, 2.5, 3, 'b'],
        [1, t0 + 2n, null, 5, null],
        [2, t0, 9.5, 230, 'other child'],
      ])
      // normal table (key = ts only)
      await e.exec(`CREATE TABLE ${q('plain')} ("ts" BIGINT PRIMARY KEY, v DOUBLE PRECISION, s TEXT)`)
      await e.writeRows([{ db, table: 'plain', columns: ['ts', 'v', 's'], rows: [[t0, 1, 'x'], [t0, 2, 'y']] }])
      await e.writeRows([{ db, table: 'plain', columns: ['ts', 's'], rows: [[t0, 'z']] }])
      expect(await e.query(`SELECT ts, v, s FROM ${q('plain')}`)).toEqual([[t0, 2, 'z']])
    })
  }

  it('commits all batches together or none', async () => {
    const e = await open()
    const { db, q } = await freshDb(e)
    await meters(e, q)
    await expect(
      e.writeRows([
        { db, table: 'meters', tid: 1, columns: ['ts', 'voltage'], rows: [[1n, 1]] },
        // not an integer: COPY fails on the second group
        { db, table: 'meters', tid: 2, columns: ['ts', 'note', 'voltage'], rows: [[1n, 'x', 'not a number']] },
      ]),
    ).rejects.toThrow(/invalid input syntax for type integer/)
    expect(await e.query(`SELECT count(*) FROM ${q('meters')}`)).toEqual([[0n]])
    // an overwrite inside a caller's transaction that then fails is rolled back as well
    await e.writeRows([{ db, table: 'meters', tid: 1, columns: ['ts', 'voltage'], rows: [[1n, 1]] }])
    await expect(
      e.transaction(async (tx) => {
        await tx.writeRows([{ db, table: 'meters', tid: 1, columns: ['ts', 'voltage'], rows: [[1n, 2], [2n, 2]] }])
        expect(await tx.query(`SELECT count(*) FROM ${q('meters')}`)).toEqual([[2n]])
        throw new Error('caller gives up')
      }),
    ).rejects.toThrow('caller gives up')
    expect(await e.query(`SELECT ts, voltage FROM ${q('meters')}`)).toEqual([[1n, 1]])
  })

  it('ingests 50k rows through COPY', async () => {
    const e = await open()
    const { db, q } = await freshDb(e)
    await meters(e, q)
    const batches: RowBatch[] = []
    for (let tid = 1; tid <= 50; tid++) {
      const rows: unknown[][] = []
      for (let i = 0; i < 1000; i++) {
        rows.push([1_700_000_000_000n + BigInt(i), i / 10, i, `n${i}`])
      }
      batches.push({ db, table: 'meters', tid, columns: ['ts', 'current', 'voltage', 'note'], rows })
    }
    expect(await e.writeRows(batches)).toBe(50_000)
    expect(await e.query(`SELECT count(*), count(DISTINCT _tid), sum(voltage) FROM ${q('meters')}`)).toEqual([
      [50_000n, 50n, 50n * ((999n * 1000n) / 2n)],
    ])
  })
})

describe('PostgreSQL engine: queries and transactions', () => {
  it('streams a large result in chunks of the requested size through a cursor', async () => {
    const e = await open({ pool: { maxConnect: 2, maxIdle: 2, idleTimeout: 0 } })
    const sizes: number[] = []
    let next = 1n
    for await (const chunk of e.stream('SELECT g::bigint, repeat(\'x\', 10) FROM generate_series(1, 25000) g', { chunkRows: 1000 })) {
      sizes.push(chunk.length)
      for (const r of chunk) {
        expect(r[0]).toBe(next++)
      }
    }
    expect(sizes).toEqual(Array.from({ length: 25 }, () => 1000))
    // an early break closes the cursor and gives the connection back
    let seen = 0
    for await (const chunk of e.stream('SELECT g FROM generate_series(1, 1000000) g', { chunkRows: 100 })) {
      seen += chunk.length
      if (seen >= 300) {
        break
      }
    }
    expect(seen).toBe(300)
    expect(e.poolStats().total - e.poolStats().idle).toBe(0)
    // and the pool still works with every connection
    expect(await Promise.all([e.query('SELECT 1'), e.query('SELECT 2')])).toEqual([[[1]], [[2]]])
  })

  it('rolls back failed transactions, nests with savepoints, routes engine calls to the transaction', async () => {
    const e = await open()
    const { q } = await freshDb(e)
    await e.exec(`CREATE TABLE ${q('t')} (k INTEGER PRIMARY KEY)`)
    await e.transaction(async (tx) => {
      await tx.exec(`INSERT INTO ${q('t')} VALUES (1)`)
      // the engine itself (not tx) joins the transaction: it sees the uncommitted row
      expect(await e.query(`SELECT count(*) FROM ${q('t')}`)).toEqual([[1n]])
      await expect(
        tx.transaction(async (inner) => {
          await inner.exec(`INSERT INTO ${q('t')} VALUES (2)`)
          await inner.exec(`INSERT INTO ${q('t')} VALUES (1)`) // duplicate key
        }),
      ).rejects.toThrow(/duplicate key/)
      await tx.exec(`INSERT INTO ${q('t')} VALUES (3)`)
    })
    expect(await e.query(`SELECT k FROM ${q('t')} ORDER BY k`)).toEqual([[1], [3]])
    expect(await e.exec(`UPDATE ${q('t')} SET k = k + 10`)).toBe(2)
  })

  it('cancels a running statement when the signal aborts', async () => {
    const e = await open()
    const ac = new AbortController()
    const started = Date.now()
    setTimeout(() => ac.abort(new Error('client went away')), 300)
    await expect(e.query('SELECT pg_sleep(30)', { signal: ac.signal })).rejects.toThrow('client went away')
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(await e.query('SELECT 1')).toEqual([[1]])
  })
})

describe('PostgreSQL engine: pool', () => {
  it('fails with StorageUnavailableError when no connection frees up within the bound, then recovers', async () => {
    const e = await open({ pool: { maxConnect: 1, maxIdle: 1, idleTimeout: 0 }, acquireTimeoutMs: 400 })
    let releaseTx!: () => void
    const held = new Promise<void>((r) => {
      releaseTx = r
    })
    const tx = e.transaction(async (t) => {
      await t.query('SELECT 1')
      await held
    })
    await sleep(100)
    const started = Date.now()
    const err = await e.query('SELECT 1').catch((x: unknown) => x)
    expect(err).toBeInstanceOf(StorageUnavailableError)
    expect((err as Error).message).toMatch(/no connection within 400 ms \(1 of pool\.maxConnect=1 in use/)
    expect(Date.now() - started).toBeGreaterThanOrEqual(350)
    expect(Date.now() - started).toBeLessThan(3_000)
    // health is about the server, not the pool: still true while the pool is exhausted
    expect(await e.healthy()).toBe(true)
    releaseTx()
    await tx
    expect(await e.query('SELECT 1')).toEqual([[1]])
  })

  it('shares a given memory limit out as work_mem over the pool, and leaves the server\'s without one', async () => {
    const limited = await open({ pool: { maxConnect: 8, maxIdle: 8, idleTimeout: 0 }, memoryLimitBytes: 64 * 2 ** 20 })
    // 64 MiB over 8 connections: 8 MiB each, in every connection the pool makes
    const seen = await Promise.all(Array.from({ length: 3 }, () => limited.transaction(async (t) => {
      const [[v]] = await t.query('SHOW work_mem')
      await sleep(50)
      return v
    })))
    expect(seen).toEqual(['8MB', '8MB', '8MB'])
    const plain = await open({ pool: { maxConnect: 2, maxIdle: 2, idleTimeout: 0 } })
    expect(await plain.query('SHOW work_mem')).toEqual([['4MB']])
    // an options parameter in the URL is the user's and wins
    const e = await openPostgresEngine(`${pg.url}${pg.url.includes('?') ? '&' : '?'}options=${encodeURIComponent('-c work_mem=2MB')}`, { memoryLimitBytes: 64 * 2 ** 20 })
    engines.push(e)
    expect(await e.query('SHOW work_mem')).toEqual([['2MB']])
  })

  it('keeps at most pool.maxIdle idle connections and closes them after pool.idleTimeout', async () => {
    const e = await open({ pool: { maxConnect: 4, maxIdle: 1, idleTimeout: 500 } })
    await Promise.all([1, 2, 3, 4].map(() => e.query('SELECT pg_sleep(0.3)')))
    expect(e.poolStats().idle).toBe(1)
    await until('idle timeout', () => e.poolStats().total === 0, 5_000)
    const busy = await open({ pool: { maxConnect: 3, maxIdle: 0, idleTimeout: 0 } })
    await Promise.all([1, 2, 3].map(() => busy.query('SELECT pg_sleep(0.3)')))
    // maxIdle 0 = no separate limit: all three stay, and no idle timeout closes them
    await sleep(700)
    expect(busy.poolStats()).toEqual({ total: 3, idle: 3, waiting: 0 })
    // pool.maxConnect is a hard cap on server connections
    const [[n]] = await e.query(
      `SELECT count(*) FROM pg_stat_activity WHERE application_name = 'db-adapter-capped'`,
    )
    expect(n).toBe(0n)
    const capped = await open({ pool: { maxConnect: 2, maxIdle: 2, idleTimeout: 0 }, applicationName: 'db-adapter-capped' })
    let peak = 0n
    await Promise.all(
      Array.from({ length: 6 }, async () => {
        const [[c]] = await capped.query(
          `SELECT count(*) FROM pg_stat_activity WHERE application_name = 'db-adapter-capped' AND pg_sleep(0.1) IS NOT NULL`,
        )
        peak = (c as bigint) > peak ? (c as bigint) : peak
      }),
    )
    expect(peak).toBe(2n)
  })
})

describe('PostgreSQL engine: replicas', () => {
  it('delivers catalog NOTIFYs to other engines at commit, not on rollback', async () => {
    const a = await open()
    const b = await open()
    const seen: CatalogChange[] = []
    a.onCatalogChange((ev) => seen.push(ev))
    await until('LISTEN', () => seen.some((x) => x.resync))
    await b.notifyCatalogChange('db1')
    await expect(
      b.transaction(async () => {
        await b.notifyCatalogChange('rolled back')
        throw new Error('abort')
      }),
    ).rejects.toThrow('abort')
    await b.transaction(async () => {
      await b.notifyCatalogChange('db2')
    })
    await a.notifyCatalogChange('mine')
    await until('notifications', () => seen.filter((x) => !x.resync).length >= 3)
    await sleep(200)
    expect(seen.filter((x) => !x.resync)).toEqual([
      { payload: 'db1', fromSelf: false, resync: false },
      { payload: 'db2', fromSelf: false, resync: false },
      { payload: 'mine', fromSelf: true, resync: false },
    ])
  })

  it('serialises critical sections across engines with advisory locks', async () => {
    const a = await open()
    const b = await open()
    const log: string[] = []
    const section = (who: string) => async (): Promise<void> => {
      log.push(`${who}+`)
      await sleep(300)
      log.push(`${who}-`)
    }
    await Promise.all([
      a.withAdvisoryLock('catalog', section('a')),
      b.withAdvisoryLock('catalog', section('b')),
      // another key does not wait
      b.withAdvisoryLock('other', async () => {
        log.push('o')
      }),
    ])
    // the two sections on one key never overlap, in whichever order they got the lock
    expect(['a+ a- b+ b-', 'b+ b- a+ a-']).toContain(log.filter((x) => x !== 'o').join(' '))
    // the other key ran while the first section still held its lock
    expect(log.indexOf('o')).toBeLessThan(log.findIndex((x) => x.endsWith('-')))
  })
})

describe('PostgreSQL engine: outages', () => {
  it('opens while the server is unreachable, reports 503-style errors, and is unhealthy', async () => {
    const port = await freePort()
    const e = await open({ acquireTimeoutMs: 1_000 })
    expect(await e.healthy()).toBe(true)
    const down = await openPostgresEngine(`postgres://nobody:pw@127.0.0.1:${port}/nothing`, { acquireTimeoutMs: 1_000 })
    engines.push(down)
    expect(await down.healthy()).toBe(false)
    const err = await down.query('SELECT 1').catch((x: unknown) => x)
    expect(err).toBeInstanceOf(StorageUnavailableError)
    expect((err as Error).message).toContain(`127.0.0.1:${port}/nothing`)
    expect((err as Error).message).not.toContain('pw')
    await expect(down.writeRows([{ db: 'x', table: 'y', columns: ['ts'], rows: [[1n]] }])).rejects.toBeInstanceOf(
      StorageUnavailableError,
    )
  })

  it('goes unhealthy when the server stops, recovers by itself, keeps committed rows, resyncs listeners', async () => {
    const e = await open({ acquireTimeoutMs: 1_000, healthTimeoutMs: 1_500 })
    const { db, q } = await freshDb(e)
    await meters(e, q)
    await e.writeRows([{ db, table: 'meters', tid: 1, columns: ['ts', 'voltage'], rows: [[1n, 1], [2n, 2]] }])
    const events: CatalogChange[] = []
    e.onCatalogChange((ev) => events.push(ev))
    await until('LISTEN', () => events.some((x) => x.resync))
    // warm idle connections that the restart will kill
    await Promise.all([e.query('SELECT 1'), e.query('SELECT 2')])

    await pg.pause()
    const t0 = Date.now()
    expect(await e.healthy()).toBe(false)
    expect(Date.now() - t0).toBeLessThan(3_000)
    const err = await e.writeRows([{ db, table: 'meters', tid: 1, columns: ['ts', 'voltage'], rows: [[3n, 3]] }]).catch((x: unknown) => x)
    expect(err).toBeInstanceOf(StorageUnavailableError)
    await expect(e.query('SELECT 1')).rejects.toBeInstanceOf(StorageUnavailableError)
    const resyncsBefore = events.filter((x) => x.resync).length

    await pg.resume()
    await until('healthy again', () => e.healthy(), 30_000)
    expect(await e.query(`SELECT ts, voltage FROM ${q('meters')} ORDER BY ts`)).toEqual([
      [1n, 1],
      [2n, 2],
    ])
    expect(await e.writeRows([{ db, table: 'meters', tid: 1, columns: ['ts', 'voltage'], rows: [[3n, 3]] }])).toBe(1)
    expect(await e.query(`SELECT count(*) FROM ${q('meters')}`)).toEqual([[3n]])
    // the LISTEN connection came back and told us to re-read the catalog
    await until('listener resync', () => events.filter((x) => x.resync).length > resyncsBefore, 30_000)
  })
})
