import { describe, expect, it } from 'vitest'
import { insertRows } from './parse-insert.js'
import { parseStatement } from './parser.js'

function fails(sql: string): { code: number; desc: string } {
  try {
    parseStatement(sql)
  } catch (e) {
    const err = e as { code: number; desc: string }
    return { code: err.code, desc: err.desc }
  }
  throw new Error(`expected a parse error for ${sql}`)
}

// spans are source offsets; `sp(sql, text)` finds the text's span so expectations stay readable
function sp(sql: string, text: string, from = 0): { start: number; end: number } {
  const start = sql.indexOf(text, from)
  if (start < 0) {
    throw new Error(`${text} not in ${sql}`)
  }
  return { start, end: start + text.length }
}

describe('databases', () => {
  it('parses CREATE DATABASE with options', () => {
    expect(
      parseStatement("create database if not exists Power precision 'us' keep 365d,730d,3650d duration 10 vgroups 4 cachemodel 'last_row' table_prefix -1"),
    ).toEqual({
      type: 'createDatabase',
      name: 'power',
      ifNotExists: true,
      options: { precision: 'us', keep: '365d,730d,3650d', duration: '10', vgroups: 4, cachemodel: 'last_row', table_prefix: -1 },
    })
  })

  it('rejects unknown and 2.x-only options', () => {
    expect(fails('create database db days 10')).toEqual({ code: 9728, desc: 'syntax error near "days 10"' })
    expect(fails('create database db bogus 1')).toEqual({ code: 9728, desc: 'syntax error near "bogus 1"' })
  })

  it('parses DROP/USE/ALTER and maintenance statements', () => {
    expect(parseStatement('DROP DATABASE IF EXISTS db;')).toEqual({ type: 'dropDatabase', name: 'db', ifExists: true })
    expect(parseStatement('use `Db1`')).toEqual({ type: 'useDatabase', name: 'Db1' })
    expect(parseStatement('alter database db cachemodel "both" wal_level 2')).toEqual({
      type: 'alterDatabase',
      name: 'db',
      options: { cachemodel: 'both', wal_level: 2 },
    })
    expect(parseStatement('compact database db')).toEqual({ type: 'databaseMaintenance', op: 'compact', name: 'db' })
  })
})

describe('tables', () => {
  it('parses CREATE STABLE with every type', () => {
    const sql =
      'CREATE STABLE IF NOT EXISTS power.meters (ts TIMESTAMP, b BOOL, ti TINYINT UNSIGNED, si SMALLINT, i INT, bi BIGINT UNSIGNED, f FLOAT, d DOUBLE, v BINARY(16), n NCHAR(8)) TAGS (info JSON) COMMENT \'m\''
    expect(parseStatement(sql)).toEqual({
      type: 'createStable',
      table: { db: 'power', name: 'meters', span: sp(sql, 'power.meters') },
      ifNotExists: true,
      columns: [
        { name: 'ts', type: 'TIMESTAMP', span: sp(sql, 'ts TIMESTAMP') },
        { name: 'b', type: 'BOOL', span: sp(sql, 'b BOOL') },
        { name: 'ti', type: 'TINYINT UNSIGNED', span: sp(sql, 'ti TINYINT UNSIGNED') },
        { name: 'si', type: 'SMALLINT', span: sp(sql, 'si SMALLINT') },
        { name: 'i', type: 'INT', span: sp(sql, 'i INT') },
        { name: 'bi', type: 'BIGINT UNSIGNED', span: sp(sql, 'bi BIGINT UNSIGNED') },
        { name: 'f', type: 'FLOAT', span: sp(sql, 'f FLOAT') },
        { name: 'd', type: 'DOUBLE', span: sp(sql, 'd DOUBLE') },
        { name: 'v', type: 'VARCHAR', length: 16, span: sp(sql, 'v BINARY(16)') },
        { name: 'n', type: 'NCHAR', length: 8, span: sp(sql, 'n NCHAR(8)') },
      ],
      tags: [{ name: 'info', type: 'JSON', span: sp(sql, 'info JSON') }],
      comment: 'm',
    })
  })

  it('treats CREATE TABLE ... TAGS as CREATE STABLE and plain CREATE TABLE as a normal table', () => {
    const s1 = parseStatement('create table st (ts timestamp, v int) tags (t int)')
    expect(s1.type).toBe('createStable')
    const sql = 'create table t (ts timestamp, `Value` double) ttl 7'
    expect(parseStatement(sql)).toEqual({
      type: 'createTables',
      tables: [
        {
          kind: 'normal',
          table: { name: 't', span: { start: 13, end: 14 } },
          ifNotExists: false,
          columns: [
            { name: 'ts', type: 'TIMESTAMP', span: sp(sql, 'ts timestamp') },
            { name: 'Value', type: 'DOUBLE', span: sp(sql, '`Value` double') },
          ],
          ttl: 7,
        },
      ],
    })
  })

  it('parses several children in one CREATE TABLE', () => {
    const sql = "create table d1 using st tags ('a', 1) if not exists db.d2 using db.st (g) tags (-2)"
    expect(parseStatement(sql)).toEqual({
      type: 'createTables',
      tables: [
        {
          kind: 'child',
          table: { name: 'd1', span: sp(sql, 'd1') },
          ifNotExists: false,
          using: {
            stable: { name: 'st', span: sp(sql, 'st') },
            tagValues: [
              { kind: 'string', value: 'a', span: sp(sql, "'a'") },
              { kind: 'number', text: '1', span: { start: sql.indexOf('1)'), end: sql.indexOf('1)') + 1 } },
            ],
          },
        },
        {
          kind: 'child',
          table: { db: 'db', name: 'd2', span: sp(sql, 'db.d2') },
          ifNotExists: true,
          using: {
            stable: { db: 'db', name: 'st', span: sp(sql, 'db.st') },
            tagNames: ['g'],
            tagValues: [{ kind: 'number', text: '-2', span: sp(sql, '-2') }],
          },
        },
      ],
    })
  })

  it('parses DROP TABLE lists and DROP STABLE', () => {
    const sql = 'drop table if exists a, db.b'
    expect(parseStatement(sql)).toEqual({
      type: 'dropTables',
      tables: [
        { table: { name: 'a', span: { start: 21, end: 22 } }, ifExists: true },
        { table: { db: 'db', name: 'b', span: sp(sql, 'db.b') }, ifExists: false },
      ],
    })
    expect(parseStatement('drop stable st')).toMatchObject({ type: 'dropStable', table: { name: 'st' }, ifExists: false })
  })

  it('parses ALTER actions', () => {
    expect(parseStatement('alter stable st add column c2 varchar(10)')).toMatchObject({
      type: 'alterTable',
      target: 'stable',
      action: { kind: 'addColumn', column: { name: 'c2', type: 'VARCHAR', length: 10 } },
    })
    expect(parseStatement('alter stable st modify tag loc nchar(64)')).toMatchObject({
      action: { kind: 'modifyTag', column: { name: 'loc', type: 'NCHAR', length: 64 } },
    })
    expect(parseStatement('alter stable st drop tag t1')).toMatchObject({ action: { kind: 'dropTag', name: 't1' } })
    expect(parseStatement('alter table d1 set tag loc = "x", g = 3')).toMatchObject({
      target: 'table',
      action: {
        kind: 'setTag',
        values: [
          { name: 'loc', value: { kind: 'string', value: 'x' } },
          { name: 'g', value: { kind: 'number', text: '3' } },
        ],
      },
    })
    expect(parseStatement("alter table t comment 'c' ttl 3")).toMatchObject({ action: { kind: 'options', options: { comment: 'c', ttl: 3 } } })
  })

  it('reports unsupported types as syntax errors', () => {
    expect(fails('create table t (ts timestamp, g geometry(10))')).toEqual({ code: 9728, desc: 'syntax error near "geometry(10))"' })
    expect(fails('create table t (ts timestamp, v varchar)')).toEqual({ code: 9728, desc: 'syntax error near ")"' })
  })
})

describe('INSERT', () => {
  it('parses multi-row, multi-table inserts with USING and column lists', () => {
    const sql =
      "insert into d1 using st (g) tags (2) (ts, v) values (now, 1.5) (now() + 1s - 5m, -3) db.d2 values ('2021-07-13 14:06:32.272', null, true, 1626164208000)"
    const stmt = parseStatement(sql)
    if (stmt.type !== 'insert') {
      throw new Error('not an insert')
    }
    // the lexer found the leading plain tuples; the rest were parsed
    expect(stmt.targets.map((t) => [t.plain?.count ?? 0, t.rows.length])).toEqual([
      [1, 1],
      [1, 0],
    ])
    stmt.targets = stmt.targets.map(({ plain, ...t }) => ({ ...t, rows: insertRows({ plain, ...t }) }))
    expect(stmt).toEqual({
      type: 'insert',
      targets: [
        {
          table: { name: 'd1', span: sp(sql, 'd1') },
          using: {
            stable: { name: 'st', span: sp(sql, 'st') },
            tagNames: ['g'],
            tagValues: [{ kind: 'number', text: '2', span: { start: sql.indexOf('2)'), end: sql.indexOf('2)') + 1 } }],
          },
          columns: [
            { name: 'ts', span: { start: sql.indexOf('ts,'), end: sql.indexOf('ts,') + 2 } },
            { name: 'v', span: { start: sql.indexOf('v)'), end: sql.indexOf('v)') + 1 } },
          ],
          rows: [
            [
              { kind: 'now', span: sp(sql, 'now') },
              { kind: 'number', text: '1.5', span: sp(sql, '1.5') },
            ],
            [
              {
                kind: 'now',
                span: sp(sql, 'now() + 1s - 5m'),
                deltas: [
                  { sign: 1, value: 1, unit: 's' },
                  { sign: -1, value: 5, unit: 'm' },
                ],
              },
              { kind: 'number', text: '-3', span: sp(sql, '-3') },
            ],
          ],
        },
        {
          table: { db: 'db', name: 'd2', span: sp(sql, 'db.d2') },
          rows: [
            [
              { kind: 'string', value: '2021-07-13 14:06:32.272', span: sp(sql, "'2021-07-13 14:06:32.272'") },
              { kind: 'null', span: sp(sql, 'null') },
              { kind: 'bool', value: true, span: sp(sql, 'true') },
              { kind: 'number', text: '1626164208000', span: sp(sql, '1626164208000') },
            ],
          ],
        },
      ],
    })
  })

  it('parses the supertable syntax', () => {
    const stmt = parseStatement("INSERT INTO meters(tbname, location, groupId, ts, current) VALUES ('d31001','CA',2,'2021-07-13 14:06:34.630',10.2)")
    expect(stmt).toMatchObject({
      type: 'insert',
      targets: [{ table: { name: 'meters' }, columns: [{ name: 'tbname' }, { name: 'location' }, { name: 'groupid' }, { name: 'ts' }, { name: 'current' }] }],
    })
  })

  it('reports INSERT syntax errors in the insert-parser form (534)', () => {
    expect(fails('insert into d1 (1, 2)')).toEqual({ code: 9728, desc: 'syntax error near "1, 2)"' })
    expect(fails('insert into d1 vals (1, 2)')).toEqual({ code: 534, desc: "syntax error near 'vals (1, 2)' (keyword VALUES or FILE is expected)" })
    expect(fails('insert into d1 values (now, abc)')).toEqual({ code: 534, desc: "syntax error near 'abc)' (invalid data or symbol)" })
    expect(fails("insert into d1 file '/tmp/x.csv'")).toMatchObject({ code: 534 })
  })
})

describe('SHOW and DESCRIBE', () => {
  it('parses the SHOW family', () => {
    expect(parseStatement('show databases')).toEqual({ type: 'show', show: { what: 'databases' } })
    expect(parseStatement('SHOW USER DATABASES')).toEqual({ type: 'show', show: { what: 'databases' } })
    expect(parseStatement("show power.stables like 'me%'")).toEqual({ type: 'show', show: { what: 'stables', db: 'power', like: 'me%' } })
    expect(parseStatement('show tables')).toEqual({ type: 'show', show: { what: 'tables' } })
    expect(parseStatement('show child db.tables')).toEqual({ type: 'show', show: { what: 'tables', db: 'db', tableKind: 'child' } })
    expect(parseStatement('show db.vgroups')).toEqual({ type: 'show', show: { what: 'vgroups', db: 'db' } })
    expect(parseStatement('show users')).toEqual({ type: 'show', show: { what: 'users' } })
    expect(parseStatement('show create database db')).toEqual({ type: 'show', show: { what: 'createDatabase', name: 'db' } })
    expect(parseStatement('show create stable db.st')).toMatchObject({ show: { what: 'createTable', stable: true, table: { db: 'db', name: 'st' } } })
    expect(parseStatement('show tags from d1 from db')).toMatchObject({ show: { what: 'tags', table: { db: 'db', name: 'd1' } } })
    expect(parseStatement('show table tags from st')).toMatchObject({ show: { what: 'tableTags', table: { name: 'st' } } })
    expect(parseStatement('show dnodes')).toEqual({ type: 'show', show: { what: 'other', object: 'dnodes' } })
    expect(parseStatement('show local variables')).toEqual({ type: 'show', show: { what: 'other', object: 'localVariables' } })
    expect(parseStatement('show cluster alive')).toEqual({ type: 'show', show: { what: 'alive', cluster: true } })
  })

  it('reports the rest of the statement on a bad SHOW', () => {
    expect(fails('show database')).toEqual({ code: 9728, desc: 'syntax error near "database"' })
    expect(fails('show')).toEqual({ code: 9729, desc: 'Incomplete SQL statement' })
  })

  it('parses DESCRIBE and DESC', () => {
    const sql = 'describe db.t'
    expect(parseStatement(sql)).toEqual({ type: 'describe', table: { db: 'db', name: 't', span: sp(sql, 'db.t') } })
    expect(parseStatement('DESC t')).toMatchObject({ type: 'describe', table: { name: 't' } })
  })
})

describe('users', () => {
  it('parses CREATE/ALTER/DROP USER', () => {
    expect(parseStatement("create user u1 pass 'Secret_1' sysinfo 0 createdb 1")).toEqual({
      type: 'createUser',
      name: 'u1',
      password: 'Secret_1',
      sysinfo: false,
      createdb: true,
    })
    expect(parseStatement("alter user u1 pass 'x'")).toEqual({ type: 'alterUser', name: 'u1', change: { pass: 'x' } })
    expect(parseStatement('alter user u1 enable 0')).toEqual({ type: 'alterUser', name: 'u1', change: { enable: false } })
    expect(parseStatement('drop user u1')).toEqual({ type: 'dropUser', name: 'u1' })
    expect(fails('alter user u1 enable 2')).toEqual({ code: 9728, desc: 'syntax error near "2"' })
  })
})

describe('statement level', () => {
  it('delegates SELECT to the select parser, also when parenthesised', () => {
    expect(parseStatement('select 1').type).toBe('select')
    expect(parseStatement('(select ts from t)').type).toBe('select')
  })

  it('tolerates one trailing semicolon and rejects a second statement', () => {
    expect(parseStatement('use db;').type).toBe('useDatabase')
    expect(fails('use db; use db2')).toEqual({ code: 9728, desc: 'syntax error near "use db2"' })
    expect(fails('use db;;')).toEqual({ code: 9728, desc: 'syntax error near ";"' })
  })

  it('rejects unknown statements', () => {
    expect(fails('frobnicate all')).toEqual({ code: 9728, desc: 'syntax error near "frobnicate all"' })
  })
})
