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
 */
const T = (s: number): string => `2021-07-13T00:00:0${s}.000Z`
const V: [string, string, number] = ['v', 'INT', 4]

export function setsCases(): Case[] {
  return [...setupCases(), ...jsonCases()]
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
