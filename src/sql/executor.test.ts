import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openStorage } from './catalog/open.js'
import type { Storage } from './catalog/types.js'
import { createSqlExecutor } from './executor.js'
import type { SqlContext, SqlExecutor, SqlResult } from './result.js'

// a fixed clock: 2026-01-01T00:00:00Z
const NOW_MS = Date.UTC(2026, 0, 1)
const ROOT: SqlContext = { user: 'root' }

let storage: Storage
let sql: SqlExecutor

beforeEach(async () => {
  storage = await openStorage('duckdb::memory:', { rootPassword: 'taosdata' })
  sql = createSqlExecutor(storage, { now: () => NOW_MS })
})

afterEach(async () => {
  await storage.close()
})

async function rows(r: SqlResult): Promise<unknown[][]> {
  if (r.kind !== 'rows') {
    throw new Error('not a result set')
  }
  const out: unknown[][] = []
  for await (const chunk of r.rows) {
    out.push(...chunk)
  }
  return out
}

async function query(text: string, ctx: SqlContext = ROOT): Promise<unknown[][]> {
  return rows(await sql.execute(text, ctx))
}

async function exec(text: string, ctx: SqlContext = ROOT): Promise<number> {
  const r = await sql.execute(text, ctx)
  if (r.kind !== 'exec') {
    throw new Error('not an exec result')
  }
  return r.affectedRows
}

async function failure(text: string, ctx: SqlContext = ROOT): Promise<{ code: number; desc: string }> {
  try {
    await sql.execute(text, ctx)
  } catch (e) {
    const err = e as { code?: number; desc?: string }
    return { code: err.code ?? -1, desc: err.desc ?? String(e) }
  }
  throw new Error(`expected ${text} to fail`)
}

async function power(): Promise<void> {
  await exec('CREATE DATABASE power PRECISION "ms" KEEP 3650 DURATION 10 VGROUPS 2')
  await exec('CREATE STABLE power.meters (ts TIMESTAMP, current FLOAT, voltage INT, phase FLOAT) TAGS (location VARCHAR(24), groupid INT)')
}

function phys(db: string, table: string): string {
  const d = storage.engine.dialect
  return `${d.quoteIdent(d.schemaName(db))}.${d.quoteIdent(table)}`
}

/** rows of a child table straight from storage, ordered by ts */
async function childRows(db: string, child: string, cols: string): Promise<unknown[][]> {
  const t = storage.catalog.getTable(db, child)
  if (t === undefined || t.stable === undefined) {
    throw new Error(`no child ${child}`)
  }
  return storage.engine.query(`SELECT ${cols} FROM ${phys(db, t.stable)} WHERE _tid = ${t.tid} ORDER BY ts`)
}

describe('databases', () => {
  it('creates, lists, uses and drops databases with TDengine errors', async () => {
    expect(await exec("CREATE DATABASE power PRECISION 'us' KEEP 365 DURATION 10 VGROUPS 4 CACHEMODEL 'last_row'")).toBe(0)
    expect(await failure('create database power')).toEqual({ code: 897, desc: 'Database already exists' })
    expect(await exec('create database if not exists power')).toBe(0)
    const dbs = await query('show databases')
    expect(dbs.map((r) => r[0])).toEqual(['information_schema', 'performance_schema', 'power'])
    const power = dbs[2]
    // name, create_time, vgroups, ntables, replica, strict, duration, keep ... precision at index 14
    expect(power.slice(2, 8)).toEqual([4, 0n, 1, 'off', '10d', '365d,365d,365d'])
    expect(power[14]).toBe('us')
    expect(power[15]).toBe('ready')
    expect(power[18]).toBe('last_row')
    expect(await exec('use power')).toBe(0)
    expect(await exec('use information_schema')).toBe(0)
    expect((await query('describe information_schema.ins_databases')).slice(0, 2)).toEqual([
      ['name', 'VARCHAR', 64, ''],
      ['create_time', 'TIMESTAMP', 8, ''],
    ])
    expect(await failure('use nope')).toEqual({ code: 904, desc: 'Database not exist' })
    expect(await failure('drop database nope')).toEqual({ code: 904, desc: 'Database not exist' })
    expect(await exec('drop database if exists nope')).toBe(0)
    expect(await exec('flush database power')).toBe(0)
    expect(await exec('drop database power')).toBe(0)
    expect((await query('show databases')).length).toBe(2)
  })

  it('reports SHOW CREATE DATABASE with every option', async () => {
    await exec('create database db vgroups 3')
    const [[name, text]] = await query('show create database db')
    expect(name).toBe('db')
    expect(text).toContain("CREATE DATABASE `db` BUFFER 256 CACHESIZE 1 CACHEMODEL 'none' COMP 2 DURATION 10d")
    expect(text).toContain("KEEP 3650d,3650d,3650d PAGES 256 PAGESIZE 4 PRECISION 'ms' REPLICA 1 WAL_LEVEL 1 VGROUPS 3")
  })
})

describe('super tables and tables', () => {
  it('enforces the schema rules', async () => {
    await exec('create database db')
    expect(await failure('create stable db.s (v int, ts timestamp) tags (t int)')).toEqual({ code: 9793, desc: 'First column must be timestamp' })
    expect(await failure('create stable db.s (ts timestamp, j json) tags (t int)')).toEqual({ code: 9810, desc: 'Only tag can be json type' })
    expect(await failure('create stable db.s (ts timestamp, v int) tags (v int)')).toEqual({ code: 9788, desc: 'Duplicated column names' })
    expect((await failure('create stable db.s (ts timestamp, v varchar(0)) tags (t int)')).code).toBe(9794)
    expect((await failure('create stable db.s (ts timestamp, v varchar(70000)) tags (t int)')).code).toBe(9794)
    expect((await failure('create stable db.s (ts timestamp, v int) tags (j json, t int)')).code).toBe(9779)
    expect(await exec('create stable db.s (ts timestamp, v int) tags (t int)')).toBe(0)
    expect(await failure('create stable db.s (ts timestamp, v int) tags (t int)')).toEqual({ code: 864, desc: 'STable already exists' })
    expect(await exec('create stable if not exists db.s (ts timestamp, v int) tags (t int)')).toBe(0)
    expect(await failure('drop stable db.nope')).toEqual({ code: 866, desc: 'STable not exist' })
    expect(await failure(`create stable db.${'x'.repeat(193)} (ts timestamp, v int) tags (t int)`)).toEqual({ code: 9751, desc: `Invalid identifier name: ${'x'.repeat(193)}` })
    expect(await failure('create stable db.`a.b` (ts timestamp, v int) tags (t int)')).toEqual({ code: 9751, desc: 'Invalid identifier name: a.b' })
    expect(await failure(`create stable db.s2 (ts timestamp, ${'c'.repeat(65)} int) tags (t int)`)).toMatchObject({ code: 9751 })
    expect(await failure('create stable nodb.s (ts timestamp, v int) tags (t int)')).toEqual({ code: 904, desc: 'Database not exist' })
  })

  it('creates children and normal tables, resolves names against the URL database only', async () => {
    await power()
    expect(await exec("create table d1 using meters tags ('CA', 1) d2 using meters (groupid) tags (2)", { user: 'root', defaultDb: 'power' })).toBe(0)
    expect(await failure("create table d3 using meters tags ('CA', 1)")).toEqual({ code: 9750, desc: 'Database not specified' })
    expect(await failure("create table power.d1 using power.meters tags ('CA', 1)")).toEqual({ code: 1539, desc: 'Table already exists' })
    // an unprefixed super table does not borrow the child's database (spec: URL db only)
    expect(await failure("create table power.d9 using meters tags ('CA', 1)")).toEqual({ code: 9750, desc: 'Database not specified' })
    expect(await failure("insert into power.d9 using meters tags ('CA', 1) values (now, 1, 1, 1)")).toEqual({ code: 9750, desc: 'Database not specified' })
    expect(await failure("create table power.d9 using power.nope tags ('CA', 1)")).toEqual({ code: 9731, desc: 'Table does not exist: nope' })
    expect(await failure("create table power.d9 using power.meters tags ('CA')")).toEqual({ code: 9741, desc: 'Tags number not matched' })
    expect(await failure('create table power.d9 using power.meters (nope) tags (1)')).toEqual({ code: 9742, desc: 'Invalid tag name: nope' })
    expect(await exec('create table power.t (ts timestamp, v double, s nchar(4))')).toBe(0)
    expect(await query('show power.tables')).toEqual([['d1'], ['d2'], ['t']])
    expect(await query("show tables like 'd%'", { user: 'root', defaultDb: 'power' })).toEqual([['d1'], ['d2']])
    expect(await query('show normal power.tables')).toEqual([['t']])
    expect(await query('show power.stables')).toEqual([['meters']])
    expect(await failure('show tables')).toEqual({ code: 9728, desc: 'database not specified' })
    expect(await failure('show stables')).toEqual({ code: 9728, desc: 'database not specified' })
    expect(await query('show tags from d2 from power')).toEqual([
      ['d2', 'power', 'meters', 'location', 'VARCHAR(24)', null],
      ['d2', 'power', 'meters', 'groupid', 'INT', '2'],
    ])
    expect(await query('show table tags from power.meters')).toEqual([
      ['d1', 'CA', 1],
      ['d2', null, 2],
    ])
    expect(await query('show create table power.d1')).toEqual([['d1', 'CREATE TABLE `d1` USING `meters` (`location`, `groupid`) TAGS ("CA", 1)']])
    expect(await query('show create stable power.meters')).toEqual([
      ['meters', 'CREATE STABLE `meters` (`ts` TIMESTAMP, `current` FLOAT, `voltage` INT, `phase` FLOAT) TAGS (`location` VARCHAR(24), `groupid` INT)'],
    ])
    expect(await failure('drop table power.nope')).toEqual({ code: 9731, desc: 'Table does not exist: nope' })
    expect(await exec('drop table if exists power.nope, power.d2')).toBe(0)
    expect(await query('show power.tables')).toEqual([['d1'], ['t']])
    expect(await failure('describe power.nope')).toEqual({ code: 9731, desc: 'Table does not exist: nope' })
    expect(await query('describe power.t')).toEqual([
      ['ts', 'TIMESTAMP', 8, ''],
      ['v', 'DOUBLE', 8, ''],
      ['s', 'NCHAR', 4, ''],
    ])
  })

  it('alters super tables, normal tables and child tags', async () => {
    await power()
    await exec("create table power.d1 using power.meters tags ('CA', 1)")
    await exec('alter stable power.meters add column note varchar(8)')
    await exec('alter stable power.meters add tag zone nchar(4)')
    await exec('alter stable power.meters modify tag location varchar(64)')
    expect(await failure('alter stable power.meters modify column voltage bigint')).toMatchObject({ code: 9803 })
    await exec("alter table power.d1 set tag location = 'NY', zone = 'E'")
    expect(await query('describe power.meters')).toEqual([
      ['ts', 'TIMESTAMP', 8, ''],
      ['current', 'FLOAT', 4, ''],
      ['voltage', 'INT', 4, ''],
      ['phase', 'FLOAT', 4, ''],
      ['note', 'VARCHAR', 8, ''],
      ['location', 'VARCHAR', 64, 'TAG'],
      ['groupid', 'INT', 4, 'TAG'],
      ['zone', 'NCHAR', 4, 'TAG'],
    ])
    expect(await query('show table tags from power.meters')).toEqual([['d1', 'NY', 1, 'E']])
    expect(await failure("alter table power.d1 set tag nope = 'x'")).toEqual({ code: 9742, desc: 'Invalid tag name: nope' })
    await exec('alter stable power.meters drop column note')
    expect((await query('describe power.meters')).map((r) => r[0])).not.toContain('note')
    await exec('create table power.t (ts timestamp, v int)')
    await exec('alter table power.t add column w varchar(3)')
    await exec('alter table power.t modify column w varchar(10)')
    expect(await query('describe power.t')).toEqual([
      ['ts', 'TIMESTAMP', 8, ''],
      ['v', 'INT', 4, ''],
      ['w', 'VARCHAR', 10, ''],
    ])
  })
})

describe('INSERT', () => {
  it('writes multi-row, multi-table inserts with auto-create and NOW arithmetic', async () => {
    await power()
    const n = await exec(
      "INSERT INTO power.d1001 USING power.meters TAGS ('CA', 2) VALUES (NOW, 10.5, 219, 0.31) (NOW - 5m, 11, 220, 0.32) " +
        "power.d1002 USING power.meters (groupid) TAGS (3) (ts, current) VALUES (NOW() + 1s, 1.5) ('2025-12-31 23:00:00.123', 2.5) (1767222000000, 3.5)",
    )
    expect(n).toBe(5)
    expect(await childRows('power', 'd1001', 'ts, current, voltage')).toEqual([
      [BigInt(NOW_MS - 300_000), 11, 220],
      [BigInt(NOW_MS), 10.5, 219],
    ])
    // 1767222000000 = 2025-12-31T23:00:00Z; the string adds 123 ms
    expect(await childRows('power', 'd1002', 'ts, current, voltage')).toEqual([
      [1_767_222_000_000n, 3.5, null],
      [1_767_222_000_123n, 2.5, null],
      [BigInt(NOW_MS + 1000), 1.5, null],
    ])
    expect(await query('show tags from power.d1002')).toContainEqual(['d1002', 'power', 'meters', 'groupid', 'INT', '3'])
  })

  it('overwrites the same timestamp and keeps columns not named', async () => {
    await power()
    await exec("insert into power.d1 using power.meters tags ('CA', 1) values (1767222000000, 1.5, 200, 0.5)")
    expect(await exec('insert into power.d1 (ts, voltage) values (1767222000000, 201)')).toBe(1)
    expect(await exec('insert into power.d1 values (1767222000000, 2.5, 202, null) (1767222000000, 3.5, 203, null)')).toBe(2)
    expect(await childRows('power', 'd1', 'ts, current, voltage, phase')).toEqual([[1_767_222_000_000n, 3.5, 203, null]])
  })

  it('reads epoch integers and strings in the database precision (ns exact)', async () => {
    await exec("create database n precision 'ns'")
    await exec('create table n.t (ts timestamp, v bigint, u bigint unsigned, b bool, s varchar(4))')
    await exec(
      "insert into n.t values ('2025-12-31T23:59:59.123456789Z', 9223372036854775807, 18446744073709551615, 'true', 'ab') (1767225599000000001, -9223372036854775808, 0, 0, '')",
    )
    expect(await storage.engine.query(`SELECT ts, v, u, b, s FROM ${phys('n', 't')} ORDER BY ts`)).toEqual([
      [1_767_225_599_000_000_001n, -9223372036854775808n, 0n, false, ''],
      [1_767_225_599_123_456_789n, 9223372036854775807n, 18446744073709551615n, true, 'ab'],
    ])
  })

  it('writes through the supertable syntax, creating children from the first row', async () => {
    await power()
    const n = await exec(
      "INSERT INTO power.meters(tbname, location, groupId, ts, current) VALUES ('d31001','CA',2,'2025-12-31 00:00:00.000',10.2) ('d31002','NY',3,'2025-12-31 00:00:00.000',1) ('d31001','XX',9,'2025-12-31 00:00:01.000',10.3)",
    )
    expect(n).toBe(3)
    expect(await query('show table tags from power.meters')).toEqual([
      ['d31001', 'CA', 2],
      ['d31002', 'NY', 3],
    ])
    expect(await childRows('power', 'd31001', 'current')).toEqual([[10.2], [10.3]].map(([v]) => [expect.closeTo(v, 5)]))
    expect(await failure("insert into power.meters (ts, current) values (now, 1)")).toEqual({ code: 9853, desc: 'Pseudo tag tbname not set' })
  })

  it('rejects bad values with the insert-parser texts and writes nothing', async () => {
    await exec('create database db')
    await exec('create table db.t (ts timestamp, ti tinyint, b bool, s varchar(3), n nchar(2), f float, u int unsigned)')
    expect(await failure('insert into db.t (ts, ti) values (now, 300)')).toEqual({ code: 534, desc: "syntax error near '300)' (tinyint data overflow)" })
    expect(await failure('insert into db.t (ts, ti) values (now, -129)')).toEqual({ code: 534, desc: "syntax error near '-129)' (tinyint data overflow)" })
    expect(await failure("insert into db.t (ts, b) values (now, 'maybe')")).toEqual({ code: 534, desc: "syntax error near ''maybe')' (invalid bool data)" })
    expect(await failure("insert into db.t (ts) values ('2021-13-45 00:00:00')")).toEqual({ code: 534, desc: "syntax error near ''2021-13-45 00:00:00')' (invalid timestamp)" })
    expect(await failure('insert into db.t (ts, u) values (now, -1)')).toEqual({ code: 534, desc: "syntax error near '-1)' (unsigned int data overflow)" })
    expect(await failure('insert into db.t (ts, f) values (now, 1e39)')).toEqual({ code: 534, desc: "syntax error near '1e39)' (float data overflow)" })
    expect(await failure("insert into db.t (ts, s) values (now, 'abcd')")).toEqual({ code: 9811, desc: 'Value too long for column/tag: s' })
    expect(await failure("insert into db.t (ts, s) values (now, 'éé')")).toEqual({ code: 9811, desc: 'Value too long for column/tag: s' })
    expect(await exec("insert into db.t (ts, n) values (now, 'éé')")).toBe(1)
    expect(await failure("insert into db.t (ts, n) values (now, 'abc')")).toEqual({ code: 9811, desc: 'Value too long for column/tag: n' })
    expect(await failure('insert into db.t (ts, nope) values (now, 1)')).toEqual({ code: 9730, desc: 'Invalid column name: nope' })
    expect(await failure('insert into db.t (ts, ti) values (now, 1, 2)')).toMatchObject({ code: 534 })
    expect(await failure('insert into db.t (ts, ti) values (null, 1)')).toMatchObject({ code: 534 })
    expect(await failure('insert into db.nope values (now, 1)')).toEqual({ code: 9731, desc: 'Table does not exist: nope' })
    expect(await failure('insert into t values (now, 1)')).toEqual({ code: 9750, desc: 'Database not specified' })
    expect(await failure('insert into nodb.t values (now, 1)')).toEqual({ code: 904, desc: 'Database not exist' })
    // a failing value in a later row aborts the whole statement
    expect(await failure('insert into db.t (ts, ti) values (now, 1) (now + 1s, 1000)')).toMatchObject({ code: 534 })
    expect(await storage.engine.query(`SELECT count(*) FROM ${phys('db', 't')}`)).toEqual([[1n]])
  })

  it('rejects timestamps outside KEEP and beyond the precision limit with 1547', async () => {
    await exec('create database db keep 10')
    await exec('create table db.t (ts timestamp, v int)')
    const out = { code: 1547, desc: 'Timestamp data out of range' }
    // 11 days before the fixed NOW is older than KEEP 10 (days)
    expect(await failure('insert into db.t values (now - 11d, 1)')).toEqual(out)
    expect(await exec('insert into db.t values (now - 9d, 1)')).toBe(1)
    expect(await failure("insert into db.t values ('2970-01-01 00:00:00', 1)")).toEqual(out)
    expect(await exec("insert into db.t values ('2969-12-31 23:59:59.999', 1)")).toBe(1)
    expect(await failure('insert into db.t values (0, 1)')).toEqual(out)
  })

  it('converts tag values and checks their lengths', async () => {
    await exec('create database db')
    await exec('create stable db.s (ts timestamp, v int) tags (name varchar(3), g tinyint)')
    await exec('create stable db.js (ts timestamp, v int) tags (j json)')
    expect(await failure("insert into db.c1 using db.s tags ('abcd', 1) values (now, 1)")).toEqual({ code: 9811, desc: 'Value too long for column/tag: name' })
    expect(await failure("insert into db.c1 using db.s tags ('ab', 128) values (now, 1)")).toEqual({ code: 534, desc: "syntax error near '128) values (now, 1)' (tinyint data overflow)" })
    expect(await exec("insert into db.c1 using db.s tags ('ab', -1) values (now, 1)")).toBe(1)
    expect(await exec(`insert into db.j1 using db.js tags ('{"k":"v","n":1}') values (now, 1)`)).toBe(1)
    expect(await query('show table tags from db.s')).toEqual([['c1', 'ab', -1]])
    expect(await query('show table tags from db.js')).toEqual([['j1', { k: 'v', n: 1 }]])
    expect(await failure(`insert into db.j2 using db.js tags ('[1]') values (now, 1)`)).toEqual({ code: 534, desc: "syntax error near ''[1]') values (now, 1)' (invalid json data)" })
  })
})

describe('users', () => {
  it('creates, alters and drops users; only super users manage them', async () => {
    expect(await exec("create user u1 pass 'Secret_1' sysinfo 0")).toBe(0)
    expect(await failure("create user u1 pass 'x'")).toEqual({ code: 848, desc: 'User already exists' })
    const users = await query('show users')
    expect(users.map((r) => r.slice(0, 5))).toEqual([
      ['root', 1, 1, 1, 1],
      ['u1', 0, 1, 0, 0],
    ])
    expect(await storage.catalog.verifyUser('u1', 'Secret_1')).toBe(true)
    const u1: SqlContext = { user: 'u1' }
    expect(await failure("create user u2 pass 'x'", u1)).toEqual({ code: 771, desc: 'Insufficient privilege for operation' })
    expect(await failure('drop user root', u1)).toEqual({ code: 771, desc: 'Insufficient privilege for operation' })
    expect(await exec("alter user u1 pass 'Other_22'", u1)).toBe(0)
    expect(await storage.catalog.verifyUser('u1', 'Other_22')).toBe(true)
    expect(await failure('alter user u1 enable 0', u1)).toEqual({ code: 771, desc: 'Insufficient privilege for operation' })
    expect(await exec('alter user u1 enable 0')).toBe(0)
    expect(await storage.catalog.verifyUser('u1', 'Other_22')).toBe(false)
    expect(await failure('drop user nope')).toEqual({ code: 849, desc: 'Invalid user' })
    expect(await exec('drop user u1')).toBe(0)
    expect((await query('show users')).map((r) => r[0])).toEqual(['root'])
  })
})

describe('information_schema', () => {
  it('reports vgroups by the MurmurHash3 assignment', async () => {
    await exec('create database power')
    await exec('create stable power.meters (ts timestamp, v int) tags (g int)')
    await exec('create table power.d1001 using power.meters tags (1) power.d1002 using power.meters tags (2)')
    // sql-dialect.md 10: the first database owns vgroups 2 and 3; d1001 -> 3, d1002 -> 2
    const tables = await query('show power.vgroups')
    expect(tables.map((r) => r.slice(0, 5))).toEqual([
      [2, 'power', 1, 1, 'leader'],
      [3, 'power', 1, 1, 'leader'],
    ])
  })
})

describe('classify', () => {
  it('classifies by the first word after comments and parentheses', () => {
    expect(sql.classify('  (select 1)')).toBe('query')
    expect(sql.classify('/* x */ -- y\nshow databases')).toBe('query')
    expect(sql.classify('DESC t')).toBe('query')
    expect(sql.classify('describe t')).toBe('query')
    expect(sql.classify('insert into t values (now, 1)')).toBe('write')
    expect(sql.classify('create database x')).toBe('write')
  })
})

describe('SELECT dispatch', () => {
  it('hands SELECT to the select engine with the statement clock', async () => {
    await power()
    await exec("insert into power.d1 using power.meters tags ('CA', 1) values (now, 1.5, 220, 0.5)")
    expect(await query('select ts, voltage, tbname from power.meters')).toEqual([[BigInt(NOW_MS), 220, 'd1']])
    expect(await query('select name from information_schema.ins_databases where name = "power"')).toEqual([['power']])
  })
})
