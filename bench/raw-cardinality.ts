/**
 * The floor of the cardinality bench: per super table, the adapter's two physical tables (data
 * and `$tags`, no index, as its DuckDB dialect lays them out; `pair`) or the data table alone
 * (`single`: what one physical table per super table would cost), or two views over one shared
 * data and one shared tag table (`views`: the layout of super tables of one shape now), one row
 * each, made directly in DuckDB, checkpointed every 256 tables as the engine does. Started with
 * `<database file> <count> <pair|single|views> <memory_limit, e.g. 128MB, or 0>`; prints
 * `{"rssKiB": ...}`, the process's RSS after a final CHECKPOINT.
 */
import { DuckDBInstance } from '@duckdb/node-api'

const [file, count, mode, limit] = process.argv.slice(2)
const n = Number(count)
const db = await DuckDBInstance.create(file, limit && limit !== '0' ? { memory_limit: limit } : {})
const con = await db.connect()
await con.run(`SET checkpoint_threshold = '1GiB'`)
await con.run('CREATE SCHEMA c')
if (mode === 'views') {
  await con.run(`CREATE TABLE c."$d1" (_stid INTEGER NOT NULL, _tid INTEGER NOT NULL, ts BIGINT NOT NULL, v DOUBLE)`)
  await con.run(`CREATE TABLE c."$t2" (_stid INTEGER NOT NULL, _tid INTEGER, tbname VARCHAR NOT NULL, h VARCHAR)`)
}
for (let i = 0; i < n; i++) {
  if (mode === 'views') {
    await con.run(`CREATE VIEW c."m${i}" AS SELECT _tid, ts, v FROM c."$d1" WHERE _stid = ${i}`)
    await con.run(`CREATE VIEW c."m${i}$tags" AS SELECT _tid, tbname, h FROM c."$t2" WHERE _stid = ${i}`)
    await con.run(`INSERT INTO c."$t2" VALUES (${i}, ${i}, 't_0123456789abcdef0123456789abcdef', 'a')`)
    await con.run(`INSERT INTO c."$d1" VALUES (${i}, ${i}, 1700000000000, 1)`)
  } else {
    await con.run(`CREATE TABLE c."m${i}" (_tid INTEGER NOT NULL, ts BIGINT NOT NULL, v DOUBLE)`)
  }
  if (mode === 'pair') {
    await con.run(`CREATE TABLE c."m${i}$tags" (_tid INTEGER, tbname VARCHAR NOT NULL, h VARCHAR)`)
    await con.run(`INSERT INTO c."m${i}$tags" VALUES (1, 't_0123456789abcdef0123456789abcdef', 'a')`)
  }
  if (mode !== 'views') {
    await con.run(`INSERT INTO c."m${i}" VALUES (1, 1700000000000, 1)`)
  }
  if ((i + 1) % 256 === 0) {
    await con.run('CHECKPOINT')
  }
}
await con.run('CHECKPOINT')
process.stdout.write(JSON.stringify({ rssKiB: process.memoryUsage().rss / 1024 }))
con.closeSync()
