import pg from 'pg'
import type { PgContainer } from './pg-container.js'

let seq = 0

/**
 * A fresh, empty PostgreSQL database in the test container and its URL: suites that start
 * several servers (each expecting an empty catalog) get one database each instead of sharing.
 */
export async function freshDatabase(pgc: PgContainer, prefix = 'it'): Promise<string> {
  seq += 1
  const name = `${prefix}_${process.pid}_${seq}_${Date.now().toString(36)}`
  const admin = new pg.Client({ connectionString: pgc.url })
  await admin.connect()
  try {
    await admin.query(`CREATE DATABASE "${name}"`)
  } finally {
    await admin.end()
  }
  const u = new URL(pgc.url)
  u.pathname = `/${name}`
  return u.toString()
}
