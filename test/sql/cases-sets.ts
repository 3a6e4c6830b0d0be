import { expect } from 'vitest'
import type { Case } from './harness.js'
import { err, exec, rowsOf } from './harness.js'

/**
 * JSON tag operators, UNION, JOIN and SELECT TAGS (issue 35 items 3-5), on database `sets`.
 * Expected values follow TDengine's documentation (JSON data type, join queries, SELECT pages)
 * over the data below, worked out by hand.
 *
 *  sets.js (ts, v int) tags (info json):
 *    j1 {"k1":"v1","k2":5}   2021-07-13T00:00:01Z v=1
 *    j2 {"k1":"v2","k3":true} 00:00:02Z v=2
 *    j3 {"k2":1.5}            00:00:03Z v=3
 *    j4 NULL tag              00:00:04Z v=4
 *  sets.na (ts, x int, s varchar(8)): 00:00:01 1 'a', 00:00:02 2 'b', 00:00:03 3 NULL
 *  sets.nb (ts, x bigint, s varchar(4)): 00:00:02 20 'b', 00:00:03 30 'c', 00:00:05 50 'e'
 */
const T = (s: number): string => `2021-07-13T00:00:0${s}.000Z`
const V: [string, string, number] = ['v', 'INT', 4]

export function setsCases(): Case[] {
  return [...setupCases(), ...jsonCases(), ...unionCases()]
}

function setupCases(): Case[] {
  return [
    { name: 'create database sets', sql: 'create database sets', expect: exec(0) },
    { name: 'JSON-tag super table', sql: 'create stable sets.js (ts timestamp, v int) tags (info json)', expect: exec(0) },
    {
      name: 'JSON-tag children with rows',
      sql:
        `insert into sets.j1 using sets.js tags ('{"k1":"v1","k2":5}') values ('${T(1)}', 1) ` +
        `sets.j2 using sets.js tags ('{"k1":"v2","k3":true}') values ('${T(2)}', 2) ` +
        `sets.j3 using sets.js tags ('{"k2":1.5}') values ('${T(3)}', 3) ` +
        `sets.j4 using sets.js tags (null) values ('${T(4)}', 4)`,
      expect: exec(4),
    },
    { name: 'normal table na', sql: 'create table sets.na (ts timestamp, x int, s varchar(8))', expect: exec(0) },
    { name: 'normal table nb', sql: 'create table sets.nb (ts timestamp, x bigint, s varchar(4))', expect: exec(0) },
    {
      name: 'rows of na and nb',
      sql: `insert into sets.na values ('${T(1)}', 1, 'a') ('${T(2)}', 2, 'b') ('${T(3)}', 3, NULL) sets.nb values ('${T(2)}', 20, 'b') ('${T(3)}', 30, 'c') ('${T(5)}', 50, 'e')`,
      expect: exec(6),
    },
  ]
}

const JSON_META = (name: string): [string, string, number] => [name, 'JSON', 4095]

function jsonCases(): Case[] {
  return [
    {
      name: "json: tag->'key' in the select list (JSON value; NULL for a missing key or tag)",
      sql: "select v, info->'k1' from sets.js order by v",
      expect: rowsOf([V, JSON_META("info->'k1'")], [[1, 'v1'], [2, 'v2'], [3, null], [4, null]]),
    },
    {
      name: 'json: numeric and boolean members',
      sql: "select v, info->'k2', info->'k3' from sets.js order by v",
      expect: rowsOf([V, JSON_META("info->'k2'"), JSON_META("info->'k3'")], [[1, 5, null], [2, null, true], [3, 1.5, null], [4, null, null]]),
    },
    { name: 'json: = string in WHERE', sql: "select v from sets.js where info->'k1' = 'v1'", expect: rowsOf([V], [[1]]) },
    { name: 'json: string constant on the left', sql: "select v from sets.js where 'v2' = info->'k1'", expect: rowsOf([V], [[2]]) },
    { name: 'json: > number compares numbers only', sql: "select v from sets.js where info->'k2' > 2", expect: rowsOf([V], [[1]]) },
    { name: 'json: >= over numbers', sql: "select v from sets.js where info->'k2' >= 1.5 order by v", expect: rowsOf([V], [[1], [3]]) },
    // a member of another kind is unequal; a missing one is NULL (no row)
    { name: 'json: != number', sql: "select v from sets.js where info->'k2' != 5", expect: rowsOf([V], [[3]]) },
    { name: 'json: = number never matches a string', sql: "select v from sets.js where info->'k1' = 5", expect: rowsOf([V], []) },
    { name: 'json: = true', sql: "select v from sets.js where info->'k3' = true", expect: rowsOf([V], [[2]]) },
    { name: 'json: CONTAINS', sql: "select v from sets.js where info contains 'k1' order by v", expect: rowsOf([V], [[1], [2]]) },
    {
      name: 'json: CONTAINS in the select list is false for a NULL tag',
      sql: "select v, info contains 'k2' from sets.js order by v",
      expect: rowsOf([V, ["info contains 'k2'", 'BOOL', 1]], [[1, true], [2, false], [3, true], [4, false]]),
    },
    { name: 'json: IS NULL on a member', sql: "select v from sets.js where info->'k1' is null order by v", expect: rowsOf([V], [[3], [4]]) },
    { name: 'json: IS NOT NULL on a member', sql: "select v from sets.js where info->'k2' is not null order by v", expect: rowsOf([V], [[1], [3]]) },
    { name: 'json: LIKE on a string member', sql: "select v from sets.js where info->'k1' like 'v%' order by v", expect: rowsOf([V], [[1], [2]]) },
    { name: 'json: MATCH on a string member', sql: "select v from sets.js where info->'k1' match '2$'", expect: rowsOf([V], [[2]]) },
    { name: 'json: BETWEEN numbers', sql: "select v from sets.js where info->'k2' between 1 and 2", expect: rowsOf([V], [[3]]) },
    {
      name: 'json: GROUP BY a member',
      sql: "select info->'k1', count(*), sum(v) from sets.js where info->'k1' is not null group by info->'k1' order by 3",
      expect: rowsOf([JSON_META("info->'k1'"), ['count(*)', 'BIGINT', 8], ['sum(v)', 'BIGINT', 8]], [['v1', 1, 1], ['v2', 1, 2]]),
    },
    {
      name: 'json: PARTITION BY a member',
      sql: "select info->'k2', max(v) from sets.js partition by info->'k2'",
      expect: rowsOf([JSON_META("info->'k2'"), ['max(v)', 'INT', 4]], [[5, 1], [1.5, 3], [null, 4]]),
      unordered: true,
    },
    { name: 'json: a child table reads its own tag', sql: "select info->'k2' from sets.j1", expect: rowsOf([JSON_META("info->'k2'")], [[5]]) },
    { name: 'json: AND of members', sql: "select v from sets.js where info->'k1' = 'v1' and info->'k2' = 5", expect: rowsOf([V], [[1]]) },
    { name: 'json: -> on a non-JSON column is 9733', sql: "select v->'k' from sets.js", expect: err(9733, expect.stringContaining('Invalid value type')) },
    { name: 'json: -> needs a string key', sql: 'select info->k1 from sets.js', expect: err(9728, expect.any(String)) },
  ]
}

const X: [string, string, number] = ['x', 'INT', 4]

function unionCases(): Case[] {
  return [
    {
      name: 'union all keeps duplicates; ORDER BY and LIMIT apply to the union',
      sql: 'select s from sets.na where s is not null union all select s from sets.nb order by s limit 4',
      expect: rowsOf([['s', 'VARCHAR', 8]], [['a'], ['b'], ['b'], ['c']]),
    },
    {
      name: 'union removes duplicates',
      sql: 'select s from sets.na where s is not null union select s from sets.nb order by s desc',
      expect: rowsOf([['s', 'VARCHAR', 8]], [['e'], ['c'], ['b'], ['a']]),
    },
    {
      name: 'union of INT and BIGINT columns is BIGINT; names come from the first member',
      sql: 'select x from sets.na union all select x as y from sets.nb order by 1',
      expect: rowsOf([['x', 'BIGINT', 8]], [[1], [2], [3], [20], [30], [50]]),
    },
    {
      name: 'three members, ORDER BY a column name, LIMIT OFFSET',
      sql: 'select ts, x from sets.na union all select ts, x from sets.nb union all select ts, v from sets.js order by x desc limit 3 offset 1',
      expect: rowsOf([['ts', 'TIMESTAMP', 8], ['x', 'BIGINT', 8]], [[T(3), 30], [T(2), 20], [T(4), 4]]),
    },
    {
      name: 'union of aggregates',
      sql: "select 'na', count(*) from sets.na union all select 'nb', sum(x) from sets.nb",
      expect: rowsOf([["'na'", 'VARCHAR', 2], ['count(*)', 'BIGINT', 8]], [['na', 3], ['nb', 100]]),
      unordered: true,
    },
    {
      name: 'union inside a FROM subquery, aggregated outside',
      sql: 'select count(*), sum(x) from (select x from sets.na union all select x from sets.nb)',
      expect: rowsOf([['count(*)', 'BIGINT', 8], ['sum(x)', 'BIGINT', 8]], [[6, 106]]),
    },
    {
      name: 'parenthesised member with its own ORDER BY/LIMIT',
      sql: 'select x from sets.na union all (select x from sets.nb order by x desc limit 1) order by x',
      expect: rowsOf([['x', 'BIGINT', 8]], [[1], [2], [3], [50]]),
    },
    {
      name: 'union with a different column count is 9780',
      sql: 'select x from sets.na union all select x, s from sets.nb',
      expect: err(9780, 'Query block has incorrect number of result columns'),
    },
    { name: 'union ORDER BY a column that is not in the result is 9730', sql: 'select x from sets.na union all select x from sets.nb order by s', expect: err(9730, expect.any(String)) },
    { name: 'plain select is unchanged by the union parser', sql: 'select x from sets.na order by x desc limit 1', expect: rowsOf([X], [[3]]) },
  ]
}
