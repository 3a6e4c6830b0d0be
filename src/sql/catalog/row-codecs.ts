import type { Dialect } from '../../storage/dialect.js'
import type { ColumnDef, DatabaseInfo, DbPrivilege, Precision, PrivilegeInfo, SharedLayout, StableInfo, TableInfo, TagValue, UserInfo } from '../../storage/td-types.js'
import { ownedString } from '../../owned-string.js'
import { TD, TdError } from '../../td-error.js'

/** How catalog entries become catalog rows and SQL literals, and back. */

/** Tag values as JSON text: bigint and JSON-tag objects get a wrapper so they round-trip. */
export function encodeTags(tags: Record<string, TagValue>): string {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(tags)) {
    if (typeof v === 'bigint') {
      out[k] = { b: v.toString() }
    } else if (v !== null && typeof v === 'object') {
      out[k] = { j: v }
    } else {
      out[k] = v
    }
  }
  return JSON.stringify(out)
}

function decodeTags(text: string): Record<string, TagValue> {
  const raw = JSON.parse(text) as Record<string, unknown>
  const out: Record<string, TagValue> = {}
  for (const [k, v] of Object.entries(raw)) {
    if (v !== null && typeof v === 'object') {
      const o = v as { b?: string; j?: Record<string, unknown> }
      out[k] = o.b !== undefined ? BigInt(o.b) : (o.j ?? null)
    } else {
      out[k] = v as TagValue
    }
  }
  return out
}

/** the columns of the catalog's `tables` table, in its order (rows for it are built in this order) */
export const TABLES_COLUMNS = ['db', 'name', 'kind', 'tid', 'stable', 'tags', 'columns', 'ttl', 'created_at', 'comment']

/** tag types stored as text (VARCHAR in every dialect) */
export function isTextTag(col: ColumnDef): boolean {
  return col.type === 'VARCHAR' || col.type === 'NCHAR' || col.type === 'JSON'
}

/** A text tag's (isTextTag) stored value. */
export function textTag(col: ColumnDef, v: TagValue | undefined): string | null {
  if (v === null || v === undefined) {
    return null
  }
  if (col.type === 'JSON') {
    return typeof v === 'string' ? v : JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x))
  }
  return typeof v === 'object' ? JSON.stringify(v) : String(v)
}

/** SQL literal of a tag value for the `$tags` physical table. */
export function tagLiteral(d: Dialect, col: ColumnDef, v: TagValue | undefined): string {
  if (v === null || v === undefined) {
    return 'NULL'
  }
  switch (col.type) {
    case 'JSON':
    case 'VARCHAR':
    case 'NCHAR':
      return d.quoteString(textTag(col, v) as string)
    case 'BOOL':
      return v === true || v === 1 || v === 'true' ? 'TRUE' : 'FALSE'
    case 'FLOAT':
    case 'DOUBLE': {
      const n = Number(v)
      if (!Number.isFinite(n)) {
        throw new TdError(TD.PAR_WRONG_VALUE_TYPE, `Invalid value for tag ${col.name}`)
      }
      return `CAST(${String(n)} AS ${d.columnType(col)})`
    }
    default: {
      // integers and TIMESTAMP ticks: exact text, never through a float
      const s = typeof v === 'bigint' ? v.toString() : typeof v === 'number' ? String(Math.trunc(v)) : String(v)
      if (!/^-?\d+$/.test(s)) {
        throw new TdError(TD.PAR_WRONG_VALUE_TYPE, `Invalid value for tag ${col.name}`)
      }
      return `CAST(${s} AS ${d.columnType(col)})`
    }
  }
}

export interface UserRecord extends UserInfo {
  hash: string
}

/** rows per multi-row INSERT when creating many children at once (keeps SQL text moderate) */
export const INSERT_ROWS_PER_STATEMENT = 500

export function* slices<T>(list: T[], size: number): Generator<T[]> {
  for (let i = 0; i < list.length; i += size) {
    yield list.slice(i, i + size)
  }
}

/**
 * Catalog entries live as long as the process, longer than the statement or request body their
 * names and tag values were cut from: they keep copies (ownedString), so that no cached name
 * holds a large INSERT or line-protocol body in memory.
 */
export function ownedColumns(cols: readonly ColumnDef[]): ColumnDef[] {
  return cols.map((c) => ({ ...c, name: ownedString(c.name) }))
}

export function ownedTags(tags: Record<string, TagValue>): Record<string, TagValue> {
  const out: Record<string, TagValue> = {}
  for (const [k, v] of Object.entries(tags)) {
    out[k] = typeof v === 'string' ? ownedString(v) : v
  }
  return out
}

export function rowToDb(r: unknown[]): DatabaseInfo {
  return {
    name: String(r[0]),
    precision: String(r[1]) as Precision,
    vgroups: Number(r[2]),
    firstVgId: Number(r[3]),
    options: JSON.parse(String(r[4])) as Record<string, string | number>,
    createdAt: Number(r[5]),
    owner: r[6] === null || r[6] === undefined ? 'root' : String(r[6]),
  }
}

/** the columns a database row is read with, in rowToDb's order */
export const DATABASES_SELECT = 'name, prec, vgroups, first_vgid, options, created_at, owner'

export function rowToPrivilege(r: unknown[]): PrivilegeInfo {
  return { user: String(r[0]), db: String(r[1]), privilege: String(r[2]) as DbPrivilege, createdAt: Number(r[3]) }
}

export function rowToStable(r: unknown[]): StableInfo {
  const info: StableInfo = {
    db: String(r[0]),
    name: String(r[1]),
    columns: JSON.parse(String(r[2])) as ColumnDef[],
    tags: JSON.parse(String(r[3])) as ColumnDef[],
    createdAt: Number(r[4]),
  }
  if (r[5] !== null) {
    info.comment = String(r[5])
  }
  if (r[6] !== null && r[6] !== undefined) {
    info.shared = JSON.parse(String(r[6])) as SharedLayout
  }
  return info
}

/** the columns rowToStable reads, in its order */
export const STABLES_SELECT = 'db, name, columns, tags, created_at, comment, layout'

export function rowToTable(r: unknown[]): TableInfo {
  const info: TableInfo = {
    db: String(r[0]),
    name: String(r[1]),
    kind: String(r[2]) as 'child' | 'normal',
    tid: Number(r[3]),
    ttl: Number(r[7]),
    createdAt: Number(r[8]),
  }
  if (info.kind === 'child') {
    info.stable = String(r[4])
    info.tags = r[5] === null ? {} : decodeTags(String(r[5]))
  } else {
    info.columns = JSON.parse(String(r[6])) as ColumnDef[]
  }
  if (r[9] !== null) {
    info.comment = String(r[9])
  }
  return info
}

export function rowToUser(r: unknown[]): UserRecord {
  return {
    name: String(r[0]),
    hash: String(r[1]),
    super: Boolean(r[2]),
    enable: Boolean(r[3]),
    sysinfo: Boolean(r[4]),
    createdb: Boolean(r[5]),
    createdAt: Number(r[6]),
  }
}
