import { expect } from 'vitest'
import type { Case } from './harness.js'
import { basic, err, exec, oneOf, ROOT, rowsOf } from './harness.js'

/**
 * The conformance cases, in execution order (later cases read what earlier ones wrote).
 * Expected responses are worked out from ../../../shared/reference (sql-dialect.md sections 0,
 * 1, 2, 3, 4, 5, 8, 10 and adapter-behaviour.md section 2), not copied from our own output.
 *
 * Data used below (all zone-less strings are UTC, the adapter's default connection zone):
 *  power.d1001 (California.SanFrancisco, 2): 08:16:48.000 10.15/217/0.33, 14:06:32.272
 *    10.2/219/0.32, 14:06:33.196 10.27/NULL/0.31 (2021-07-13)
 *  power.d1002 (California.SanFrancisco, 3): 14:06:34.630 10.2/218/0.25 then overwritten to
 *    12.5/218/0.25; 14:06:38.000 9.5/220/0.3
 *  power.d1003 (California.LosAngeles, 2): 14:06:35.779 11.5/221/0.35, 14:06:36.500 13.4/223/0.29
 *  power.d1004 (California.LosAngeles, 3) auto-created: 14:06:37.000 10.8/223/0.29
 *  power.w1 / w2 (W, 9): window data around 2021-07-13T00:00Z
 */

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const METERS =
  'create stable power.meters (ts timestamp, current float, voltage int, phase double) tags (location varchar(24), groupid int)'
const METERS_META: Array<[string, string, number]> = [
  ['ts', 'TIMESTAMP', 8],
  ['current', 'FLOAT', 4],
  ['voltage', 'INT', 4],
  ['phase', 'DOUBLE', 8],
]
const NT_META: Array<[string, string, number]> = [
  ['ts', 'TIMESTAMP', 8],
  ['b', 'BOOL', 1],
  ['ti', 'TINYINT', 1],
  ['si', 'SMALLINT', 2],
  ['i', 'INT', 4],
  ['bi', 'BIGINT', 8],
  ['uti', 'TINYINT UNSIGNED', 1],
  ['usi', 'SMALLINT UNSIGNED', 2],
  ['ui', 'INT UNSIGNED', 4],
  ['ubi', 'BIGINT UNSIGNED', 8],
  ['f', 'FLOAT', 4],
  ['d', 'DOUBLE', 8],
  ['vc', 'VARCHAR', 10],
  ['bin', 'VARCHAR', 8],
  ['nc', 'NCHAR', 4],
]
// tbname is VARCHAR(192) in older builds and 270 in current sources (sql-dialect.md 5.2)
const TBNAME_LEN = oneOf(192, 270)
const ROOT_TOKEN = '/KfeAzX/f9na8qdtNZmtONryp201ma04bEl8LcvLUd7a8qdtNZmtONryp201ma04'
const DESCRIBE_META = [
  ['field', 'VARCHAR', 64],
  ['type', 'VARCHAR', 20],
  ['length', 'INT', 4],
  ['note', 'VARCHAR', 16],
]

/** DESCRIBE from 3.3 appends encode/compress/level; clients compare the first four columns. */
function describeFirstFour(expected: unknown[][]): (json: any) => void {
  return (json) => {
    expect(json.code).toBe(0)
    expect(json.column_meta.slice(0, 4)).toEqual(DESCRIBE_META)
    expect(json.data.map((r: unknown[]) => r.slice(0, 4))).toEqual(expected)
    expect(json.rows).toBe(expected.length)
  }
}

export function systemCases(): Case[] {
  return [
    {
      name: 'server_version() is a 3.x VARCHAR(30)',
      sql: 'select server_version()',
      expect: rowsOf([['server_version()', 'VARCHAR', 30]], [[expect.stringMatching(/^3\.\d+/)]]),
    },
    {
      name: 'client_version() is a VARCHAR(30)',
      sql: 'SELECT CLIENT_VERSION()',
      expect: rowsOf([['client_version()', 'VARCHAR', 30]], [[expect.stringMatching(/^3\.\d+/)]]),
    },
    {
      name: 'server_status() is INT 1',
      sql: 'select server_status()',
      raw: '{"code":0,"column_meta":[["server_status()","INT",4]],"data":[[1]],"rows":1}',
    },
    {
      name: 'database() is NULL without a URL database',
      sql: 'select database()',
      expect: rowsOf([['database()', 'VARCHAR', 63]], [[null]]),
    },
    {
      name: 'now() is a fixed-width ms RFC 3339 timestamp',
      sql: 'select now()',
      check: (json, text) => {
        expect(json.column_meta).toEqual([['now()', 'TIMESTAMP', 8]])
        expect(json.data[0][0]).toMatch(ISO_MS)
        expect(Math.abs(Date.parse(json.data[0][0]) - Date.now())).toBeLessThan(60_000)
        expect(text).toMatch(/^\{"code":0,"column_meta":\[\["now\(\)","TIMESTAMP",8\]\],"data":\[\["[^"]+"\]\],"rows":1\}$/)
      },
    },
    {
      name: 'today() is midnight UTC',
      sql: 'select today()',
      check: (json) => {
        expect(json.column_meta).toEqual([['today()', 'TIMESTAMP', 8]])
        expect(json.data[0][0]).toBe(`${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`)
      },
    },
    {
      name: '/rest/sql/ (trailing slash) is served directly, no redirect',
      path: '/rest/sql/',
      sql: 'select server_status()',
      raw: '{"code":0,"column_meta":[["server_status()","INT",4]],"data":[[1]],"rows":1}',
    },
  ]
}

export function ddlCases(): Case[] {
  return [
    // power must be the first database: it then owns vgroup ids 2 and 3 (sql-dialect.md 10)
    { name: 'create database with VGROUPS', sql: 'create database power vgroups 2', raw: '{"code":0,"column_meta":[["affected_rows","INT",4]],"data":[[0]],"rows":1}' },
    { name: 'create existing database is 897', sql: 'create database power', expect: err(897, 'Database already exists') },
    { name: 'create database if not exists', sql: 'create database if not exists power', expect: exec(0) },
    {
      name: 'create database with precision us and other valid options',
      sql: "create database if not exists cf_us precision 'us' keep 3650 duration 10 vgroups 1 buffer 256 pages 256 wal_level 1 cachemodel 'none'",
      expect: exec(0),
    },
    { name: 'create database with precision ns', sql: "CREATE DATABASE cf_ns PRECISION 'ns'", expect: exec(0) },
    { name: 'create database to drop', sql: 'create database cf_drop', expect: exec(0) },
    { name: 'drop database', sql: 'drop database cf_drop', expect: exec(0) },
    { name: 'drop missing database is 904', sql: 'drop database cf_drop', expect: err(904, 'Database not exist') },
    { name: 'drop database if exists (missing)', sql: 'drop database if exists cf_drop', expect: exec(0) },
    {
      name: 'show databases lists ins_databases columns and the user databases',
      sql: 'show databases',
      check: (json) => {
        expect(json.code).toBe(0)
        expect(json.column_meta.slice(0, 4)).toEqual([
          ['name', 'VARCHAR', 64],
          ['create_time', 'TIMESTAMP', 8],
          ['vgroups', 'INT', 4],
          ['ntables', 'BIGINT', 8],
        ])
        const names = json.data.map((r: unknown[]) => r[0])
        expect(names).toEqual(expect.arrayContaining(['information_schema', 'performance_schema', 'power', 'cf_us', 'cf_ns']))
        expect(names).not.toContain('cf_drop')
        expect(json.rows).toBe(json.data.length)
        const power = json.data.find((r: unknown[]) => r[0] === 'power')
        expect(power[2]).toBe(2)
        const prec = json.column_meta.findIndex((m: unknown[]) => m[0] === 'precision')
        expect(json.data.find((r: unknown[]) => r[0] === 'cf_us')[prec]).toBe('us')
      },
    },
    { name: 'USE is accepted without effect', sql: 'use power', expect: exec(0) },
    { name: 'USE does not set a database for later requests', sql: 'select * from d1001', expect: err(9750, 'Database not specified') },

    { name: 'create stable', sql: METERS, expect: exec(0) },
    { name: 'create existing stable is 864', sql: METERS, expect: err(864, 'STable already exists') },
    { name: 'create stable if not exists', sql: METERS.replace('create stable', 'create stable if not exists'), expect: exec(0) },
    { name: 'drop missing stable is 866', sql: 'drop stable power.nosuch', expect: err(866, 'STable not exist') },
    {
      name: 'create child table',
      sql: "create table power.d1001 using power.meters tags ('California.SanFrancisco', 2)",
      expect: exec(0),
    },
    {
      name: 'create several child tables in one statement',
      sql: "create table power.d1002 using power.meters tags ('California.SanFrancisco', 3) power.d1003 using power.meters tags ('California.LosAngeles', 2)",
      expect: exec(0),
    },
    {
      name: 'create existing table is 1539',
      sql: "create table power.d1001 using power.meters tags ('x', 1)",
      expect: err(1539, 'Table already exists'),
    },
    {
      name: 'create table if not exists (existing)',
      sql: "create table if not exists power.d1001 using power.meters tags ('x', 1)",
      expect: exec(0),
    },
    {
      name: 'create normal table with every type',
      sql: 'create table power.nt (ts timestamp, b bool, ti tinyint, si smallint, i int, bi bigint, uti tinyint unsigned, usi smallint unsigned, ui int unsigned, ubi bigint unsigned, f float, d double, vc varchar(10), bin binary(8), nc nchar(4))',
      expect: exec(0),
    },
    { name: 'create stable with a JSON tag', sql: 'create stable power.js (ts timestamp, v int) tags (info json)', expect: exec(0) },
    { name: 'create child with a JSON tag value', sql: `create table power.j1 using power.js tags ('{"k":"v","n":1}')`, expect: exec(0) },
    { name: 'create table via URL database', db: 'power', sql: 'create table nowt (ts timestamp, i int)', expect: exec(0) },
    { name: 'create table without any database is 9750', sql: 'create table nodb (ts timestamp, i int)', expect: err(9750, 'Database not specified') },
    {
      name: 'describe super table: columns then tags',
      sql: 'describe power.meters',
      check: describeFirstFour([
        ['ts', 'TIMESTAMP', 8, ''],
        ['current', 'FLOAT', 4, ''],
        ['voltage', 'INT', 4, ''],
        ['phase', 'DOUBLE', 8, ''],
        ['location', 'VARCHAR', 24, 'TAG'],
        ['groupid', 'INT', 4, 'TAG'],
      ]),
    },
    {
      name: 'describe normal table: every type name and length',
      sql: 'DESC power.nt',
      check: describeFirstFour(NT_META.map(([n, t, l]) => [n, t, l, ''])),
    },
    {
      name: 'describe with the URL database',
      db: 'power',
      sql: 'describe js',
      check: describeFirstFour([
        ['ts', 'TIMESTAMP', 8, ''],
        ['v', 'INT', 4, ''],
        ['info', 'JSON', 4095, 'TAG'],
      ]),
    },
    { name: 'describe without database is 9750', sql: 'describe meters', expect: err(9750, 'Database not specified') },
    {
      name: 'describe missing table is 9731',
      sql: 'describe power.nosuch',
      expect: err(9731, expect.stringContaining('Table does not exist')),
    },
  ]
}

export function insertCases(): Case[] {
  return [
    {
      name: 'multi-row insert with datetime string and epoch ms',
      sql: "insert into power.d1001 values ('2021-07-13 14:06:32.272', 10.2, 219, 0.32) (1626164208000, 10.15, 217, 0.33)",
      raw: '{"code":0,"column_meta":[["affected_rows","INT",4]],"data":[[2]],"rows":1}',
    },
    {
      name: 'insert with a column list (omitted column is NULL), RFC 3339 Z',
      sql: "insert into power.d1001 (ts, current, phase) values ('2021-07-13T14:06:33.196Z', 10.27, 0.31)",
      expect: exec(1),
    },
    {
      name: 'insert into several tables, RFC 3339 with offset',
      sql: "insert into power.d1002 values ('2021-07-13 14:06:34.630', 10.2, 218, 0.25) power.d1003 values ('2021-07-13 14:06:35.779', 11.5, 221, 0.35) ('2021-07-13T22:06:36.500+08:00', 13.4, 223, 0.29)",
      expect: exec(3),
    },
    {
      name: 'insert USING ... TAGS auto-creates the child',
      sql: "insert into power.d1004 using power.meters tags ('California.LosAngeles', 3) values ('2021-07-13 14:06:37.000', 10.8, 223, 0.29)",
      expect: exec(1),
    },
    {
      name: 'unprefixed insert resolves against the URL database',
      db: 'power',
      sql: "insert into d1002 values ('2021-07-13 14:06:38.000', 9.5, 220, 0.3)",
      expect: exec(1),
    },
    {
      name: 'same table and timestamp overwrites (last write wins)',
      sql: "insert into power.d1002 values ('2021-07-13 14:06:34.630', 12.5, 218, 0.25)",
      expect: exec(1),
    },
    {
      name: 'unprefixed insert without database is 9750',
      sql: 'insert into d1002 values (now, 1, 1, 1)',
      expect: err(9750, 'Database not specified'),
    },
    {
      name: 'NOW and NOW +/- duration',
      sql: 'insert into power.nowt values (now, 1) (now + 1s, 2) (now - 5m, 3)',
      expect: exec(3),
    },
    {
      name: 'insert every type (exact 64-bit integers, float32)',
      sql: "insert into power.nt values (1626164208000, true, -127, -32767, -2147483647, -9223372036854775807, 254, 65534, 4294967294, 18446744073709551614, 10.3, 0.1, 'hello', 'bin', 'nchr')",
      expect: exec(1),
    },
    { name: 'insert a row of NULLs', sql: 'insert into power.nt (ts) values (1626164208001)', expect: exec(1) },
    { name: 'insert into a JSON-tag child', sql: 'insert into power.j1 values (1626164208000, 1)', expect: exec(1) },
    {
      name: 'window data w1',
      sql: "insert into power.w1 using power.meters tags ('W', 9) values ('2021-07-13T00:00:10Z', 1.5, 1, 0.5) ('2021-07-13T00:00:50Z', 2.5, 3, 1.5) ('2021-07-13T00:01:20Z', 4.5, 5, 2.5) ('2021-07-13T00:03:05Z', 6.5, 7, 3.5)",
      expect: exec(4),
    },
    {
      name: 'window data w2',
      sql: "insert into power.w2 using power.meters tags ('W', 9) values ('2021-07-13T00:00:20Z', 1, 10, 1) ('2021-07-13T00:02:10Z', 1, 20, 1)",
      expect: exec(2),
    },
    {
      name: 'epoch integer in a us database',
      sql: 'create stable cf_us.st (ts timestamp, v int) tags (t int)',
      expect: exec(0),
    },
    {
      name: 'insert epoch us',
      sql: 'insert into cf_us.c1 using cf_us.st tags (1) values (1626164208000123, 1)',
      expect: exec(1),
    },
    { name: 'table in an ns database', sql: 'create table cf_ns.t (ts timestamp, v int)', expect: exec(0) },
    {
      name: 'insert epoch ns and an RFC 3339 nanosecond string',
      sql: "insert into cf_ns.t values (1626164208000000007, 1) ('2021-07-13T08:16:49.123456789Z', 2)",
      expect: exec(2),
    },
    {
      name: 'string longer than VARCHAR(n) is 9811',
      sql: "insert into power.nt (ts, vc) values (1626164208002, 'abcdefghijk')",
      expect: err(9811, 'Value too long for column/tag: vc'),
    },
    {
      name: 'string longer than NCHAR(n) is 9811',
      sql: "insert into power.nt (ts, nc) values (1626164208002, 'abcde')",
      expect: err(9811, 'Value too long for column/tag: nc'),
    },
    {
      name: 'TINYINT overflow is 534',
      sql: 'insert into power.nt (ts, ti) values (1626164208002, 128)',
      expect: err(534, expect.stringMatching(/^syntax error near '.*' \(.*\)$/)),
    },
    {
      name: 'invalid timestamp is 534',
      sql: "insert into power.nt (ts) values ('not a time')",
      expect: err(534, expect.stringContaining('invalid timestamp')),
    },
    {
      name: 'timestamp beyond year 2970 is 1547',
      sql: "insert into power.nt (ts) values ('2980-01-01 00:00:00.000')",
      expect: err(1547, 'Timestamp data out of range'),
    },
    { name: 'insert into missing table is 9731', sql: 'insert into power.nosuch values (now, 1)', expect: err(9731, expect.stringContaining('Table does not exist')) },
    { name: 'insert into missing database is 904', sql: 'insert into nosuchdb.t values (now, 1)', expect: err(904, 'Database not exist') },
  ]
}

export function showCases(): Case[] {
  const tables = [['d1001'], ['d1002'], ['d1003'], ['d1004'], ['j1'], ['nowt'], ['nt'], ['w1'], ['w2']]
  return [
    { name: 'show db.stables', sql: 'show power.stables', expect: rowsOf([['stable_name', 'VARCHAR', 192]], [['js'], ['meters']]), unordered: true },
    { name: 'show stables like', sql: "show power.stables like 'me%'", expect: rowsOf([['stable_name', 'VARCHAR', 192]], [['meters']]) },
    { name: 'show stables with the URL database', db: 'power', sql: 'show stables', expect: rowsOf([['stable_name', 'VARCHAR', 192]], [['js'], ['meters']]), unordered: true },
    { name: 'show stables without database', sql: 'show stables', expect: err(oneOf(9728, 9750), expect.stringMatching(/database not specified/i)) },
    { name: 'show db.tables lists child and normal tables', sql: 'show power.tables', expect: rowsOf([['table_name', 'VARCHAR', 192]], tables), unordered: true },
    { name: 'show tables like', sql: "show power.tables like 'd100%'", expect: rowsOf([['table_name', 'VARCHAR', 192]], tables.slice(0, 4)), unordered: true },
    {
      name: 'show db.vgroups: ids 2 and 3, table counts add up',
      sql: 'show power.vgroups',
      check: (json) => {
        expect(json.code).toBe(0)
        expect(json.column_meta.slice(0, 3)).toEqual([
          ['vgroup_id', 'INT', 4],
          ['db_name', 'VARCHAR', 64],
          ['tables', 'INT', 4],
        ])
        const rows = [...json.data].sort((a: number[], b: number[]) => a[0] - b[0])
        expect(rows.map((r: unknown[]) => [r[0], r[1]])).toEqual([
          [2, 'power'],
          [3, 'power'],
        ])
        expect(rows[0][2] + rows[1][2]).toBe(tables.length)
      },
    },
    {
      name: 'ins_tables.vgroup_id agrees with the vgid endpoints',
      sql: "select table_name, vgroup_id from information_schema.ins_tables where db_name = 'power'",
      then: async (json, base) => {
        expect(json.code).toBe(0)
        const names: string[] = json.data.map((r: unknown[]) => r[0])
        expect([...names].sort()).toEqual(tables.map((t) => t[0]))
        const res = await fetch(`${base}/rest/sql/power/vgid`, {
          method: 'POST',
          headers: { Authorization: ROOT },
          body: JSON.stringify(names),
        })
        const body = (await res.json()) as { code: number; vgIDs: number[] }
        expect(body).toEqual({ code: 0, vgIDs: json.data.map((r: unknown[]) => r[1]) })
        for (const id of body.vgIDs) {
          expect([2, 3]).toContain(id)
        }
      },
    },
    {
      name: 'ins_databases is queryable',
      sql: "select name, ntables, status from information_schema.ins_databases where name = 'power'",
      expect: rowsOf(
        [
          ['name', 'VARCHAR', 64],
          ['ntables', 'BIGINT', 8],
          ['status', 'VARCHAR', 10],
        ],
        [['power', tables.length, 'ready']],
      ),
    },
  ]
}

export function selectCases(): Case[] {
  return [
    {
      name: 'select * from a child table (byte-exact: order, float32, null, fixed ms width)',
      sql: 'select * from power.d1001',
      raw:
        '{"code":0,"column_meta":[["ts","TIMESTAMP",8],["current","FLOAT",4],["voltage","INT",4],["phase","DOUBLE",8]],' +
        '"data":[["2021-07-13T08:16:48.000Z",10.15,217,0.33],["2021-07-13T14:06:32.272Z",10.2,219,0.32],["2021-07-13T14:06:33.196Z",10.27,null,0.31]],"rows":3}',
    },
    {
      name: 'select * from a normal table with every type (byte-exact)',
      sql: 'select * from power.nt',
      raw:
        '{"code":0,"column_meta":[["ts","TIMESTAMP",8],["b","BOOL",1],["ti","TINYINT",1],["si","SMALLINT",2],["i","INT",4],["bi","BIGINT",8],' +
        '["uti","TINYINT UNSIGNED",1],["usi","SMALLINT UNSIGNED",2],["ui","INT UNSIGNED",4],["ubi","BIGINT UNSIGNED",8],["f","FLOAT",4],["d","DOUBLE",8],' +
        '["vc","VARCHAR",10],["bin","VARCHAR",8],["nc","NCHAR",4]],' +
        '"data":[["2021-07-13T08:16:48.000Z",true,-127,-32767,-2147483647,-9223372036854775807,254,65534,4294967294,18446744073709551614,10.3,0.1,"hello","bin","nchr"],' +
        '["2021-07-13T08:16:48.001Z",null,null,null,null,null,null,null,null,null,null,null,null,null,null]],"rows":2}',
    },
    {
      name: 'unprefixed select with the URL database',
      db: 'power',
      sql: 'select ts, voltage from d1001 where voltage is not null',
      expect: rowsOf([['ts', 'TIMESTAMP', 8], ['voltage', 'INT', 4]], [['2021-07-13T08:16:48.000Z', 217], ['2021-07-13T14:06:32.272Z', 219]]),
    },
    {
      name: 'database() with the URL database',
      db: 'power',
      sql: 'select database()',
      expect: rowsOf([['database()', 'VARCHAR', 63]], [['power']]),
    },
    {
      name: 'tz renders offsets (Asia/Shanghai)',
      sql: 'select ts from power.d1001 where voltage = 217',
      query: 'tz=Asia/Shanghai',
      raw: '{"code":0,"column_meta":[["ts","TIMESTAMP",8]],"data":[["2021-07-13T16:16:48.000+08:00"]],"rows":1}',
    },
    {
      name: 'tz with a summer offset (Europe/London in July)',
      sql: 'select ts from power.d1001 where voltage = 217',
      query: 'tz=Europe%2FLondon',
      expect: rowsOf([['ts', 'TIMESTAMP', 8]], [['2021-07-13T09:16:48.000+01:00']]),
    },
    {
      name: 'tz whose offset is zero prints Z (Go RFC 3339)',
      sql: 'select ts from power.d1001 where voltage = 217',
      query: 'tz=Africa%2FAbidjan',
      expect: rowsOf([['ts', 'TIMESTAMP', 8]], [['2021-07-13T08:16:48.000Z']]),
    },
    {
      name: 'us precision keeps 6 fraction digits',
      sql: 'select ts, v from cf_us.st',
      raw: '{"code":0,"column_meta":[["ts","TIMESTAMP",8],["v","INT",4]],"data":[["2021-07-13T08:16:48.000123Z",1]],"rows":1}',
    },
    {
      name: 'us precision with tz',
      sql: 'select ts from cf_us.c1',
      query: 'tz=America%2FNew_York',
      expect: rowsOf([['ts', 'TIMESTAMP', 8]], [['2021-07-13T04:16:48.000123-04:00']]),
    },
    {
      name: 'ns precision keeps 9 fraction digits',
      sql: 'select ts, v from cf_ns.t',
      raw: '{"code":0,"column_meta":[["ts","TIMESTAMP",8],["v","INT",4]],"data":[["2021-07-13T08:16:48.000000007Z",1],["2021-07-13T08:16:49.123456789Z",2]],"rows":2}',
    },
    {
      name: 'upsert replaced the row',
      sql: "select current from power.d1002 where ts = '2021-07-13 14:06:34.630'",
      expect: rowsOf([['current', 'FLOAT', 4]], [[12.5]]),
    },
    {
      name: 'NOW arithmetic rows are relative to now',
      sql: 'select i from power.nowt where ts > now - 10m order by ts',
      expect: rowsOf([['i', 'INT', 4]], [[3], [1], [2]]),
    },
    {
      name: 'super table: tbname and tags projection, WHERE on tbname',
      sql: "select tbname, location, groupid, current from power.meters where tbname = 'd1003' order by ts",
      expect: rowsOf(
        [['tbname', 'VARCHAR', TBNAME_LEN as number], ['location', 'VARCHAR', 24], ['groupid', 'INT', 4], ['current', 'FLOAT', 4]],
        [['d1003', 'California.LosAngeles', 2, 11.5], ['d1003', 'California.LosAngeles', 2, 13.4]],
      ),
    },
    {
      name: 'select * on a super table: columns then tags',
      sql: "select * from power.meters where tbname = 'd1004'",
      expect: rowsOf([...METERS_META, ['location', 'VARCHAR', 24], ['groupid', 'INT', 4]], [['2021-07-13T14:06:37.000Z', 10.8, 223, 0.29, 'California.LosAngeles', 3]]),
    },
    {
      name: 'aliases and arithmetic (arithmetic is DOUBLE, default name is the expression text)',
      sql: 'select ts as t, voltage * 2 as v2, current + 1 from power.d1001 where voltage is not null order by ts',
      expect: rowsOf(
        [['t', 'TIMESTAMP', 8], ['v2', 'DOUBLE', 8], ['current + 1', 'DOUBLE', 8]],
        [
          ['2021-07-13T08:16:48.000Z', 434, Math.fround(10.15) + 1],
          ['2021-07-13T14:06:32.272Z', 438, Math.fround(10.2) + 1],
        ],
      ),
    },
    {
      name: 'division and modulo: DOUBLE, fmod sign of the dividend, zero divisor gives NULL',
      sql: 'select voltage / 4 as q, voltage % 4 as m, (0 - voltage) % 5 as n, voltage / 0 as z, voltage % 0 as zm from power.d1001 where voltage is not null order by ts',
      expect: rowsOf(
        [['q', 'DOUBLE', 8], ['m', 'DOUBLE', 8], ['n', 'DOUBLE', 8], ['z', 'DOUBLE', 8], ['zm', 'DOUBLE', 8]],
        [
          [54.25, 1, -2, null, null],
          [54.75, 3, -4, null, null],
        ],
      ),
    },
    {
      name: 'WHERE on ts range with datetime strings',
      sql: "select count(*) from power.d1001 where ts >= '2021-07-13 14:00:00' and ts < '2021-07-13T15:00:00Z'",
      expect: rowsOf([['count(*)', 'BIGINT', 8]], [[2]]),
    },
    {
      name: 'WHERE IS NULL',
      sql: 'select ts from power.d1001 where voltage is null',
      expect: rowsOf([['ts', 'TIMESTAMP', 8]], [['2021-07-13T14:06:33.196Z']]),
    },
    {
      name: 'WHERE NOT (NULL is excluded)',
      sql: 'select voltage from power.d1001 where not (voltage > 218)',
      expect: rowsOf([['voltage', 'INT', 4]], [[217]]),
    },
    {
      name: 'WHERE OR',
      sql: 'select voltage from power.d1001 where voltage = 217 or phase = 0.31 order by ts',
      expect: rowsOf([['voltage', 'INT', 4]], [[217], [null]]),
    },
    {
      name: 'WHERE tag IN and LIKE',
      sql: "select tbname, current from power.meters where groupid in (3) and location like 'California.San%' order by ts",
      expect: rowsOf([['tbname', 'VARCHAR', TBNAME_LEN as number], ['current', 'FLOAT', 4]], [['d1002', 12.5], ['d1002', 9.5]]),
    },
    {
      name: 'WHERE BETWEEN',
      sql: "select count(*) from power.meters where voltage between 218 and 221 and location like 'California%'",
      expect: rowsOf([['count(*)', 'BIGINT', 8]], [[4]]),
    },
    {
      name: 'ORDER BY DESC, LIMIT, OFFSET',
      sql: 'select current from power.d1001 order by ts desc limit 2 offset 1',
      expect: rowsOf([['current', 'FLOAT', 4]], [[10.2], [10.15]]),
    },
    {
      name: 'DISTINCT',
      sql: "select distinct location from power.meters where location like 'California%' order by location",
      expect: rowsOf([['location', 'VARCHAR', 24]], [['California.LosAngeles'], ['California.SanFrancisco']]),
    },
    {
      name: 'JSON tags are inlined as objects',
      sql: 'select info, v from power.js',
      raw: '{"code":0,"column_meta":[["info","JSON",4095],["v","INT",4]],"data":[[{"k":"v","n":1},1]],"rows":1}',
    },
    {
      name: 'COUNT, AVG, SUM, SPREAD, STDDEV',
      sql: 'select count(*), count(voltage), avg(voltage), sum(voltage), spread(voltage), stddev(voltage) from power.d1001',
      expect: rowsOf(
        [
          ['count(*)', 'BIGINT', 8],
          ['count(voltage)', 'BIGINT', 8],
          ['avg(voltage)', 'DOUBLE', 8],
          ['sum(voltage)', 'BIGINT', 8],
          ['spread(voltage)', 'DOUBLE', 8],
          ['stddev(voltage)', 'DOUBLE', 8],
        ],
        [[3, 2, 218, 436, 2, 1]],
      ),
    },
    {
      name: 'MIN, MAX, FIRST, LAST, LAST_ROW keep the column type',
      sql: 'select min(current), max(current), first(current), last(current), last_row(voltage) from power.d1001',
      expect: rowsOf(
        [
          ['min(current)', 'FLOAT', 4],
          ['max(current)', 'FLOAT', 4],
          ['first(current)', 'FLOAT', 4],
          ['last(current)', 'FLOAT', 4],
          ['last_row(voltage)', 'INT', 4],
        ],
        [[10.15, 10.27, 10.15, 10.27, null]],
      ),
    },
    {
      name: 'aggregate over zero rows: count 0, others NULL',
      sql: "select count(*), avg(voltage) from power.d1001 where ts < '2000-01-01'",
      expect: rowsOf([['count(*)', 'BIGINT', 8], ['avg(voltage)', 'DOUBLE', 8]], [[0, null]]),
    },
    {
      name: 'GROUP BY a tag',
      sql: "select groupid, count(*) from power.meters where location like 'California%' group by groupid",
      expect: rowsOf([['groupid', 'INT', 4], ['count(*)', 'BIGINT', 8]], [[2, 5], [3, 3]]),
      unordered: true,
    },
    {
      name: 'PARTITION BY tbname',
      sql: "select tbname, count(*), max(voltage) from power.meters where location like 'California%' partition by tbname",
      expect: rowsOf(
        [['tbname', 'VARCHAR', TBNAME_LEN as number], ['count(*)', 'BIGINT', 8], ['max(voltage)', 'INT', 4]],
        [['d1001', 3, 219], ['d1002', 2, 220], ['d1003', 2, 223], ['d1004', 1, 223]],
      ),
      unordered: true,
    },
    {
      name: 'PARTITION BY a tag',
      sql: 'select location, sum(voltage) from power.meters partition by location',
      expect: rowsOf(
        [['location', 'VARCHAR', 24], ['sum(voltage)', 'BIGINT', 8]],
        [['California.LosAngeles', 667], ['California.SanFrancisco', 874], ['W', 46]],
      ),
      unordered: true,
    },
    {
      name: 'SLIMIT limits partitions',
      sql: "select tbname, count(*) from power.meters where location like 'California%' partition by tbname slimit 2",
      check: (json) => {
        expect(json.code).toBe(0)
        expect(json.rows).toBe(2)
        expect(new Set(json.data.map((r: unknown[]) => r[0])).size).toBe(2)
      },
    },
    {
      name: 'SLIMIT with SOFFSET',
      sql: "select tbname, count(*) from power.meters where location like 'California%' partition by tbname slimit 2 soffset 3",
      check: (json) => {
        expect(json.code).toBe(0)
        expect(json.rows).toBe(1)
      },
    },
    {
      name: 'INTERVAL with _wstart, _wend, _wduration (only windows with rows)',
      sql: "select _wstart, _wend, _wduration, count(*), avg(voltage) from power.w1 where ts >= '2021-07-13T00:00:00Z' and ts < '2021-07-13T00:04:00Z' interval(1m)",
      raw:
        '{"code":0,"column_meta":[["_wstart","TIMESTAMP",8],["_wend","TIMESTAMP",8],["_wduration","BIGINT",8],["count(*)","BIGINT",8],["avg(voltage)","DOUBLE",8]],' +
        '"data":[["2021-07-13T00:00:00.000Z","2021-07-13T00:01:00.000Z",60000,2,2],["2021-07-13T00:01:00.000Z","2021-07-13T00:02:00.000Z",60000,1,5],' +
        '["2021-07-13T00:03:00.000Z","2021-07-13T00:04:00.000Z",60000,1,7]],"rows":3}',
    },
    {
      name: 'INTERVAL with offset',
      sql: 'select _wstart, count(*) from power.w1 interval(1m, 30s)',
      expect: rowsOf(
        [['_wstart', 'TIMESTAMP', 8], ['count(*)', 'BIGINT', 8]],
        [['2021-07-12T23:59:30.000Z', 1], ['2021-07-13T00:00:30.000Z', 2], ['2021-07-13T00:02:30.000Z', 1]],
      ),
    },
    ...(
      [
        ['NONE', [[0, 2], [1, 5], [3, 7]]],
        ['NULL', [[0, 2], [1, 5], [2, null], [3, 7]]],
        ['VALUE, 0', [[0, 2], [1, 5], [2, 0], [3, 7]]],
        ['PREV', [[0, 2], [1, 5], [2, 5], [3, 7]]],
      ] as Array<[string, Array<[number, number | null]>]>
    ).map(
      ([fill, rows]): Case => ({
        name: `INTERVAL FILL(${fill}) over the WHERE range`,
        sql: `select _wstart, avg(voltage) from power.w1 where ts >= '2021-07-13T00:00:00Z' and ts < '2021-07-13T00:04:00Z' interval(1m) fill(${fill})`,
        expect: rowsOf(
          [['_wstart', 'TIMESTAMP', 8], ['avg(voltage)', 'DOUBLE', 8]],
          rows.map(([m, v]) => [`2021-07-13T00:0${m}:00.000Z`, v]),
        ),
      }),
    ),
    {
      name: 'INTERVAL with PARTITION BY tbname',
      sql: "select tbname, _wstart, count(*) from power.meters where groupid = 9 partition by tbname interval(1m)",
      expect: rowsOf(
        [['tbname', 'VARCHAR', TBNAME_LEN as number], ['_wstart', 'TIMESTAMP', 8], ['count(*)', 'BIGINT', 8]],
        [
          ['w1', '2021-07-13T00:00:00.000Z', 2],
          ['w1', '2021-07-13T00:01:00.000Z', 1],
          ['w1', '2021-07-13T00:03:00.000Z', 1],
          ['w2', '2021-07-13T00:00:00.000Z', 1],
          ['w2', '2021-07-13T00:02:00.000Z', 1],
        ],
      ),
      unordered: true,
    },
    { name: 'syntax error is 9728 with the rest of the SQL', sql: 'show database', expect: err(9728, 'syntax error near "database"') },
    { name: 'misspelt keyword is 9728', sql: 'select * form power.d1001', expect: err(9728, expect.stringContaining('syntax error near')) },
    { name: 'unknown column is 9730', sql: 'select nosuchcol from power.d1001', expect: err(9730, 'Invalid column name: nosuchcol') },
    { name: 'unknown table is 9731', sql: 'select * from power.nosuch', expect: err(9731, expect.stringContaining('Table does not exist')) },
    { name: 'unknown database is 904', sql: 'select * from nosuchdb.t', expect: err(904, 'Database not exist') },
    { name: 'unprefixed table without database is 9750', sql: 'select * from d1001', expect: err(9750, 'Database not specified') },
  ]
}

export function largeResultCase(): Case[] {
  const n = 5000
  const values: string[] = []
  for (let k = 0; k < n; k++) {
    values.push(`(${1626164208000 + k}, ${k})`)
  }
  return [
    { name: 'bulk table', sql: 'create table power.big (ts timestamp, k int)', expect: exec(0) },
    { name: `insert ${n} rows in one statement`, sql: `insert into power.big values ${values.join(' ')}`, expect: exec(n) },
    {
      name: `stream ${n} rows in order`,
      sql: 'select k from power.big',
      check: (json) => {
        expect(json.rows).toBe(n)
        expect(json.data.length).toBe(n)
        expect(json.data[0]).toEqual([0])
        expect(json.data[n - 1]).toEqual([n - 1])
      },
    },
  ]
}

export function userCases(): Case[] {
  const u1 = basic('u1', 'Pass_1234')
  return [
    { name: 'create user', sql: "create user u1 pass 'Pass_1234'", expect: exec(0) },
    { name: 'create existing user is 848', sql: "create user u1 pass 'Pass_1234'", expect: err(848, 'User already exists') },
    { name: 'new user can authenticate', sql: 'select server_status()', auth: u1, expect: rowsOf([['server_status()', 'INT', 4]], [[1]]) },
    {
      name: 'show users lists root and u1',
      sql: 'show users',
      check: (json) => {
        expect(json.code).toBe(0)
        expect(json.column_meta[0]).toEqual(['name', 'VARCHAR', oneOf(23, 24)])
        expect(json.column_meta[1]).toEqual(['super', 'TINYINT', 1])
        expect(json.data.map((r: unknown[]) => r[0]).sort()).toEqual(['root', 'u1'])
        expect(json.data.find((r: unknown[]) => r[0] === 'root')[1]).toBe(1)
        expect(json.data.find((r: unknown[]) => r[0] === 'u1')[1]).toBe(0)
      },
    },
    { name: 'wrong password is 401 855', sql: 'select server_status()', auth: basic('u1', 'wrong'), status: 401, raw: '{"code":855,"desc":"Authentication failure"}' },
    { name: 'alter user password', sql: "alter user u1 pass 'Pass_5678'", expect: exec(0) },
    { name: 'old password no longer works', sql: 'select server_status()', auth: u1, status: 401, expect: err(855, 'Authentication failure') },
    { name: 'new password works', sql: 'select server_status()', auth: basic('u1', 'Pass_5678'), expect: rowsOf([['server_status()', 'INT', 4]], [[1]]) },
    { name: 'drop user', sql: 'drop user u1', expect: exec(0) },
    { name: 'dropped user cannot authenticate', sql: 'select server_status()', auth: basic('u1', 'Pass_5678'), status: 401, expect: err(855, 'Authentication failure') },
    { name: 'drop missing user is 849', sql: 'drop user u1', expect: err(849, 'Invalid user') },
    { name: 'alter missing user is 849', sql: "alter user nosuch pass 'Pass_1234'", expect: err(849, 'Invalid user') },
  ]
}

export function restCases(): Case[] {
  const q = 'select server_status()'
  return [
    { name: 'missing Authorization is 401 4357', sql: q, auth: null, status: 401, raw: '{"code":4357,"desc":"no auth info input"}' },
    { name: 'malformed Basic is 401 4388', sql: q, auth: 'Basic !!!', status: 401, raw: '{"code":4388,"desc":"invalid basic Authorization"}' },
    { name: 'Basic with three parts is 401 4388', sql: q, auth: basic('root', 'taos:data'), status: 401, expect: err(4388, 'invalid basic Authorization') },
    { name: 'malformed Taosd is 401 4389', sql: q, auth: 'Taosd abc', status: 401, raw: '{"code":4389,"desc":"invalid taosd Authorization"}' },
    { name: 'other scheme is 401 4386', sql: q, auth: 'Bearer abc', status: 401, raw: '{"code":4386,"desc":"invalid type of Authorization"}' },
    { name: 'unknown user is 401 855', sql: q, auth: basic('nobody', 'x'), status: 401, expect: err(855, 'Authentication failure') },
    { name: 'auth is checked before the body', body: '', auth: null, status: 401, expect: err(4357, 'no auth info input') },
    { name: 'Taosd token of root works', sql: q, auth: `Taosd ${ROOT_TOKEN}`, expect: rowsOf([['server_status()', 'INT', 4]], [[1]]) },
    { name: 'login issues the DES token', method: 'GET', path: '/rest/login/root/taosdata', auth: null, raw: `{"code":0,"desc":"${ROOT_TOKEN}"}` },
    { name: 'login with a wrong password is 401 code 3', method: 'GET', path: '/rest/login/root/wrong', auth: null, status: 401, raw: '{"code":3,"desc":"Authentication failure"}' },
    { name: 'login with a user over 24 bytes is 400 4362', method: 'GET', path: `/rest/login/${'u'.repeat(25)}/taosdata`, auth: null, status: 400, raw: '{"code":4362,"desc":"generate taosd token error"}' },
    { name: 'configured ?token= authenticates without a header', sql: q, query: 'token=cftoken', auth: null, expect: rowsOf([['server_status()', 'INT', 4]], [[1]]) },
    { name: 'unknown ?token= is ignored (header still required)', sql: q, query: 'token=nope', auth: null, status: 401, expect: err(4357, 'no auth info input') },
    { name: 'empty body is 400 4358', body: '', status: 400, raw: '{"code":4358,"desc":"request is empty"}' },
    { name: 'blank body is 400 4359', body: ' \n\t  ', status: 400, raw: '{"code":4359,"desc":"no sql input"}' },
    { name: 'unknown tz is 400 65535', sql: q, query: 'tz=Mars%2FOlympus', status: 400, raw: '{"code":65535,"desc":"unknown time zone Mars/Olympus"}' },
    { name: 'tz is checked before the body', body: '', query: 'tz=Mars%2FOlympus', status: 400, expect: err(65535, 'unknown time zone Mars/Olympus') },
    { name: 'non-numeric req_id is 400 65535', sql: q, query: 'req_id=abc', status: 400, expect: err(65535, expect.stringContaining('req_id must be numeric')) },
    { name: 'numeric req_id is accepted', sql: q, query: 'req_id=12345', expect: rowsOf([['server_status()', 'INT', 4]], [[1]]) },
    { name: 'body is trimmed and a trailing ; tolerated', body: '  select server_status();\n', expect: rowsOf([['server_status()', 'INT', 4]], [[1]]) },
    { name: 'vgid GET (reference value for 1.power.d1001)', method: 'GET', path: '/rest/vgid?db=power&table=d1001', raw: '{"code":0,"vgID":3}' },
    { name: 'vgid GET (reference value for 1.power.d1002)', method: 'GET', path: '/rest/vgid?db=power&table=d1002', raw: '{"code":0,"vgID":2}' },
    { name: 'vgid POST keeps input order', path: '/rest/sql/power/vgid', body: '["d1001","d1002"]', raw: '{"code":0,"vgIDs":[3,2]}' },
    { name: 'vgid GET without table is 400', method: 'GET', path: '/rest/vgid?db=power', status: 400, raw: '{"code":65535,"desc":"illegal params"}' },
    { name: 'vgid POST with an empty array is 400', path: '/rest/sql/power/vgid', body: '[]', status: 400, raw: '{"code":65535,"desc":"illegal params"}' },
    { name: 'vgid POST with a bad body is 400 65535', path: '/rest/sql/power/vgid', body: 'not json', status: 400, expect: err(65535, expect.any(String)) },
    { name: 'vgid of a missing database is 904', method: 'GET', path: '/rest/vgid?db=nosuchdb&table=t', expect: err(904, 'Database not exist') },
    { name: 'vgid needs auth', method: 'GET', path: '/rest/vgid?db=power&table=d1001', auth: null, status: 401, expect: err(4357, 'no auth info input') },
  ]
}

export function dropCases(): Case[] {
  return [
    { name: 'drop table', sql: 'drop table power.nowt', expect: exec(0) },
    { name: 'drop missing table is 9731', sql: 'drop table power.nowt', expect: err(9731, expect.stringContaining('Table does not exist')) },
    { name: 'drop table if exists (missing)', sql: 'drop table if exists power.nowt', expect: exec(0) },
    { name: 'drop stable', sql: 'drop stable power.js', expect: exec(0) },
    { name: 'dropped stable is gone', sql: 'show power.stables', expect: rowsOf([['stable_name', 'VARCHAR', 192]], [['meters']]) },
    { name: 'drop stable if exists (missing)', sql: 'drop stable if exists power.js', expect: exec(0) },
    { name: 'drop database with data', sql: 'drop database cf_ns', expect: exec(0) },
    { name: 'dropped database is unknown', sql: 'select * from cf_ns.t', expect: err(904, 'Database not exist') },
  ]
}

/** Run on a server started with httpCodeServerError=true (database `hc` is created first). */
export function httpCodeCases(): Case[] {
  return [
    { name: 'setup', sql: 'create database hc', expect: exec(0) },
    { name: 'syntax error is 400', sql: 'show database', status: 400, expect: err(9728, 'syntax error near "database"') },
    { name: 'insert value error (534) is 400', sql: 'create table hc.t (ts timestamp, ti tinyint)', expect: exec(0) },
    { name: 'tinyint overflow is 400', sql: 'insert into hc.t values (1626164208000, 1000)', status: 400, expect: err(534, expect.any(String)) },
    { name: 'timestamp out of range is 400', sql: "insert into hc.t values ('2980-01-01 00:00:00', 1)", status: 400, expect: err(1547, 'Timestamp data out of range') },
    { name: 'user exists (848) is 401', sql: "create user root pass 'Pass_1234'", status: 401, expect: err(848, 'User already exists') },
    { name: 'missing database (904) is 500', sql: 'select * from nosuchdb.t', status: 500, expect: err(904, 'Database not exist') },
    { name: 'missing table (9731) is 500', sql: 'select * from hc.nosuch', status: 500, expect: err(9731, expect.any(String)) },
    { name: 'wrong password stays 401 855', sql: 'select 1', auth: basic('root', 'bad'), status: 401, expect: err(855, 'Authentication failure') },
    { name: 'empty body stays 400 4358', body: '', status: 400, expect: err(4358, 'request is empty') },
  ]
}

/** Run on a server started with restfulRowLimit=2. */
export function rowLimitCases(): Case[] {
  return [
    { name: 'setup db', sql: 'create database rl', expect: exec(0) },
    { name: 'setup table', sql: 'create table rl.t (ts timestamp, v int)', expect: exec(0) },
    { name: 'insert is not limited', sql: 'insert into rl.t values (1626164208000, 1) (1626164208001, 2) (1626164208002, 3)', expect: exec(3) },
    {
      name: 'select is truncated and rows counts the rows sent',
      sql: 'select v from rl.t',
      raw: '{"code":0,"column_meta":[["v","INT",4]],"data":[[1],[2]],"rows":2}',
    },
    { name: 'aggregate is one row', sql: 'select count(*) from rl.t', expect: rowsOf([['count(*)', 'BIGINT', 8]], [[3]]) },
  ]
}
