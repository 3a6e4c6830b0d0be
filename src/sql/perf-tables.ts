import { isSuperUser } from './catalog/access.js'
import type { Catalog } from './catalog/types.js'
import type { SqlActivity } from './activity.js'
import type { ColumnMeta } from './result.js'

/**
 * performance_schema.perf_connections and perf_queries (column names and types as TDengine's
 * systable.c declares them; timestamps epoch ms like every system table). A user that is not
 * super sees its own connections and statements only.
 */

const PERF_CONNECTIONS_COLUMNS: ColumnMeta[] = [
  { name: 'conn_id', type: 'INT UNSIGNED', length: 4 },
  { name: 'user', type: 'VARCHAR', length: 24 },
  { name: 'app', type: 'VARCHAR', length: 24 },
  { name: 'pid', type: 'INT UNSIGNED', length: 4 },
  { name: 'end_point', type: 'VARCHAR', length: 128 },
  { name: 'login_time', type: 'TIMESTAMP', length: 8 },
  { name: 'last_access', type: 'TIMESTAMP', length: 8 },
]

const PERF_QUERIES_COLUMNS: ColumnMeta[] = [
  { name: 'kill_id', type: 'VARCHAR', length: 26 },
  { name: 'query_id', type: 'BIGINT UNSIGNED', length: 8 },
  { name: 'conn_id', type: 'INT UNSIGNED', length: 4 },
  { name: 'app', type: 'VARCHAR', length: 24 },
  { name: 'pid', type: 'INT', length: 4 },
  { name: 'user', type: 'VARCHAR', length: 24 },
  { name: 'end_point', type: 'VARCHAR', length: 128 },
  { name: 'create_time', type: 'TIMESTAMP', length: 8 },
  { name: 'exec_usec', type: 'BIGINT', length: 8 },
  { name: 'stable_query', type: 'BOOL', length: 1 },
  { name: 'sub_num', type: 'INT', length: 4 },
  { name: 'sub_status', type: 'VARCHAR', length: 1000 },
  { name: 'sql', type: 'VARCHAR', length: 1024 },
]

const cut = (s: string, n: number): string => (s.length > n ? s.slice(0, n) : s)

/** The rows of a performance_schema table this module answers, else undefined. */
export function perfTable(name: string, activity: SqlActivity, catalog: Catalog, user: string): { columns: ColumnMeta[]; rows: unknown[][] } | undefined {
  const lower = name.toLowerCase()
  if (lower !== 'perf_connections' && lower !== 'perf_queries') {
    return undefined
  }
  const all = isSuperUser(catalog, user)
  if (lower === 'perf_connections') {
    const rows = activity
      .connections()
      .filter((c) => all || c.user === user)
      .map((c) => [c.id, c.user, cut(c.app, 24), process.pid, cut(c.endpoint, 128), BigInt(c.loginMs), BigInt(c.lastMs)])
    return { columns: PERF_CONNECTIONS_COLUMNS, rows }
  }
  const now = performance.now()
  const rows = activity
    .queries()
    .filter((q) => all || q.user === user)
    .map((q) => [
      q.killId,
      BigInt(q.id),
      q.connId,
      cut(q.app, 24),
      process.pid,
      q.user,
      cut(q.endpoint, 128),
      BigInt(q.startMs),
      BigInt(Math.round((now - q.startHr) * 1000)),
      false,
      0,
      '',
      cut(q.sql, 1024),
    ])
  return { columns: PERF_QUERIES_COLUMNS, rows }
}
