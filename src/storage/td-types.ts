/**
 * TDengine's objects as the adapter keeps and serves them: value types and precisions, columns
 * and tags, databases, super tables, tables and users. Backends store them in the physical
 * layout described in dialect.ts.
 */

export type Precision = 'ms' | 'us' | 'ns'

export type TdType =
  | 'BOOL'
  | 'TINYINT'
  | 'SMALLINT'
  | 'INT'
  | 'BIGINT'
  | 'TINYINT UNSIGNED'
  | 'SMALLINT UNSIGNED'
  | 'INT UNSIGNED'
  | 'BIGINT UNSIGNED'
  | 'FLOAT'
  | 'DOUBLE'
  | 'VARCHAR'
  | 'NCHAR'
  | 'TIMESTAMP'
  | 'JSON'

/** A column or tag as TDengine clients see it. `length` is the REST length (declared n for VARCHAR/NCHAR). */
export interface ColumnDef {
  name: string
  type: TdType
  length: number
}

export interface DatabaseInfo {
  name: string
  precision: Precision
  /** VGROUPS option; the database owns vgroup ids firstVgId .. firstVgId + vgroups - 1 */
  vgroups: number
  firstVgId: number
  /** every option as given or defaulted, for ins_databases / SHOW CREATE DATABASE (keys lower case) */
  options: Record<string, string | number>
  createdAt: number // epoch ms
  /** the user who created it (may drop and alter it); databases made before owners were kept: root */
  owner: string
}

export interface StableInfo {
  db: string
  name: string
  /** columns[0] is the primary TIMESTAMP column */
  columns: ColumnDef[]
  tags: ColumnDef[]
  createdAt: number
  comment?: string
  /**
   * Stored in tables shared with the database's other super tables of the same columns (and
   * tags): `st` and `st$tags` are views over `data` and `tags` where `_stid` = stid (routes.ts).
   * Absent: `st` and `st$tags` are tables of their own.
   */
  shared?: SharedLayout
}

export interface SharedLayout {
  stid: number
  data: string
  tags: string
}

/** Tag values in catalog form: JS values (number | bigint | string | boolean | null; JSON tag as object). */
export type TagValue = number | bigint | string | boolean | null | Record<string, unknown>

export interface TableInfo {
  db: string
  name: string
  kind: 'child' | 'normal'
  /** compact integer id; unique per super table for children (the `_tid` key), unique per db otherwise */
  tid: number
  /** super table name for children */
  stable?: string
  /** tag values by tag name, children only */
  tags?: Record<string, TagValue>
  /** data columns for normal tables (children use their super table's columns) */
  columns?: ColumnDef[]
  ttl: number
  createdAt: number
  comment?: string
}

/** A privilege on a database granted to a user (GRANT READ|WRITE ON db.* TO user). */
export interface PrivilegeInfo {
  user: string
  db: string
  privilege: DbPrivilege
  createdAt: number
}

export type DbPrivilege = 'read' | 'write'

export interface UserInfo {
  name: string
  super: boolean
  enable: boolean
  sysinfo: boolean
  createdb: boolean
  createdAt: number
}
