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
  return [...setupCases(), ...jsonCases(), ...unionCases(), ...joinCases(), ...tagsCases(), ...moreJoinCases()]
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
    { name: 'json: IN over string constants', sql: "select v from sets.js where info->'k1' in ('v2', 'v9') order by v", expect: rowsOf([V], [[2]]) },
    { name: 'json: NOT IN keeps members of another kind, drops missing ones', sql: "select v from sets.js where info->'k2' not in (5) order by v", expect: rowsOf([V], [[3]]) },
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
    {
      name: 'json: DISTINCT over a member',
      sql: "select distinct info->'k1' from sets.js where info->'k1' is not null order by 1",
      expect: rowsOf([JSON_META("info->'k1'")], [['v1'], ['v2']]),
    },
    {
      name: 'json: ORDER BY a member DESC (NULLs first, as for any column)',
      sql: "select v from sets.js order by info->'k1' desc, v",
      expect: rowsOf([V], [[3], [4], [2], [1]]),
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
      sql: 'select s from sets.nb union all select s from sets.na where s is not null order by s limit 4',
      expect: rowsOf([['s', 'VARCHAR', 8]], [['a'], ['b'], ['b'], ['c']]),
    },
    {
      name: 'union removes duplicates',
      sql: 'select s from sets.na where s is not null union select s from sets.nb order by s desc',
      expect: rowsOf([['s', 'VARCHAR', 8]], [['e'], ['c'], ['b'], ['a']]),
    },
    {
      name: 'union: a BIGINT member is cast to the first member\'s INT; names come from the first member',
      sql: 'select x from sets.na union all select x as y from sets.nb order by 1',
      expect: rowsOf([['x', 'INT', 4]], [[1], [2], [3], [20], [30], [50]]),
    },
    {
      name: 'three members, ORDER BY a column name, LIMIT OFFSET',
      sql: 'select ts, x from sets.na union all select ts, x from sets.nb union all select ts, v from sets.js order by x desc limit 3 offset 1',
      expect: rowsOf([['ts', 'TIMESTAMP', 8], ['x', 'INT', 4]], [[T(3), 30], [T(2), 20], [T(4), 4]]),
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
      expect: rowsOf([['x', 'INT', 4]], [[1], [2], [3], [50]]),
    },
    {
      name: 'union: parenthesised first member at statement level',
      sql: '(select x from sets.na where x = 1) union all select x from sets.nb order by x desc limit 2',
      expect: rowsOf([X], [[50], [30]]),
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

const TS: [string, string, number] = ['ts', 'TIMESTAMP', 8]
const XB: [string, string, number] = ['x', 'BIGINT', 8]

/** na: 1 1a, 2 2b, 3 3NULL; nb: 2 20b, 3 30c, 5 50e (seconds of 2021-07-13T00:00:0s) */
function joinCases(): Case[] {
  return [
    {
      name: 'join: inner JOIN ON a.ts = b.ts',
      sql: 'select a.ts, a.x, b.x from sets.na a join sets.nb b on a.ts = b.ts',
      expect: rowsOf([TS, X, XB], [[T(2), 2, 20], [T(3), 3, 30]]),
    },
    {
      name: 'join: INNER JOIN with an extra condition in ON',
      sql: 'select a.x, b.x from sets.na a inner join sets.nb b on a.ts = b.ts and b.x > 25',
      expect: rowsOf([X, XB], [[3, 30]]),
    },
    {
      name: 'join: comma join with the condition in WHERE',
      sql: 'select a.x, b.s from sets.na a, sets.nb b where a.ts = b.ts and a.x >= 2 order by a.x desc',
      expect: rowsOf([X, ['s', 'VARCHAR', 4]], [[3, 'c'], [2, 'b']]),
    },
    {
      name: 'join: table names as qualifiers, JOIN without ON but WHERE',
      sql: 'select na.x, nb.x from sets.na join sets.nb where na.ts = nb.ts order by na.ts',
      expect: rowsOf([X, XB], [[2, 20], [3, 30]]),
    },
    {
      name: 'join: LEFT JOIN keeps unmatched left rows with NULLs',
      sql: 'select a.ts, a.x, b.x from sets.na a left join sets.nb b on a.ts = b.ts',
      expect: rowsOf([TS, X, XB], [[T(1), 1, null], [T(2), 2, 20], [T(3), 3, 30]]),
    },
    {
      name: 'join: LEFT OUTER JOIN with a right-side condition in ON',
      sql: 'select a.x, b.x from sets.na a left outer join sets.nb b on a.ts = b.ts and b.x > 25',
      expect: rowsOf([X, XB], [[1, null], [2, null], [3, 30]]),
    },
    {
      name: 'join: RIGHT JOIN is driven by the right table',
      sql: 'select b.ts, a.x, b.x from sets.na a right join sets.nb b on a.ts = b.ts',
      expect: rowsOf([TS, X, XB], [[T(2), 2, 20], [T(3), 3, 30], [T(5), null, 50]]),
    },
    {
      name: 'join: FULL JOIN',
      sql: 'select a.x, b.x from sets.na a full join sets.nb b on a.ts = b.ts order by a.x, b.x',
      expect: rowsOf([X, XB], [[1, null], [2, 20], [3, 30], [null, 50]]),
    },
    {
      name: 'join: select * lists both tables, a.* one',
      sql: 'select * from sets.na a join sets.nb b on a.ts = b.ts where a.x = 2',
      expect: rowsOf([TS, X, ['s', 'VARCHAR', 8], TS, XB, ['s', 'VARCHAR', 4]], [[T(2), 2, 'b', T(2), 20, 'b']]),
      then: async (_json, base) => {
        const res = await fetch(`${base}/rest/sql`, { method: 'POST', headers: { Authorization: 'Basic cm9vdDp0YW9zZGF0YQ==' }, body: 'select b.* from sets.na a join sets.nb b on a.ts = b.ts where a.x = 2' })
        expect(await res.json()).toEqual(rowsOf([TS, XB, ['s', 'VARCHAR', 4]], [[T(2), 20, 'b']]))
      },
    },
    {
      name: 'join: aggregate over a join',
      sql: 'select count(*), sum(a.x + b.x) from sets.na a join sets.nb b on a.ts = b.ts',
      expect: rowsOf([['count(*)', 'BIGINT', 8], ['sum(a.x + b.x)', 'DOUBLE', 8]], [[2, 55]]),
    },
    {
      name: 'join: LEFT SEMI JOIN returns left rows that have a match',
      sql: 'select a.ts, a.x from sets.na a left semi join sets.nb b on a.ts = b.ts and b.x > 25',
      expect: rowsOf([TS, X], [[T(3), 3]]),
    },
    {
      name: 'join: LEFT ANTI JOIN returns left rows without a match, right side NULL',
      sql: 'select a.ts, a.x, b.x from sets.na a left anti join sets.nb b on a.ts = b.ts',
      expect: rowsOf([TS, X, XB], [[T(1), 1, null]]),
    },
    {
      name: 'join: RIGHT ANTI JOIN',
      sql: 'select b.ts, b.x from sets.na a right anti join sets.nb b on a.ts = b.ts',
      expect: rowsOf([TS, XB], [[T(5), 50]]),
    },
    {
      name: 'join: LEFT ASOF JOIN (default rule: the closest right row at or before)',
      sql: 'select b.ts, b.x, a.x from sets.nb b left asof join sets.na a',
      expect: rowsOf([TS, XB, X], [[T(2), 20, 2], [T(3), 30, 3], [T(5), 50, 3]]),
    },
    {
      name: 'join: LEFT ASOF JOIN ON a.ts < b.ts (closest strictly after)',
      sql: 'select a.ts, a.x, b.x from sets.na a left asof join sets.nb b on a.ts < b.ts',
      expect: rowsOf([TS, X, XB], [[T(1), 1, 20], [T(2), 2, 30], [T(3), 3, 50]]),
    },
    {
      name: 'join: LEFT ASOF JOIN with JLIMIT 2',
      sql: 'select a.x, b.x from sets.na a left asof join sets.nb b on a.ts <= b.ts jlimit 2 order by a.x, b.x',
      expect: rowsOf([X, XB], [[1, 20], [1, 30], [2, 20], [2, 30], [3, 30], [3, 50]]),
    },
    {
      name: 'join: LEFT WINDOW JOIN rows within the window',
      sql: 'select a.x, b.x from sets.na a left window join sets.nb b window_offset(-1s, 0s) order by a.x, b.x',
      expect: rowsOf([X, XB], [[1, null], [2, 20], [3, 20], [3, 30]]),
    },
    {
      name: 'join: LEFT WINDOW JOIN with aggregates per window',
      sql: 'select a.ts, a.x, count(b.x), sum(b.x) from sets.na a left window join sets.nb b window_offset(-1s, 2s)',
      expect: rowsOf([TS, X, ['count(b.x)', 'BIGINT', 8], ['sum(b.x)', 'BIGINT', 8]], [[T(1), 1, 2, 50], [T(2), 2, 2, 50], [T(3), 3, 3, 100]]),
    },
    {
      name: 'join: super tables joined on the timestamp and a tag',
      sql: "select a.tbname, b.tbname from sets.js a join sets.js b on a.ts = b.ts and a.info->'k1' = b.info->'k1' order by a.v",
      expect: rowsOf([['tbname', 'VARCHAR', expect.any(Number)], ['tbname', 'VARCHAR', expect.any(Number)]], [['j1', 'j1'], ['j2', 'j2']]),
    },
    {
      name: 'join: child table joined with a normal table',
      sql: 'select j.v, n.x from sets.j2 j join sets.na n on j.ts = n.ts',
      expect: rowsOf([V, X], [[2, 2]]),
    },
    {
      name: 'join: a FROM subquery joined on its timestamp',
      sql: 'select a.x, q.y from sets.na a join (select ts, x * 2 as y from sets.nb) q on a.ts = q.ts',
      expect: rowsOf([X, ['y', 'DOUBLE', 8]], [[2, 40], [3, 60]]),
    },
    {
      name: 'join: three tables, inner',
      sql: 'select a.x, b.x, c.v from sets.na a, sets.nb b, sets.j3 c where a.ts = b.ts and b.ts = c.ts',
      expect: rowsOf([X, XB, V], [[3, 30, 3]]),
    },
    { name: 'join: a bare column name both tables have is 9732', sql: 'select x from sets.na a join sets.nb b on a.ts = b.ts', expect: err(9732, expect.stringContaining('ambiguous')) },
    {
      name: 'join: a bare column name only one table has needs no qualifier',
      sql: 'select v, x from sets.j2 a join sets.na b on a.ts = b.ts',
      expect: rowsOf([V, X], [[2, 2]]),
    },
    {
      name: 'join: a third table without its own timestamp equality is 9985',
      sql: 'select a.x from sets.na a, sets.nb b, sets.j3 c where a.ts = b.ts and c.v > 0',
      expect: err(9985, expect.any(String)),
    },
    { name: 'join: no timestamp equality is 9985', sql: 'select a.x from sets.na a join sets.nb b on a.x = b.x', expect: err(9985, 'primary timestamp equal condition is expected in join conditions') },
    { name: 'join: LEFT JOIN without timestamp equality is 9985', sql: 'select a.x from sets.na a left join sets.nb b on a.ts > b.ts', expect: err(9985, expect.any(String)) },
    { name: 'join: comma join without a condition is 9986', sql: 'select a.x from sets.na a, sets.nb b', expect: err(9986, 'not support cross join') },
    { name: 'join: the same alias twice is 9827', sql: 'select a.x from sets.na a join sets.nb a on a.ts = a.ts', expect: err(9827, 'Not unique table/alias') },
    {
      name: 'join: ASOF ON with a non-equality grouping condition is 9987',
      sql: 'select a.x from sets.na a left asof join sets.nb b on a.ts >= b.ts and a.x > b.x',
      expect: err(9987, 'Not supported join conditions'),
    },
  ]
}

/** sets.tg (ts, v int) tags (loc varchar(10), gid int): c1 (sf, 1) 2 rows, c2 (la, 2) 1 row, c3 (sf, 3) no rows */
function tagsCases(): Case[] {
  const LOC: [string, string, number] = ['loc', 'VARCHAR', 10]
  const GID: [string, string, number] = ['gid', 'INT', 4]
  return [
    { name: 'tags: super table', sql: 'create stable sets.tg (ts timestamp, v int) tags (loc varchar(10), gid int)', expect: exec(0) },
    {
      name: 'tags: children (c3 without rows)',
      sql: `insert into sets.c1 using sets.tg tags ('sf', 1) values ('${T(1)}', 1) ('${T(2)}', 2) sets.c2 using sets.tg tags ('la', 2) values ('${T(1)}', 3)`,
      expect: exec(3),
    },
    { name: 'tags: empty child', sql: "create table sets.c3 using sets.tg tags ('sf', 3)", expect: exec(0) },
    {
      name: 'tags: SELECT TAGS tag, tbname gives one row per child table',
      sql: 'select tags loc, tbname from sets.tg order by tbname',
      expect: rowsOf([LOC, ['tbname', 'VARCHAR', expect.any(Number)]], [['sf', 'c1'], ['la', 'c2'], ['sf', 'c3']]),
    },
    {
      name: 'tags: SELECT TAGS with WHERE on a tag',
      sql: "select tags tbname, gid from sets.tg where loc = 'sf' order by gid",
      expect: rowsOf([['tbname', 'VARCHAR', expect.any(Number)], GID], [['c1', 1], ['c3', 3]]),
    },
    { name: 'tags: SELECT TAGS of a child table', sql: 'select tags loc, gid from sets.c2', expect: rowsOf([LOC, GID], [['la', 2]]) },
    { name: 'tags: SELECT TAGS with count(*) counts child tables', sql: 'select tags count(*) from sets.tg', expect: rowsOf([['count(*)', 'BIGINT', 8]], [[3]]) },
    { name: 'tags: SELECT DISTINCT over a tag', sql: 'select distinct loc from sets.tg order by loc', expect: rowsOf([LOC], [['la'], ['sf']]) },
    { name: 'tags: SELECT TAGS of a normal table is 9829', sql: 'select tags x from sets.na', expect: err(9829, expect.stringContaining('_TAGS')) },
    { name: 'tags: SELECT TAGS of a data column is 9730', sql: 'select tags v from sets.tg', expect: err(9730, expect.any(String)) },
  ]
}

/** joins over the data of tagsCases too (sets.tg: c1 sf/1 rows 1s v=1, 2s v=2; c2 la/2 1s v=3) */
function moreJoinCases(): Case[] {
  return [
    {
      name: 'join: ASOF between super tables grouped by a tag equality',
      sql: 'select a.v, b.v from sets.tg a left asof join sets.tg b on a.ts > b.ts and a.loc = b.loc order by a.v',
      expect: rowsOf([V, V], [[1, null], [2, 1], [3, null]]),
    },
    {
      name: 'join: RIGHT WINDOW JOIN with an aggregate per right row',
      sql: 'select b.x, count(a.x) from sets.na a right window join sets.nb b window_offset(-1s, 1s)',
      expect: rowsOf([XB, ['count(a.x)', 'BIGINT', 8]], [[20, 3], [30, 2], [50, 0]]),
    },
    {
      name: 'join: WHERE over a LEFT JOIN result',
      sql: 'select a.x, b.x from sets.na a left join sets.nb b on a.ts = b.ts where b.x is null',
      expect: rowsOf([X, XB], [[1, null]]),
    },
    {
      name: 'join: INTERVAL over a join on its driving timestamp',
      sql: 'select _wstart, count(*), sum(b.x) from sets.na a join sets.nb b on a.ts = b.ts interval(1s)',
      expect: rowsOf([['_wstart', 'TIMESTAMP', 8], ['count(*)', 'BIGINT', 8], ['sum(b.x)', 'BIGINT', 8]], [[T(2), 1, 20], [T(3), 1, 30]]),
    },
    {
      name: 'join: GROUP BY a tag of a joined super table',
      sql: 'select a.loc, count(*) from sets.tg a join sets.na b on a.ts = b.ts group by a.loc order by a.loc',
      expect: rowsOf([['loc', 'VARCHAR', 10], ['count(*)', 'BIGINT', 8]], [['la', 1], ['sf', 2]]),
    },
    { name: 'join: WINDOW join without WINDOW_OFFSET is a syntax error', sql: 'select a.x from sets.na a left window join sets.nb b', expect: err(9728, expect.any(String)) },
    { name: 'join: JLIMIT above 1024 is refused', sql: 'select a.x from sets.na a left asof join sets.nb b jlimit 1025', expect: err(9728, expect.any(String)) },
    {
      name: 'join: LEFT JOIN of three tables is 9828',
      sql: 'select a.x from sets.na a left join sets.nb b on a.ts = b.ts left join sets.j1 c on a.ts = c.ts',
      expect: err(9828, expect.stringContaining('Not supported join')),
    },
  ]
}
