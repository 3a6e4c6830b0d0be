/**
 * The floor of the cardinality bench: per super table, the adapter's two physical tables (data
 * and `$tags`, no index, as its DuckDB dialect lays them out) with one row each, made directly in
 * DuckDB. Started with `<database file> <count>`; prints `{"kibPerStable": ...}`.
 */
import { DuckDBInstance } from '@duckdb/node-api'

const [file, count] = process.argv.slice(2)
const n = Number(count)
const db = await DuckDBInstance.create(file)
const con = await db.connect()
await con.run('CREATE SCHEMA c')
const rss = (): number => process.memoryUsage().rss / 1024
const before = rss()
for (let i = 0; i < n; i++) {
  await con.run(`CREATE TABLE c."m${i}" (_tid INTEGER NOT NULL, ts TIMESTAMP NOT NULL, v DOUBLE)`)
  await con.run(`CREATE TABLE c."m${i}$tags" (_tid INTEGER, tbname VARCHAR NOT NULL, h VARCHAR)`)
  await con.run(`INSERT INTO c."m${i}$tags" VALUES (1, 't_0123456789abcdef0123456789abcdef', 'a')`)
  await con.run(`INSERT INTO c."m${i}" VALUES (1, TIMESTAMP '2023-11-14 22:13:20', 1)`)
}
process.stdout.write(JSON.stringify({ kibPerStable: (rss() - before) / n }))
con.closeSync()
