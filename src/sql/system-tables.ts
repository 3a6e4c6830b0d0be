import type { ColumnDef, DatabaseInfo, TagValue } from '../storage/td-types.js'
import { isSuperUser, maySee, noRights } from './catalog/access.js'
import type { Catalog } from './catalog/types.js'
import type { ColumnMeta } from './result.js'
import { murmur3_32, vgroupOf } from './vgroup.js'

/**
 * information_schema as TDengine shows it (sql-dialect.md 4.3), computed from the catalog. Column
 * order, names, types and REST lengths follow systable.c. Every TIMESTAMP here is epoch ms (the
 * system tables' precision is `ms`), as bigint.
 */
interface SystemTable {
  columns: ColumnMeta[]
  rows: unknown[][]
}

/** Precision of every system-table TIMESTAMP column. */
export const SYSTEM_PRECISION = 'ms' as const

const PROCESS_START_MS = Date.now()
const ENDPOINT = 'localhost:6030'

function col(name: string, type: ColumnMeta['type'], length?: number): ColumnMeta {
  const fixed: Partial<Record<ColumnMeta['type'], number>> = {
    BOOL: 1,
    TINYINT: 1,
    SMALLINT: 2,
    INT: 4,
    BIGINT: 8,
    FLOAT: 4,
    DOUBLE: 8,
    TIMESTAMP: 8,
  }
  return { name, type, length: length ?? fixed[type] ?? 0 }
}

const V = (name: string, length: number): ColumnMeta => col(name, 'VARCHAR', length)
const TS = (name: string): ColumnMeta => col(name, 'TIMESTAMP')

const INS_DATABASES_COLUMNS: ColumnMeta[] = [
  V('name', 64),
  TS('create_time'),
  col('vgroups', 'INT'),
  col('ntables', 'BIGINT'),
  col('replica', 'TINYINT'),
  V('strict', 4),
  V('duration', 10),
  V('keep', 32),
  col('buffer', 'INT'),
  col('pagesize', 'INT'),
  col('pages', 'INT'),
  col('minrows', 'INT'),
  col('maxrows', 'INT'),
  col('comp', 'TINYINT'),
  V('precision', 2),
  V('status', 10),
  V('retentions', 60),
  col('single_stable', 'BOOL'),
  V('cachemodel', 11),
  col('cachesize', 'INT'),
  col('wal_level', 'TINYINT'),
  col('wal_fsync_period', 'INT'),
  col('wal_retention_period', 'INT'),
  col('wal_retention_size', 'BIGINT'),
  col('stt_trigger', 'SMALLINT'),
  col('table_prefix', 'SMALLINT'),
  col('table_suffix', 'SMALLINT'),
  col('tsdb_pagesize', 'INT'),
  col('keep_time_offset', 'INT'),
]

const INS_STABLES_COLUMNS: ColumnMeta[] = [
  V('stable_name', 192),
  V('db_name', 64),
  TS('create_time'),
  col('columns', 'INT'),
  col('tags', 'INT'),
  TS('last_update'),
  V('table_comment', 1024),
  V('watermark', 64),
  V('max_delay', 64),
  V('rollup', 128),
]

const INS_TABLES_COLUMNS: ColumnMeta[] = [
  V('table_name', 192),
  V('db_name', 64),
  TS('create_time'),
  col('columns', 'INT'),
  V('stable_name', 192),
  col('uid', 'BIGINT'),
  col('vgroup_id', 'INT'),
  col('ttl', 'INT'),
  V('table_comment', 1024),
  V('type', 21),
]

export const INS_TAGS_COLUMNS: ColumnMeta[] = [
  V('table_name', 192),
  V('db_name', 64),
  V('stable_name', 192),
  V('tag_name', 64),
  V('tag_type', 32),
  V('tag_value', 16384),
]

const INS_COLUMNS_COLUMNS: ColumnMeta[] = [
  V('table_name', 192),
  V('db_name', 64),
  V('table_type', 21),
  V('col_name', 64),
  V('col_type', 32),
  col('col_length', 'INT'),
  col('col_precision', 'INT'),
  col('col_scale', 'INT'),
  col('col_nullable', 'INT'),
]

const INS_USERS_COLUMNS: ColumnMeta[] = [
  V('name', 24),
  col('super', 'TINYINT'),
  col('enable', 'TINYINT'),
  col('sysinfo', 'TINYINT'),
  col('createdb', 'TINYINT'),
  TS('create_time'),
  V('allowed_host', 49152),
]

const INS_VGROUPS_COLUMNS: ColumnMeta[] = [
  col('vgroup_id', 'INT'),
  V('db_name', 64),
  col('tables', 'INT'),
  col('v1_dnode', 'SMALLINT'),
  V('v1_status', 9),
  col('v2_dnode', 'SMALLINT'),
  V('v2_status', 9),
  col('v3_dnode', 'SMALLINT'),
  V('v3_status', 9),
  col('v4_dnode', 'SMALLINT'),
  V('v4_status', 9),
  col('cacheload', 'INT'),
  col('cacheelements', 'INT'),
  col('tsma', 'TINYINT'),
]

/** names of the system tables this module answers (information_schema.<name>) */
const SYSTEM_TABLE_NAMES = [
  'ins_databases',
  'ins_stables',
  'ins_tables',
  'ins_tags',
  'ins_columns',
  'ins_users',
  'ins_user_privileges',
  'ins_vgroups',
  'ins_dnodes',
  'ins_mnodes',
  'ins_qnodes',
  'ins_cluster',
  'ins_configs',
  'ins_functions',
  'ins_indexes',
  'ins_streams',
  'ins_topics',
] as const

/** `VARCHAR(20)`, `NCHAR(10)`, `INT` ... as ins_tags / ins_columns / SHOW CREATE print types */
export function typeText(c: ColumnDef): string {
  return c.type === 'VARCHAR' || c.type === 'NCHAR' ? `${c.type}(${c.length})` : c.type
}

/** text form of a tag value (ins_tags.tag_value) */
export function tagValueText(v: TagValue | undefined): string | null {
  if (v === null || v === undefined) {
    return null
  }
  if (typeof v === 'object') {
    return JSON.stringify(v)
  }
  return String(v)
}

/** `10d`-style duration option text; plain numbers are days */
function daysText(v: string | number | undefined): string {
  const s = String(v ?? '')
  return /^\d+$/.test(s) ? `${s}d` : s
}

/** KEEP as TDengine prints it: three values (keep0,keep1,keep2), each with a unit */
export function keepText(v: string | number | undefined): string {
  const parts = String(v ?? '3650d').split(',').map((p) => daysText(p.trim()))
  while (parts.length < 3) {
    parts.push(parts[parts.length - 1])
  }
  return parts.join(',')
}

function num(v: string | number | undefined, dflt: number): number {
  const n = Number(v)
  return v === undefined || Number.isNaN(n) ? dflt : n
}

function databaseRow(catalog: Catalog, d: DatabaseInfo): unknown[] {
  const o = d.options
  return [
    d.name,
    BigInt(d.createdAt),
    d.vgroups,
    BigInt(catalog.listTables(d.name).length),
    num(o.replica, 1),
    String(o.strict ?? 'off'),
    daysText(o.duration ?? '10d'),
    keepText(o.keep),
    num(o.buffer, 256),
    num(o.pagesize, 4),
    num(o.pages, 256),
    num(o.minrows, 100),
    num(o.maxrows, 4096),
    num(o.comp, 2),
    d.precision,
    'ready',
    null,
    num(o.single_stable, 0) !== 0,
    String(o.cachemodel ?? 'none'),
    num(o.cachesize, 1),
    num(o.wal_level, 1),
    num(o.wal_fsync_period, 3000),
    num(o.wal_retention_period, 3600),
    BigInt(num(o.wal_retention_size, 0)),
    num(o.stt_trigger, 1),
    num(o.table_prefix, 0),
    num(o.table_suffix, 0),
    num(o.tsdb_pagesize, 4),
    num(o.keep_time_offset, 0),
  ]
}

function systemDbRow(name: string, ntables: number): unknown[] {
  const row: unknown[] = INS_DATABASES_COLUMNS.map(() => null)
  row[0] = name
  row[3] = BigInt(ntables)
  row[15] = 'ready'
  return row
}

/** a stable synthetic uid: TDengine uids are opaque int64s; ours derive from the name */
function uidOf(db: string, table: string): bigint {
  const bytes = new TextEncoder().encode(`${db}.${table}`)
  return (BigInt(murmur3_32(bytes, 0x9747b28c)) << 20n) | BigInt(murmur3_32(bytes) & 0xfffff)
}

function insDatabases(catalog: Catalog, dbs: DatabaseInfo[]): SystemTable {
  const rows = [systemDbRow('information_schema', SYSTEM_TABLE_NAMES.length), systemDbRow('performance_schema', 0)]
  for (const d of dbs) {
    rows.push(databaseRow(catalog, d))
  }
  return { columns: INS_DATABASES_COLUMNS, rows }
}

function insStables(catalog: Catalog, dbs: DatabaseInfo[]): SystemTable {
  const rows: unknown[][] = []
  for (const d of dbs) {
    for (const s of catalog.listStables(d.name)) {
      rows.push([
        s.name,
        d.name,
        BigInt(s.createdAt),
        s.columns.length,
        s.tags.length,
        BigInt(s.createdAt),
        s.comment ?? '',
        '5000a,5000a',
        '-1a,-1a',
        '',
      ])
    }
  }
  return { columns: INS_STABLES_COLUMNS, rows }
}

function insTables(catalog: Catalog, dbs: DatabaseInfo[]): SystemTable {
  const rows: unknown[][] = []
  for (const d of dbs) {
    for (const t of catalog.listTables(d.name)) {
      const st = t.kind === 'child' && t.stable !== undefined ? catalog.getStable(d.name, t.stable) : undefined
      rows.push([
        t.name,
        d.name,
        BigInt(t.createdAt),
        st ? st.columns.length : (t.columns?.length ?? 0),
        t.kind === 'child' ? (t.stable ?? null) : null,
        uidOf(d.name, t.name),
        vgroupOf(d, t.name),
        t.ttl,
        t.comment ?? '',
        t.kind === 'child' ? 'CHILD_TABLE' : 'NORMAL_TABLE',
      ])
    }
  }
  return { columns: INS_TABLES_COLUMNS, rows }
}

function insTags(catalog: Catalog, dbs: DatabaseInfo[]): SystemTable {
  const rows: unknown[][] = []
  for (const d of dbs) {
    for (const t of catalog.listTables(d.name)) {
      if (t.kind !== 'child' || t.stable === undefined) {
        continue
      }
      const st = catalog.getStable(d.name, t.stable)
      for (const tag of st?.tags ?? []) {
        rows.push([t.name, d.name, t.stable, tag.name, typeText(tag), tagValueText(t.tags?.[tag.name])])
      }
    }
  }
  return { columns: INS_TAGS_COLUMNS, rows }
}

function insColumns(catalog: Catalog, dbs: DatabaseInfo[]): SystemTable {
  const rows: unknown[][] = []
  const push = (table: string, db: string, kind: string, cols: ColumnDef[]): void => {
    for (const c of cols) {
      rows.push([table, db, kind, c.name, typeText(c), c.length, 0, 0, 0])
    }
  }
  for (const d of dbs) {
    for (const s of catalog.listStables(d.name)) {
      push(s.name, d.name, 'SUPER_TABLE', [...s.columns, ...s.tags])
    }
    for (const t of catalog.listTables(d.name)) {
      if (t.kind === 'child') {
        const st = t.stable !== undefined ? catalog.getStable(d.name, t.stable) : undefined
        push(t.name, d.name, 'CHILD_TABLE', st ? [...st.columns, ...st.tags] : [])
      } else {
        push(t.name, d.name, 'NORMAL_TABLE', t.columns ?? [])
      }
    }
  }
  return { columns: INS_COLUMNS_COLUMNS, rows }
}

function insUsers(catalog: Catalog): SystemTable {
  const rows = catalog
    .listUsers()
    .map((u) => [u.name, u.super ? 1 : 0, u.enable ? 1 : 0, u.sysinfo ? 1 : 0, u.createdb ? 1 : 0, BigInt(u.createdAt), '0.0.0.0/0'])
  return { columns: INS_USERS_COLUMNS, rows }
}

export const INS_USER_PRIVILEGES_COLUMNS: ColumnMeta[] = [
  V('user_name', 24),
  V('privilege', 10),
  V('db_name', 65),
  V('table_name', 193),
  V('condition', 49152),
  V('notes', 64),
]

/**
 * One row per grant (`read` / `write` on `db`, table_name empty for db.*), plus `all` on `all`
 * for each super user, as TDengine 3 lists them; a user that is not super sees its own rows.
 */
function insUserPrivileges(catalog: Catalog, user: string): SystemTable {
  const all = isSuperUser(catalog, user)
  const rows: unknown[][] = []
  for (const u of catalog.listUsers()) {
    if (u.super && (all || u.name === user)) {
      rows.push([u.name, 'all', 'all', '', '', ''])
    }
  }
  const grants = catalog
    .listPrivileges()
    .filter((p) => all || p.user === user)
    .sort((a, b) => a.user.localeCompare(b.user) || a.db.localeCompare(b.db) || a.privilege.localeCompare(b.privilege))
  for (const p of grants) {
    rows.push([p.user, p.privilege, p.db, '', '', ''])
  }
  return { columns: INS_USER_PRIVILEGES_COLUMNS, rows }
}

/** tables of cluster information a SYSINFO 0 user may not read */
const SYSINFO_TABLES = new Set(['ins_dnodes', 'ins_mnodes', 'ins_qnodes', 'ins_cluster', 'ins_configs', 'ins_vgroups', 'ins_users'])

function maySeeSysinfo(catalog: Catalog, user: string): boolean {
  const u = catalog.getUser(user)
  return u !== undefined && (u.super || u.sysinfo)
}

/** vgroup rows of `onlyDb` (or all databases); `tables` counts tables hashed onto each vgroup */
export function vgroupRows(catalog: Catalog, onlyDb?: string): unknown[][] {
  const rows: unknown[][] = []
  for (const d of catalog.listDatabases()) {
    if (onlyDb !== undefined && d.name !== onlyDb) {
      continue
    }
    const counts = new Map<number, number>()
    for (const t of catalog.listTables(d.name)) {
      const vg = vgroupOf(d, t.name)
      counts.set(vg, (counts.get(vg) ?? 0) + 1)
    }
    for (let i = 0; i < d.vgroups; i++) {
      const id = d.firstVgId + i
      rows.push([id, d.name, counts.get(id) ?? 0, 1, 'leader', null, null, null, null, null, null, 0, 0, 0])
    }
  }
  return rows
}

function single(columns: ColumnMeta[], rows: unknown[][]): SystemTable {
  return { columns, rows }
}

/**
 * The rows of `information_schema.<name>` (name without the schema, e.g. `ins_tables`), or
 * undefined when the table is unknown.
 */
export function systemTable(name: string, catalog: Catalog, user: string): SystemTable | undefined {
  const lower = name.toLowerCase()
  if (SYSINFO_TABLES.has(lower) && !maySeeSysinfo(catalog, user)) {
    throw noRights(`user "${user}" may not read ${lower} (SYSINFO 0)`)
  }
  // a user sees the databases it has a privilege on (TDengine filters these tables the same way)
  const dbs = catalog.listDatabases().filter((d) => maySee(catalog, user, d.name))
  const totalVgroups = catalog.listDatabases().reduce((n, d) => n + d.vgroups, 0)
  switch (lower) {
    case 'ins_databases':
      return insDatabases(catalog, dbs)
    case 'ins_stables':
      return insStables(catalog, dbs)
    case 'ins_tables':
      return insTables(catalog, dbs)
    case 'ins_tags':
      return insTags(catalog, dbs)
    case 'ins_columns':
      return insColumns(catalog, dbs)
    case 'ins_users':
      return insUsers(catalog)
    case 'ins_user_privileges':
      return insUserPrivileges(catalog, user)
    case 'ins_vgroups':
      return { columns: INS_VGROUPS_COLUMNS, rows: vgroupRows(catalog) }
    case 'ins_dnodes':
      return single(
        [col('id', 'SMALLINT'), V('endpoint', 134), col('vnodes', 'SMALLINT'), col('support_vnodes', 'SMALLINT'), V('status', 10), TS('create_time'), TS('reboot_time'), V('note', 256)],
        [[1, ENDPOINT, totalVgroups, 256, 'ready', BigInt(PROCESS_START_MS), BigInt(PROCESS_START_MS), '']],
      )
    case 'ins_mnodes':
      return single(
        [col('id', 'INT'), V('endpoint', 134), V('role', 12), V('status', 9), TS('create_time'), TS('role_time')],
        [[1, ENDPOINT, 'leader', 'ready', BigInt(PROCESS_START_MS), BigInt(PROCESS_START_MS)]],
      )
    case 'ins_qnodes':
      return single([col('id', 'INT'), V('endpoint', 134), TS('create_time')], [])
    case 'ins_cluster':
      return single(
        [col('id', 'BIGINT'), V('name', 134), col('uptime', 'INT'), TS('create_time'), V('version', 10), TS('expire_time')],
        [[1n, ENDPOINT, Math.floor((Date.now() - PROCESS_START_MS) / 1000), BigInt(PROCESS_START_MS), '3.3.6.0', null]],
      )
    case 'ins_configs':
      return single(
        [V('name', 32), V('value', 128), V('scope', 10)],
        [
          ['timezone', 'UTC (UTC, +0000)', 'both'],
          ['locale', 'C.UTF-8', 'both'],
          ['charset', 'UTF-8', 'both'],
        ],
      )
    case 'ins_functions':
      return single(
        [V('name', 64), V('comment', 255), col('aggregate', 'INT'), V('output_type', 32), TS('create_time'), col('code_len', 'INT'), col('bufsize', 'INT')],
        [],
      )
    case 'ins_indexes':
      return single([V('index_name', 192), V('db_name', 64), V('table_name', 192), TS('create_time'), V('column_name', 64), V('index_type', 10), V('index_extensions', 256)], [])
    case 'ins_streams':
      return single([V('stream_name', 64), TS('create_time'), V('sql', 1024), V('status', 20)], [])
    case 'ins_topics':
      return single([V('topic_name', 192), V('db_name', 64), TS('create_time'), V('sql', 1024)], [])
    default:
      return undefined
  }
}
