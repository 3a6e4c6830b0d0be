import { crc32 } from 'node:zlib'
import { expect } from 'vitest'
import type { Case } from './harness.js'
import { err, exec, rowsOf } from './harness.js'

/**
 * Gaps closed after issue 35's five areas landed: 64-bit integers printed exactly on the numeric
 * result path, backend errors in TDengine's codes and words, DOUBLE overflow as C gives it,
 * GREATEST / LEAST, CRC32, TO_JSON, and DIFF beside an aggregate (9807, as TDengine's
 * translateIndefiniteRowsFunc answers).
 *
 *  fix.u (ms): ts 1700000000000 + i, u = 2^64 - 2 - i, b = 2^63 - 1 - i (i = 0..1199; more
 *  than one 1024-row offload batch); fix.m: ts, i INT, d DOUBLE, s VARCHAR(10), two rows.
 */
const ROWS = 1200
const U0 = 2n ** 64n - 2n
const B0 = 2n ** 63n - 1n

/** the raw text of one row array per value: JSON.parse would round these to doubles */
function exactColumn(values: bigint[]): string {
  return values.map((v) => `[${v.toString()}]`).join(',')
}

export function sqlfixCases(): Case[] {
  const values = Array.from({ length: ROWS }, (_, i) => `(${1700000000000 + i}, ${U0 - BigInt(i)}, ${B0 - BigInt(i)})`)
  const us = Array.from({ length: ROWS }, (_, i) => U0 - BigInt(i))
  const bs = Array.from({ length: ROWS }, (_, i) => B0 - BigInt(i))
  const minB = -(2n ** 63n)
  return [
    { name: 'sqlfix: create database', sql: 'create database fix', expect: exec(0) },
    { name: 'sqlfix: create u', sql: 'create table fix.u (ts timestamp, u bigint unsigned, b bigint)', expect: exec(0) },
    { name: 'sqlfix: insert u', sql: `insert into fix.u values ${values.join(' ')}`, expect: exec(ROWS) },
    {
      name: 'BIGINT UNSIGNED near 2^64 prints every digit (numeric-only result)',
      sql: 'select u from fix.u',
      check: (json, text) => {
        expect(json.column_meta).toEqual([['u', 'BIGINT UNSIGNED', 8]])
        expect(json.rows).toBe(ROWS)
        expect(text).toContain(`"data":[${exactColumn(us)}]`)
      },
    },
    {
      name: 'BIGINT near 2^63 prints every digit (numeric-only result)',
      sql: 'select b from fix.u',
      check: (json, text) => {
        expect(json.column_meta).toEqual([['b', 'BIGINT', 8]])
        expect(text).toContain(`"data":[${exactColumn(bs)}]`)
      },
    },
    {
      name: 'BIGINT UNSIGNED and BIGINT beside a timestamp, and their extremes',
      sql: 'select ts, u, b from fix.u limit 1',
      check: (_json, text) => {
        expect(text).toContain(`"data":[["2023-11-14T22:13:20.000Z",${U0},${B0}]]`)
      },
    },
    { name: 'sqlfix: insert BIGINT minimum', sql: `insert into fix.u values (1699999999999, 18446744073709551615, ${minB})`, expect: exec(1) },
    {
      name: 'max of BIGINT UNSIGNED and min of BIGINT are exact',
      sql: 'select max(u), min(b) from fix.u',
      check: (_json, text) => {
        expect(text).toContain(`"data":[[18446744073709551615,${minB}]]`)
      },
    },
    { name: 'sqlfix: create m', sql: 'create table fix.m (ts timestamp, i int, d double, s varchar(10))', expect: exec(0) },
    { name: 'sqlfix: insert m', sql: "insert into fix.m values (1700000000000, 3, 2.5, 'b') (1700000000001, null, 7.5, 'a')", expect: exec(2) },
    {
      name: 'MATCH with a malformed regular expression answers 9857',
      sql: "select * from fix.m where s match '('",
      expect: err(9857, 'Syntax error in regular expression'),
    },
    {
      name: 'DIFF beside an aggregate answers 9807',
      sql: 'select diff(i), count(*) from fix.m',
      expect: err(9807, 'Some functions are allowed only in the SELECT list of a query. And, cannot be mixed with other non scalar functions or columns.'),
    },
    {
      name: 'DIFF in a window answers 9807 with the function named',
      sql: 'select diff(i) from fix.m interval(1s)',
      expect: err(9807, 'diff function is not supported in window query or group query'),
    },
    {
      name: 'DERIVATIVE with GROUP BY answers 9807 with the function named',
      sql: 'select derivative(i, 1s, 0) from fix.m group by i',
      expect: err(9807, 'derivative function is not supported in window query or group query'),
    },
    {
      name: 'GREATEST / LEAST over integer constants: the widest type (BIGINT constants)',
      sql: 'select greatest(1, 2, 3), least(1, 2, 3) from fix.m limit 1',
      expect: rowsOf([['greatest(1, 2, 3)', 'BIGINT', 8], ['least(1, 2, 3)', 'BIGINT', 8]], [[3, 1]]),
    },
    {
      name: 'GREATEST / LEAST: a DOUBLE makes the result DOUBLE, a NULL argument makes it NULL',
      sql: 'select greatest(i, d), least(i, d) from fix.m',
      expect: rowsOf([['greatest(i, d)', 'DOUBLE', 8], ['least(i, d)', 'DOUBLE', 8]], [[3, 2.5], [null, null]]),
    },
    {
      name: 'GREATEST over strings compares as strings',
      sql: "select greatest(s, 'aa'), least(s, 'aa') from fix.m",
      expect: rowsOf([["greatest(s, 'aa')", 'VARCHAR', 10], ["least(s, 'aa')", 'VARCHAR', 10]], [['b', 'aa'], ['aa', 'a']]),
    },
    // C's IEEE results (sql-dialect.md: +-inf and NaN are null in the JSON); -0 keeps its sign
    {
      name: 'DOUBLE + - * past DBL_MAX give inf (null), an underflowing product 0, on every backend',
      sql: 'select 1e308 + 1e308, -1e308 - 1e308, 1e300 * 1e300, -1e300 * 1e300, 1e-300 * 1e-300, -1e-300 * 1e-300, 1e308 * 0.5, 5e-324 * 0.75',
      check: (json, text) => {
        expect(json.code).toBe(0)
        expect(text).toContain('"data":[[null,null,null,null,0,-0,5e+307,5e-324]]')
      },
    },
    { name: 'sqlfix: create f', sql: 'create table fix.f (ts timestamp, a double, b double)', expect: exec(0) },
    { name: 'sqlfix: insert f', sql: 'insert into fix.f values (1700000000000, 1e308, 10) (1700000000001, 1.5, 2) (1700000000002, 3, null)', expect: exec(3) },
    {
      name: 'DOUBLE overflow over columns: inf (null) row by row and through an aggregate, ordinary values unchanged',
      sql: 'select a * b, a + a, a - b, (a * b) * (a * b) + 1 from fix.f',
      expect: rowsOf(
        [['a * b', 'DOUBLE', 8], ['a + a', 'DOUBLE', 8], ['a - b', 'DOUBLE', 8], ['(a * b) * (a * b) + 1', 'DOUBLE', 8]],
        [[null, null, 1e308, null], [3, 3, -0.5, 10], [null, 6, null, null]],
      ),
    },
    { name: 'sum over an infinite product is inf (null)', sql: 'select sum(a * b) from fix.f', expect: rowsOf([['sum(a * b)', 'DOUBLE', 8]], [[null]]) },
    {
      name: 'CRC32 of strings (UTF-8 bytes), NULL for NULL, INT UNSIGNED; zlib as the oracle',
      sql: "select crc32(s), crc32('The quick brown fox jumps over the lazy dog'), crc32('你好'), crc32('') from fix.m",
      expect: rowsOf(
        [
          ['crc32(s)', 'INT UNSIGNED', 4],
          ["crc32('The quick brown fox jumps over the lazy dog')", 'INT UNSIGNED', 4],
          ["crc32('你好')", 'INT UNSIGNED', 4],
          ["crc32('')", 'INT UNSIGNED', 4],
        ],
        ['b', 'a'].map((v) => [crc32(v), crc32('The quick brown fox jumps over the lazy dog'), crc32(Buffer.from('你好', 'utf8')), 0]),
      ),
    },
    { name: 'CRC32 of a number is refused (10242)', sql: 'select crc32(i) from fix.m', expect: err(10242, 'Invalid function para type') },
    {
      name: 'TO_JSON of a string constant is a JSON value; an empty string or null is NULL',
      sql: `select to_json('{"k1": "v", "k2": 1.5, "k3": true, "k4": null}'), to_json(''), to_json('null')`,
      expect: rowsOf(
        [
          [`to_json('{"k1": "v", "k2": 1.5, "k3": true, "k4": null}')`, 'JSON', 4095],
          ["to_json('')", 'JSON', 4095],
          ["to_json('null')", 'JSON', 4095],
        ],
        [[{ k1: 'v', k2: 1.5, k3: true, k4: null }, null, null]],
      ),
    },
    { name: 'TO_JSON of a non-object answers 545', sql: "select to_json('[1, 2]')", expect: err(545, 'Invalid JSON format') },
    { name: 'TO_JSON with a nested object answers 546', sql: `select to_json('{"a": {"b": 1}}')`, expect: err(546, 'Invalid JSON data type') },
    { name: 'TO_JSON of a column is refused (10242)', sql: 'select to_json(s) from fix.m', expect: err(10242, 'Invalid function para type') },
    { name: 'sqlfix: drop database', sql: 'drop database fix', expect: exec(0) },
  ]
}
