import { expect } from 'vitest'
import type { Case } from './harness.js'
import { basic, err, exec, rowsOf } from './harness.js'

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

export function stmtsCases(): Case[] {
  return [...dataset(), ...insertSelectCases(), ...deleteCases()]
}
