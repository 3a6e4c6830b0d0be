import type { DatabaseInfo, DbPrivilege } from '../../storage/td-types.js'
import { TD, TdError } from '../../td-error.js'
import type { Catalog } from './types.js'

/**
 * Who may do what, as TDengine 3 decides it: super users (root) everything; a user with CREATEDB 1
 * may create databases; a database's creator owns it (drops and alters it, reads and writes it);
 * others read a database with READ and write it (INSERT, table DDL, DELETE, schemaless writes) with
 * WRITE, granted with GRANT. A disabled or unknown user has no rights. The system databases are
 * readable by everyone and writable by no one. Every path (SQL, the schemaless routes, the
 * receivers, writeToDB) applies these rules through this file alone.
 */

export const SYSTEM_DATABASES: ReadonlySet<string> = new Set(['information_schema', 'performance_schema'])

/** TDengine's 0x0303 (771): /rest/sql answers it as is, the other routes answer 403 */
export function noRights(what: string): TdError {
  return new TdError(TD.MND_NO_RIGHTS, `Insufficient privilege for operation: ${what}`)
}

function activeUser(catalog: Catalog, name: string): { super: boolean; createdb: boolean } | undefined {
  const u = catalog.getUser(name)
  return u === undefined || !u.enable ? undefined : u
}

export function isSuperUser(catalog: Catalog, user: string): boolean {
  return activeUser(catalog, user)?.super === true
}

export function mayCreateDatabase(catalog: Catalog, user: string): boolean {
  const u = activeUser(catalog, user)
  return u !== undefined && (u.super || u.createdb)
}

/** owner or super user: DROP / ALTER / FLUSH / COMPACT / TRIM DATABASE */
export function mayManageDatabase(catalog: Catalog, user: string, db: DatabaseInfo): boolean {
  const u = activeUser(catalog, user)
  return u !== undefined && (u.super || db.owner === user)
}

/** whether `user` may read (SELECT, SHOW, DESCRIBE, remote read) or write database `db` */
export function mayAccess(catalog: Catalog, user: string, db: string, access: DbPrivilege): boolean {
  if (SYSTEM_DATABASES.has(db)) {
    return access === 'read'
  }
  const u = activeUser(catalog, user)
  if (u === undefined) {
    return false
  }
  if (u.super) {
    return true
  }
  const info = catalog.getDatabase(db)
  if (info !== undefined && info.owner === user) {
    return true
  }
  return catalog.granted(user, db)[access] || catalog.granted(user, '*')[access]
}

/** may see the database at all (ins_databases, SHOW DATABASES, USE): any privilege on it */
export function maySee(catalog: Catalog, user: string, db: string): boolean {
  return mayAccess(catalog, user, db, 'read') || mayAccess(catalog, user, db, 'write')
}

/**
 * Throws 771 unless `user` may `access` database `db`. A database that does not exist passes:
 * the caller answers 904 (or creates it, after requireCreateDatabase).
 */
export function requireAccess(catalog: Catalog, user: string, db: string, access: DbPrivilege): void {
  if (catalog.getDatabase(db) !== undefined && !mayAccess(catalog, user, db, access)) {
    throw noRights(`user "${user}" has no ${access.toUpperCase()} privilege on database "${db}"`)
  }
}

export function requireCreateDatabase(catalog: Catalog, user: string): void {
  if (!mayCreateDatabase(catalog, user)) {
    throw noRights(`user "${user}" may not create databases (CREATEDB 0)`)
  }
}

export function requireManageDatabase(catalog: Catalog, user: string, db: DatabaseInfo): void {
  if (!mayManageDatabase(catalog, user, db)) {
    throw noRights(`only the creator of database "${db.name}" or a super user may drop or alter it`)
  }
}

/**
 * What a schemaless write into `db` needs before any work: WRITE on an existing database, or, when
 * it is missing and will be created (autoCreate), the right to create databases.
 */
export function requireIngest(catalog: Catalog, user: string, db: string, autoCreate: boolean): void {
  if (catalog.getDatabase(db) !== undefined) {
    requireAccess(catalog, user, db, 'write')
  } else if (autoCreate && !SYSTEM_DATABASES.has(db)) {
    requireCreateDatabase(catalog, user)
  }
}
