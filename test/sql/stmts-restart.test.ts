import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ROOT, startServer } from './harness.js'

/**
 * DELETE, INSERT ... SELECT, RENAME, COMMENT and ALTER DATABASE are durable: after a restart on
 * the same DuckDB file the data and the catalog read back as they were left.
 */
describe('issue 35 statements survive a restart (DuckDB file)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'stmts-restart-'))
  const url = `duckdb:${join(dir, 'db.duckdb')}`
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  const run = async (base: string, sql: string): Promise<any> => {
    const res = await fetch(`${base}/rest/sql`, { method: 'POST', headers: { Authorization: ROOT }, body: sql })
    const json: any = await res.json()
    expect(json.code, `${sql}: ${JSON.stringify(json)}`).toBe(0)
    return json
  }

  it('reads back deleted rows as gone, renamed names, comments and options', async () => {
    const t0 = Date.now() - 60_000
    const first = await startServer(url)
    try {
      for (const sql of [
        'create database r',
        "create stable r.st (ts timestamp, v int) tags (g int) comment 'kept'",
        `insert into r.c1 using r.st tags (1) values (${t0}, 1) (${t0 + 1}, 2) (${t0 + 2}, 3)`,
        'create table r.nt (ts timestamp, x int)',
        'insert into r.nt select ts, v * 10 from r.c1',
        `delete from r.st where ts = ${t0 + 1}`,
        `delete from r.nt where ts > ${t0 + 1}`,
        'alter stable r.st rename tag g grp',
        'alter table r.nt rename column x y',
        "alter table r.nt comment 'normal'",
        "alter database r cachemodel 'last_value' cachesize 3",
      ]) {
        await run(first.url, sql)
      }
    } finally {
      await first.stop()
    }
    const second = await startServer(url)
    try {
      expect((await run(second.url, 'select v, grp from r.st order by v')).data).toEqual([
        [1, 1],
        [3, 1],
      ])
      expect((await run(second.url, 'select y from r.nt order by ts')).data).toEqual([[10], [20]])
      expect((await run(second.url, "select stable_name, table_comment from information_schema.ins_stables where db_name = 'r'")).data).toEqual([['st', 'kept']])
      expect((await run(second.url, "select table_comment from information_schema.ins_tables where db_name = 'r' and table_name = 'nt'")).data).toEqual([['normal']])
      expect((await run(second.url, "select cachemodel, cachesize from information_schema.ins_databases where name = 'r'")).data).toEqual([['last_value', 3]])
      expect((await run(second.url, "select tag_name, tag_value from information_schema.ins_tags where db_name = 'r'")).data).toEqual([['grp', '1']])
    } finally {
      await second.stop()
    }
  })
})
