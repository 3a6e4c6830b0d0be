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

export function stmtsCases(): Case[] {
  return [...dataset(), ...deleteCases()]
}
