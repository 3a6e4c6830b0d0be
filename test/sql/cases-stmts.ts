import { expect } from 'vitest'
import type { Case } from './harness.js'
import { basic, err, exec, ROOT, rowsOf } from './harness.js'

/**
 * Statements of issue 35 item 5 (DELETE, INSERT ... SELECT, RENAME, COMMENT, ALTER DATABASE,
 * performance_schema), in execution order over database `stm`. Expectations follow TDengine's
 * documentation (delete-data, insert, stable, table, database and performance-data pages):
 *
 *  stm.st (ts, v int) tags (loc varchar(16), g int); children c1 ('a', 1), c2 ('b', 2), c3 ('c', 1),
 *  each with v at T+1s, T+2s, T+3s (T = 2024-01-01T00:00:00Z): c1 1 2 3, c2 10 20 30, c3 100 200 300.
 *  stm.nt (ts, x double): x 1.5 2.5 3.5 4.5 at T+1s .. T+4s.
 */

const PASS = 'Stm_pass1'
const T = (s: number): string => `2024-01-01T00:00:0${s}.000Z`
const COUNT: Array<[string, string, number]> = [['count(*)', 'BIGINT', 8]]
const count = (n: number): unknown => rowsOf(COUNT, [[n]])

function dataset(): Case[] {
  return [
    { name: 'create database stm', sql: 'create database stm', expect: exec(0) },
    { name: 'create stable stm.st', sql: 'create stable stm.st (ts timestamp, v int) tags (loc varchar(16), g int)', expect: exec(0) },
    {
      name: 'insert three children',
      sql:
        "insert into stm.c1 using stm.st tags ('a', 1) values ('2024-01-01 00:00:01', 1) ('2024-01-01 00:00:02', 2) ('2024-01-01 00:00:03', 3) " +
        "stm.c2 using stm.st tags ('b', 2) values ('2024-01-01 00:00:01', 10) ('2024-01-01 00:00:02', 20) ('2024-01-01 00:00:03', 30) " +
        "stm.c3 using stm.st tags ('c', 1) values ('2024-01-01 00:00:01', 100) ('2024-01-01 00:00:02', 200) ('2024-01-01 00:00:03', 300)",
      expect: exec(9),
    },
    { name: 'create table stm.nt', sql: 'create table stm.nt (ts timestamp, x double)', expect: exec(0) },
    {
      name: 'insert stm.nt',
      sql: "insert into stm.nt values ('2024-01-01 00:00:01', 1.5) ('2024-01-01 00:00:02', 2.5) ('2024-01-01 00:00:03', 3.5) ('2024-01-01 00:00:04', 4.5)",
      expect: exec(4),
    },
    { name: 'create user stm_reader', sql: `create user stm_reader pass '${PASS}'`, expect: exec(0) },
    { name: 'grant read on stm to stm_reader', sql: 'grant read on stm.* to stm_reader', expect: exec(0) },
  ]
}

export function deleteCases(): Case[] {
  return [
    { name: 'DELETE from a child table by time', sql: "delete from stm.c1 where ts < '2024-01-01 00:00:02'", expect: exec(1) },
    {
      name: 'the child keeps its later rows',
      sql: 'select ts, v from stm.c1',
      expect: rowsOf([['ts', 'TIMESTAMP', 8], ['v', 'INT', 4]], [[T(2), 2], [T(3), 3]]),
    },
    {
      name: 'DELETE from a super table by time and tag',
      sql: "delete from stm.st where ts >= '2024-01-01 00:00:03' and g = 1",
      expect: exec(2),
    },
    { name: 'DELETE from a super table by tbname', sql: "delete from stm.st where tbname = 'c2' and ts = '2024-01-01 00:00:01'", expect: exec(1) },
    {
      name: 'what is left of the super table',
      sql: 'select tbname, ts, v from stm.st order by v',
      expect: rowsOf(
        [['tbname', 'VARCHAR', 192], ['ts', 'TIMESTAMP', 8], ['v', 'INT', 4]],
        [['c1', T(2), 2], ['c2', T(2), 20], ['c2', T(3), 30], ['c3', T(1), 100], ['c3', T(2), 200]],
      ),
    },
    {
      name: 'DELETE with a condition on a data column is 9813',
      sql: 'delete from stm.st where v > 10',
      expect: err(9813, 'The DELETE statement must have a definite time window range'),
    },
    { name: 'DELETE from a missing table is 9731', sql: 'delete from stm.nosuch', expect: err(9731, 'Table does not exist: nosuch') },
    {
      name: 'DELETE needs WRITE (771 for a reader)',
      sql: 'delete from stm.nt',
      auth: basic('stm_reader', PASS),
      expect: { code: 771, desc: expect.stringContaining('Insufficient privilege') },
    },
    { name: 'DELETE from a normal table by BETWEEN', sql: "delete from stm.nt where ts between '2024-01-01 00:00:01' and '2024-01-01 00:00:02'", expect: exec(2) },
    { name: 'the normal table keeps two rows', sql: 'select count(*) from stm.nt', expect: count(2) },
    { name: 'DELETE without WHERE empties a normal table', sql: 'delete from stm.nt', db: 'stm', expect: exec(2) },
    { name: 'the normal table is empty', sql: 'select count(*) from stm.nt', expect: count(0) },
    { name: 'DELETE without WHERE empties a super table', sql: 'delete from stm.st', expect: exec(5) },
    { name: 'the super table is empty', sql: 'select count(*) from stm.st', expect: count(0) },
    {
      name: 'its children are still there',
      sql: "select count(*) from information_schema.ins_tables where db_name = 'stm' and stable_name = 'st'",
      expect: count(3),
    },
  ]
}

export function insertSelectCases(): Case[] {
  const TV: Array<[string, string, number]> = [['ts', 'TIMESTAMP', 8], ['v', 'BIGINT', 8]]
  return [
    { name: 'create table stm.copy', sql: 'create table stm.copy (ts timestamp, v bigint)', expect: exec(0) },
    { name: 'INSERT INTO normal table SELECT', sql: 'insert into stm.copy select ts, v from stm.c2', expect: exec(3) },
    { name: 'the copied rows', sql: 'select * from stm.copy', expect: rowsOf(TV, [[T(1), 10], [T(2), 20], [T(3), 30]]) },
    { name: 'create table stm.conv', sql: 'create table stm.conv (ts timestamp, s varchar(8), d double)', expect: exec(0) },
    {
      name: 'INSERT with a column list converts INT to DOUBLE and leaves the others NULL',
      sql: 'insert into stm.conv (ts, d) select ts, v from stm.c1 where v >= 2',
      expect: exec(2),
    },
    {
      name: 'the converted rows',
      sql: 'select * from stm.conv',
      expect: rowsOf([['ts', 'TIMESTAMP', 8], ['s', 'VARCHAR', 8], ['d', 'DOUBLE', 8]], [[T(2), null, 2], [T(3), null, 3]]),
    },
    { name: 'create stable stm.st2', sql: 'create stable stm.st2 (ts timestamp, v int) tags (g int)', expect: exec(0) },
    { name: 'create child stm.k0', sql: 'create table stm.k0 using stm.st2 tags (7)', expect: exec(0) },
    { name: 'INSERT INTO child table SELECT an expression', sql: 'insert into stm.k0 select ts, v + 1 from stm.c3', expect: exec(3) },
    { name: 'the child holds the computed values', sql: 'select sum(v) from stm.k0', expect: rowsOf([['sum(v)', 'BIGINT', 8]], [[603]]) },
    {
      name: 'INSERT INTO super table (tbname, ...) SELECT creates the child with its tags',
      sql: "insert into stm.st2 (tbname, g, ts, v) select 'k1', 9, ts, v from stm.c2",
      expect: exec(3),
    },
    {
      name: 'the new child and its tag',
      sql: 'select tbname, g, count(*) from stm.st2 partition by tbname, g order by tbname',
      expect: rowsOf([['tbname', 'VARCHAR', 192], ['g', 'INT', 4], ['count(*)', 'BIGINT', 8]], [['k0', 7, 3], ['k1', 9, 3]]),
    },
    {
      name: 'INSERT SELECT into a super table without tbname is 9853',
      sql: 'insert into stm.st2 (ts, v) select ts, v from stm.c1',
      expect: err(9853, 'Pseudo tag tbname not set'),
    },
    {
      name: 'INSERT SELECT with too few columns is 9791',
      sql: 'insert into stm.copy select ts from stm.c1',
      expect: err(9791, 'Illegal number of columns'),
    },
    {
      name: 'INSERT SELECT needs WRITE on the target',
      sql: 'insert into stm.copy select ts, v from stm.c1',
      auth: basic('stm_reader', PASS),
      expect: { code: 771, desc: expect.stringContaining('Insufficient privilege') },
    },
  ]
}

const code = (n: number): ((json: any) => void) => (json) => {
  expect(json.code, JSON.stringify(json)).toBe(n)
}

/** After insertSelectCases: stm.st2 children k0 (g 7, v 101 201 301) and k1 (g 9), stm.copy (v 10 20 30). */
export function renameCases(): Case[] {
  return [
    { name: 'ALTER STABLE ... RENAME TAG', sql: 'alter stable stm.st2 rename tag g grp', expect: exec(0) },
    {
      name: 'DESCRIBE shows the new tag name',
      sql: 'describe stm.st2',
      check: (json) => expect(json.data.map((r: unknown[]) => r[0])).toEqual(['ts', 'v', 'grp']),
    },
    {
      name: 'SELECT reads the tag under its new name',
      sql: 'select tbname, grp from stm.st2 order by tbname',
      expect: rowsOf([['tbname', 'VARCHAR', 192], ['grp', 'INT', 4]], [['k0', 7], ['k0', 7], ['k0', 7], ['k1', 9], ['k1', 9], ['k1', 9]]),
    },
    { name: 'the old tag name is gone (9730)', sql: 'select g from stm.st2', check: code(9730) },
    {
      name: 'ins_tags lists the renamed tag with its value',
      sql: "select tag_name, tag_value from information_schema.ins_tags where db_name = 'stm' and table_name = 'k0'",
      expect: rowsOf([['tag_name', 'VARCHAR', 64], ['tag_value', 'VARCHAR', 16384]], [['grp', '7']]),
    },
    {
      name: 'a new child takes the renamed tag',
      sql: "insert into stm.st2 (tbname, grp, ts, v) values ('k2', 3, '2024-01-01 00:00:05', 1)",
      expect: exec(1),
    },
    { name: 'its tag value', sql: "select grp from stm.st2 where tbname = 'k2'", expect: rowsOf([['grp', 'INT', 4]], [[3]]) },
    { name: 'RENAME TAG of a missing tag is 874', sql: 'alter stable stm.st2 rename tag nosuch x', expect: err(874, 'Tag does not exist') },
    { name: 'RENAME TAG onto an existing tag is 873', sql: 'alter stable stm.st rename tag loc g', expect: err(873, 'Tag already exists') },
    { name: 'RENAME TAG through a child table is 9801', sql: 'alter table stm.k0 rename tag grp g2', check: code(9801) },
    { name: 'ALTER TABLE ... RENAME COLUMN of a normal table', sql: 'alter table stm.copy rename column v val', expect: exec(0) },
    { name: 'SELECT reads the column under its new name', sql: 'select sum(val) from stm.copy', expect: rowsOf([['sum(val)', 'BIGINT', 8]], [[60]]) },
    { name: 'INSERT names the new column', sql: "insert into stm.copy (ts, val) values ('2024-01-01 00:00:09', 5)", expect: exec(1) },
    {
      name: 'DESCRIBE shows the new column name',
      sql: 'describe stm.copy',
      check: (json) => expect(json.data.map((r: unknown[]) => r[0])).toEqual(['ts', 'val']),
    },
    { name: 'RENAME COLUMN onto an existing column is 875', sql: 'alter table stm.copy rename column val ts', expect: err(875, 'Column already exists') },
    { name: 'RENAME COLUMN of a missing column is 876', sql: 'alter table stm.copy rename column nosuch x', expect: err(876, 'Column does not exist') },
    { name: 'RENAME COLUMN of a super table is 9801', sql: 'alter stable stm.st2 rename column v v2', check: code(9801) },
    { name: 'RENAME COLUMN of a child table is 9801', sql: 'alter table stm.k0 rename column v v2', check: code(9801) },
    { name: 'RENAME needs WRITE', sql: 'alter table stm.copy rename column val v', auth: basic('stm_reader', PASS), check: code(771) },
    { name: 'INSERT SELECT from the table it writes overwrites its rows', sql: 'insert into stm.copy select ts, val * 2 from stm.copy', expect: exec(4) },
    { name: 'the rows are doubled', sql: 'select count(*), sum(val) from stm.copy', expect: rowsOf([['count(*)', 'BIGINT', 8], ['sum(val)', 'BIGINT', 8]], [[4, 130]]) },
  ]
}

export function commentCases(): Case[] {
  const TC: Array<[string, string, number]> = [['table_name', 'VARCHAR', 192], ['table_comment', 'VARCHAR', 1024]]
  const SC: Array<[string, string, number]> = [['stable_name', 'VARCHAR', 192], ['table_comment', 'VARCHAR', 1024]]
  const tables = "select table_name, table_comment from information_schema.ins_tables where db_name = 'stm' and table_name in ('cm1', 'cm2') order by table_name"
  const stables = "select stable_name, table_comment from information_schema.ins_stables where db_name = 'stm' and stable_name = 'cst'"
  return [
    { name: 'CREATE TABLE ... COMMENT', sql: "create table stm.cm1 (ts timestamp, x int) comment 'normal one'", expect: exec(0) },
    { name: 'CREATE TABLE ... USING ... COMMENT', sql: "create table stm.cm2 using stm.st2 tags (1) comment 'child one'", expect: exec(0) },
    { name: 'CREATE STABLE ... COMMENT', sql: "create stable stm.cst (ts timestamp, x int) tags (t int) comment 'super one'", expect: exec(0) },
    { name: 'ins_tables shows the comments', sql: tables, expect: rowsOf(TC, [['cm1', 'normal one'], ['cm2', 'child one']]) },
    { name: 'ins_stables shows the comment', sql: stables, expect: rowsOf(SC, [['cst', 'super one']]) },
    { name: 'ALTER TABLE ... COMMENT', sql: "alter table stm.cm1 comment 'changed'", expect: exec(0) },
    { name: 'ALTER TABLE child ... COMMENT', sql: "alter table stm.cm2 comment ''", expect: exec(0) },
    { name: 'ins_tables shows the new comments', sql: tables, expect: rowsOf(TC, [['cm1', 'changed'], ['cm2', '']]) },
    { name: 'ALTER STABLE ... COMMENT', sql: "alter stable stm.cst comment 'changed too'", expect: exec(0) },
    { name: 'ins_stables shows the new comment', sql: stables, expect: rowsOf(SC, [['cst', 'changed too']]) },
    {
      name: 'a comment over 1024 bytes is 9806',
      sql: `create table stm.cm3 (ts timestamp, x int) comment '${'c'.repeat(1025)}'`,
      expect: err(9806, 'Comment too long'),
    },
  ]
}

export function alterDatabaseCases(): Case[] {
  const meta: Array<[string, string, number]> = [
    ['name', 'VARCHAR', 64],
    ['cachemodel', 'VARCHAR', 11],
    ['cachesize', 'INT', 4],
    ['wal_level', 'TINYINT', 1],
    ['wal_fsync_period', 'INT', 4],
    ['keep', 'VARCHAR', 32],
    ['pages', 'INT', 4],
    ['buffer', 'INT', 4],
    ['minrows', 'INT', 4],
    ['stt_trigger', 'SMALLINT', 2],
    ['replica', 'TINYINT', 1],
  ]
  return [
    {
      name: 'ALTER DATABASE with the options TDengine lets it change',
      sql: "alter database stm cachemodel 'last_row' cachesize 4 wal_level 2 wal_fsync_period 1000 keep 365d pages 128 buffer 64 minrows 50 stt_trigger 2 replica 1",
      expect: exec(0),
    },
    {
      name: 'ins_databases shows them',
      sql: "select name, cachemodel, cachesize, wal_level, wal_fsync_period, keep, pages, buffer, minrows, stt_trigger, replica from information_schema.ins_databases where name = 'stm'",
      expect: rowsOf(meta, [['stm', 'last_row', 4, 2, 1000, '365d,365d,365d', 128, 64, 50, 2, 1]]),
    },
    {
      name: 'SHOW CREATE DATABASE shows them',
      sql: 'show create database stm',
      check: (json) => {
        const text = String(json.data[0][1])
        expect(text).toContain("CACHEMODEL 'last_row'")
        expect(text).toContain('CACHESIZE 4')
        expect(text).toContain('KEEP 365d,365d,365d')
        expect(text).toContain('WAL_LEVEL 2')
      },
    },
    { name: 'PRECISION cannot be altered (9728)', sql: "alter database stm precision 'us'", check: code(9728) },
    { name: 'VGROUPS cannot be altered (9728)', sql: 'alter database stm vgroups 4', check: code(9728) },
    { name: 'an unknown CACHEMODEL is 9753', sql: "alter database stm cachemodel 'most'", check: code(9753) },
    { name: 'WAL_LEVEL 0 is 9753', sql: 'alter database stm wal_level 0', check: code(9753) },
    { name: 'KEEP under a day is 9753', sql: 'alter database stm keep 60m', check: code(9753) },
    { name: 'a decreasing KEEP list is 9753', sql: 'alter database stm keep 30d,20d,10d', check: code(9753) },
    { name: 'REPLICA 3 needs three dnodes (820)', sql: 'alter database stm replica 3', expect: err(820, 'Out of dnodes') },
    { name: 'ALTER DATABASE needs to own the database', sql: 'alter database stm cachesize 8', auth: basic('stm_reader', PASS), check: code(771) },
    {
      name: 'a refused ALTER changed nothing',
      sql: "select cachesize from information_schema.ins_databases where name = 'stm'",
      expect: rowsOf([['cachesize', 'INT', 4]], [[4]]),
    },
  ]
}

const BIG_ROWS = 120_000
const SLOW = 'select ts, a, b, c, a + b, b + c, a * c, a - c, concat(s, s) from stm.big'

async function sqlAt(base: string, sql: string, auth = ROOT): Promise<any> {
  const res = await fetch(`${base}/rest/sql`, { method: 'POST', headers: { Authorization: auth }, body: sql })
  return res.json()
}

/** rows of `sql` whose kill_id / user / sql columns are read (perf_queries) */
async function running(base: string, auth = ROOT): Promise<Array<{ killId: string; connId: number; user: string; sql: string; usec: number }>> {
  const json = await sqlAt(base, 'select kill_id, conn_id, user, sql, exec_usec from performance_schema.perf_queries', auth)
  expect(json.code, JSON.stringify(json)).toBe(0)
  return json.data.map((r: any[]) => ({ killId: r[0], connId: r[1], user: r[2], sql: r[3], usec: r[4] }))
}

/**
 * perf_queries lists a statement while it runs: a query whose large result the client reads
 * slowly (one chunk, then nothing) is seen from other requests with its SQL, user and connection,
 * until KILL QUERY stops it (its response is cut) and it leaves the list.
 */
export function perfCases(): Case[] {
  const inserts: Case[] = []
  // recent rows: the database's KEEP is 365 days by now (alterDatabaseCases)
  const base = Date.now() - 3_600_000
  for (let k = 0; k < BIG_ROWS / 5000; k++) {
    const rows: string[] = []
    for (let i = 0; i < 5000; i++) {
      const n = k * 5000 + i
      rows.push(`(${base + n}, ${n % 1000}, ${n % 7}, ${n % 13}, 'row${n % 97}')`)
    }
    inserts.push({ name: `fill stm.big ${k + 1}`, sql: `insert into stm.big values ${rows.join(' ')}`, expect: exec(5000) })
  }
  return [
    { name: 'create table stm.big', sql: 'create table stm.big (ts timestamp, a int, b int, c int, s varchar(8))', expect: exec(0) },
    ...inserts,
    {
      name: 'perf_queries and perf_connections list a running query; KILL QUERY stops it',
      sql: 'select count(*) from stm.big',
      expect: count(BIG_ROWS),
      then: async (_json, base) => {
        const slow = await fetch(`${base}/rest/sql`, { method: 'POST', headers: { Authorization: ROOT, 'User-Agent': 'stmts-test' }, body: SLOW })
        expect(slow.status).toBe(200)
        const reader = (slow.body as ReadableStream<Uint8Array>).getReader()
        const first = await reader.read()
        expect(first.done).toBe(false)
        const listed = await running(base)
        const mine = listed.find((q) => q.sql === SLOW)
        expect(mine, JSON.stringify(listed)).toBeDefined()
        expect(mine?.user).toBe('root')
        expect(mine?.usec).toBeGreaterThanOrEqual(0)
        // the perf_queries statement itself runs while it reads the list
        expect(listed.some((q) => q.sql.includes('performance_schema.perf_queries'))).toBe(true)
        // another user sees its own statements only
        const other = await running(base, basic('stm_reader', PASS))
        expect(other.length).toBeGreaterThan(0)
        expect(other.every((q) => q.user === 'stm_reader')).toBe(true)
        const conns = await sqlAt(base, 'select conn_id, user, app, end_point from performance_schema.perf_connections')
        expect(conns.code).toBe(0)
        const conn = conns.data.find((r: any[]) => r[0] === mine?.connId)
        expect(conn, JSON.stringify(conns.data)).toBeDefined()
        expect(conn[1]).toBe('root')
        expect(conn[2]).toBe('stmts-test')
        expect(conn[3]).toMatch(/:\d+$/)
        expect(await sqlAt(base, `kill query '${mine?.killId}'`)).toEqual(exec(0))
        // the killed query's response ends without its rows: cut, or closed with an error
        let text = new TextDecoder().decode(first.value)
        try {
          for (;;) {
            const r = await reader.read()
            if (r.done) {
              break
            }
            text += new TextDecoder().decode(r.value)
          }
        } catch {
          // the server cut the body
        }
        let rows = -1
        try {
          rows = JSON.parse(text).rows
        } catch {
          // incomplete JSON: cut
        }
        expect(rows).not.toBe(BIG_ROWS)
        for (let i = 0; i < 100 && (await running(base)).some((q) => q.sql === SLOW); i++) {
          await new Promise((r) => setTimeout(r, 100))
        }
        expect((await running(base)).some((q) => q.sql === SLOW)).toBe(false)
      },
    },
    {
      name: 'SHOW QUERIES lists the running statements (itself)',
      sql: 'show queries',
      check: (json) => {
        expect(json.column_meta[0]).toEqual(['kill_id', 'VARCHAR', 26])
        expect(json.data.some((r: unknown[]) => r[12] === 'show queries')).toBe(true)
      },
    },
    { name: 'KILL QUERY of an unknown id is 780', sql: "kill query '0:999999'", expect: err(780, 'Invalid query id') },
  ]
}

export function stmtsCases(): Case[] {
  return [...dataset(), ...insertSelectCases(), ...deleteCases(), ...renameCases(), ...commentCases(), ...alterDatabaseCases(), ...perfCases()]
}
