import { expect } from 'vitest'
import type { Case } from './harness.js'
import { basic, err, exec } from './harness.js'

/**
 * Users and privileges through /rest/sql (TDengine 3): GRANT / REVOKE READ|WRITE|ALL ON db.*,
 * CREATEDB, ownership, SYSINFO, ENABLE, and what each user may then do. Refusals are 0x0303 (771)
 * with HTTP 200, as TDengine clients expect. Database names start with `pv_` (the conformance
 * server is shared with the other groups).
 */

const PASS = 'Pass_1234'
const as = (user: string): string => basic(user, PASS)
const NO_RIGHTS = err(771, expect.stringContaining('Insufficient privilege for operation'))
const ok = (json: { code: number }): void => {
  expect(json.code).toBe(0)
}

/** the statement run as `user` must succeed (code 0) or be refused with 771 */
function may(user: string, sql: string, allowed: boolean, note = ''): Case {
  return {
    name: `${user} ${allowed ? 'may' : 'may not'}: ${sql}${note}`,
    sql,
    auth: as(user),
    ...(allowed ? { check: ok } : { expect: NO_RIGHTS }),
  }
}

/** databases `user` sees in SHOW DATABASES */
function sees(user: string, present: string[], absent: string[]): Case {
  return {
    name: `${user} sees ${present.join(', ') || 'no pv_ database'} in show databases${absent.length > 0 ? ` and not ${absent.join(', ')}` : ''}`,
    sql: 'show databases',
    auth: as(user),
    check: (json) => {
      ok(json)
      const names = json.data.map((r: unknown[]) => r[0])
      expect(names).toEqual(expect.arrayContaining(['information_schema', 'performance_schema', ...present]))
      for (const a of absent) {
        expect(names).not.toContain(a)
      }
    },
  }
}

export function privilegeCases(): Case[] {
  const setup: Case[] = [
    { name: 'create user pv_owner with CREATEDB 1', sql: `create user pv_owner pass '${PASS}' sysinfo 1 createdb 1`, expect: exec(0) },
    ...['pv_reader', 'pv_writer', 'pv_all', 'pv_none'].map((u) => ({ name: `create user ${u}`, sql: `create user ${u} pass '${PASS}'`, expect: exec(0) })),
    { name: 'create user pv_nosys with SYSINFO 0', sql: `create user pv_nosys pass '${PASS}' sysinfo 0`, expect: exec(0) },
    // a user created without CREATEDB (the default) may not create databases
    may('pv_none', 'create database pv_nope', false),
    may('pv_owner', "create database pv_db precision 'ms'", true),
    may('pv_owner', 'create stable pv_db.m (ts timestamp, v int) tags (site varchar(16))', true),
    may('pv_owner', "insert into pv_db.d1 using pv_db.m tags ('a') values (1700000000000, 1)", true),
    { name: 'root creates a database of its own', sql: 'create database pv_root', expect: exec(0) },
    { name: 'root creates the stable pv_root.m', sql: 'create stable pv_root.m (ts timestamp, v int) tags (site varchar(16))', expect: exec(0) },
    { name: 'root writes a row into pv_root.m', sql: "insert into pv_root.d1 using pv_root.m tags ('r') values (1700000000000, 1)", expect: exec(1) },
  ]
  const grants: Case[] = [
    may('pv_owner', 'grant read on pv_db.* to pv_reader', false, ' (only super users grant)'),
    { name: 'grant read on db.* to pv_reader', sql: 'grant read on pv_db.* to pv_reader', expect: exec(0) },
    { name: 'grant write on db (without .*) to pv_writer', sql: 'GRANT WRITE ON pv_db TO pv_writer', expect: exec(0) },
    { name: 'grant all privileges to pv_all', sql: 'grant all privileges on pv_db.* to pv_all', expect: exec(0) },
    { name: 'granting again is not an error', sql: 'grant read on pv_db.* to pv_reader', expect: exec(0) },
    { name: 'grant to an unknown user is 849', sql: 'grant read on pv_db.* to pv_nosuch', expect: err(849, 'Invalid user') },
    { name: 'grant on an unknown database is 904', sql: 'grant read on pv_nosuch.* to pv_reader', expect: err(904, 'Database not exist') },
    { name: 'grant to a super user is 771', sql: 'grant read on pv_db.* to root', expect: NO_RIGHTS },
    { name: 'table-level grant is refused by name', sql: 'grant read on pv_db.d1 to pv_reader', expect: err(9728, expect.stringContaining('table-level privileges are not supported')) },
    { name: 'grant subscribe is refused by name', sql: 'grant subscribe on pv_db.* to pv_reader', expect: err(9728, expect.stringContaining('only READ, WRITE and ALL')) },
    {
      name: 'show user privileges lists each grant and root',
      sql: 'show user privileges',
      check: (json) => {
        ok(json)
        expect(json.column_meta.map((c: unknown[]) => c[0])).toEqual(['user_name', 'privilege', 'db_name', 'table_name', 'condition', 'notes'])
        const rows = json.data.filter((r: string[]) => r[0].startsWith('pv_') || r[0] === 'root').map((r: string[]) => r.slice(0, 3))
        expect(rows).toEqual(
          expect.arrayContaining([
            ['root', 'all', 'all'],
            ['pv_all', 'read', 'pv_db'],
            ['pv_all', 'write', 'pv_db'],
            ['pv_reader', 'read', 'pv_db'],
            ['pv_writer', 'write', 'pv_db'],
          ]),
        )
        expect(rows.filter((r: string[]) => r[0] === 'pv_reader')).toEqual([['pv_reader', 'read', 'pv_db']])
      },
    },
    {
      name: 'a user sees its own rows of ins_user_privileges only',
      sql: 'select user_name, privilege, db_name from information_schema.ins_user_privileges',
      auth: as('pv_reader'),
      expect: { code: 0, column_meta: [['user_name', 'VARCHAR', 24], ['privilege', 'VARCHAR', 10], ['db_name', 'VARCHAR', 65]], data: [['pv_reader', 'read', 'pv_db']], rows: 1 },
    },
  ]
  // the matrix: [statement, owner, reader, writer, all, none]
  const matrix: Array<[string, boolean, boolean, boolean, boolean, boolean]> = [
    ['select count(*) from pv_db.m', true, true, false, true, false],
    ['show pv_db.stables', true, true, true, true, false],
    ['describe pv_db.m', true, true, true, true, false],
    ['use pv_db', true, true, true, true, false],
    ["insert into pv_db.d1 (ts, v) values (now, 2)", true, false, true, true, false],
    ['create table pv_db.t_USER (ts timestamp, v int)', true, false, true, true, false],
    ['drop table pv_db.t_USER', true, false, true, true, false],
    ['alter stable pv_db.m add column c_USER int', true, false, true, true, false],
    ['select count(*) from pv_root.m', false, false, false, false, false],
    ['flush database pv_db', true, false, false, false, false],
    ['drop database pv_root', false, false, false, false, false],
  ]
  const users = ['pv_owner', 'pv_reader', 'pv_writer', 'pv_all', 'pv_none']
  const rules: Case[] = []
  for (const [sql, ...allowed] of matrix) {
    users.forEach((u, i) => {
      const text = sql.replace('USER', u)
      // a refused DROP TABLE would only meet a table that was never created: create it as root first
      if (!allowed[i] && text.startsWith('drop table')) {
        rules.push({ name: `root creates ${text.slice(11)} for ${u}`, sql: `create table ${text.slice(11)} (ts timestamp, v int)`, check: ok })
      }
      rules.push(may(u, text, allowed[i]))
    })
  }
  const visibility: Case[] = [
    sees('pv_reader', ['pv_db'], ['pv_root']),
    sees('pv_none', [], ['pv_db', 'pv_root']),
    sees('pv_owner', ['pv_db'], ['pv_root']),
    {
      name: 'ins_tables shows a user the tables of its databases only',
      sql: "select distinct db_name from information_schema.ins_tables where db_name like 'pv_%'",
      auth: as('pv_reader'),
      check: (json) => {
        ok(json)
        expect(json.data).toEqual([['pv_db']])
      },
    },
    { name: 'SYSINFO 0 may not read cluster information', sql: 'show dnodes', auth: as('pv_nosys'), expect: NO_RIGHTS },
    { name: 'SYSINFO 0 may still read its databases list', sql: 'show databases', auth: as('pv_nosys'), check: ok },
  ]
  const changes: Case[] = [
    { name: 'revoke read from pv_reader', sql: 'revoke read on pv_db.* from pv_reader', expect: exec(0) },
    may('pv_reader', 'select count(*) from pv_db.m', false, ' (after REVOKE)'),
    { name: 'revoke write from pv_all keeps its read', sql: 'revoke write on pv_db.* from pv_all', expect: exec(0) },
    may('pv_all', 'select count(*) from pv_db.m', true, ' (after REVOKE WRITE)'),
    may('pv_all', 'insert into pv_db.d1 (ts, v) values (now, 3)', false, ' (after REVOKE WRITE)'),
    { name: 'grant on *.* reaches every database', sql: 'grant read on *.* to pv_none', expect: exec(0) },
    may('pv_none', 'select count(*) from pv_root.m', true, ' (READ on *.*)'),
    may('pv_none', 'insert into pv_root.d1 values (now, 1)', false, ' (READ on *.* only)'),
    { name: 'revoke on *.*', sql: 'revoke all on *.* from pv_none', expect: exec(0) },
    may('pv_none', 'select count(*) from pv_root.m', false, ' (after REVOKE on *.*)'),
    { name: 'alter user pv_none createdb 1', sql: 'alter user pv_none createdb 1', expect: exec(0) },
    may('pv_none', 'create database pv_mine', true, ' (CREATEDB 1)'),
    may('pv_none', 'create table pv_mine.t (ts timestamp, v int)', true, ' (owner)'),
    may('pv_owner', 'drop database pv_mine', false, " (someone else's)"),
    may('pv_none', 'drop database pv_mine', true, ' (its own)'),
    { name: 'alter user pv_writer enable 0', sql: 'alter user pv_writer enable 0', expect: exec(0) },
    { name: 'a disabled user cannot log in', sql: 'select server_status()', auth: as('pv_writer'), status: 401, expect: err(855, 'Authentication failure') },
    { name: "nor through a configured token of that user (rest.tokens pvtoken=pv_writer)", sql: 'select server_status()', query: 'token=pvtoken', auth: null, status: 401, expect: err(855, 'Authentication failure') },
    { name: 'alter user pv_writer enable 1', sql: 'alter user pv_writer enable 1', expect: exec(0) },
    may('pv_writer', 'insert into pv_db.d1 (ts, v) values (now, 4)', true, ' (enabled again)'),
    { name: 'the token works again, with that user\'s privileges', sql: 'insert into pv_db.d1 (ts, v) values (now, 5)', query: 'token=pvtoken', auth: null, check: ok },
    // grants go with the database and with the user
    { name: 'the owner drops pv_db', sql: 'drop database pv_db', auth: as('pv_owner'), expect: exec(0) },
    { name: 'root creates pv_db again', sql: 'create database pv_db', expect: exec(0) },
    may('pv_writer', 'create table pv_db.t2 (ts timestamp, v int)', false, ' (grants went with the dropped database)'),
    { name: 'pv_owner does not own the new pv_db', sql: 'drop database pv_db', auth: as('pv_owner'), expect: NO_RIGHTS },
    { name: 'grant write again, then drop the user', sql: 'grant write on pv_db.* to pv_writer', expect: exec(0) },
    { name: 'drop user pv_writer', sql: 'drop user pv_writer', expect: exec(0) },
    { name: 'create user pv_writer again', sql: `create user pv_writer pass '${PASS}'`, expect: exec(0) },
    may('pv_writer', 'create table pv_db.t3 (ts timestamp, v int)', false, ' (grants went with the dropped user)'),
    {
      name: 'show user privileges no longer lists the dropped grants',
      sql: 'show user privileges',
      check: (json) => {
        ok(json)
        expect(json.data.filter((r: string[]) => r[0].startsWith('pv_'))).toEqual([])
      },
    },
    { name: 'cleanup pv_db', sql: 'drop database pv_db', expect: exec(0) },
    { name: 'cleanup pv_root', sql: 'drop database pv_root', expect: exec(0) },
  ]
  return [...setup, ...grants, ...rules, ...visibility, ...changes]
}
