import type { Statement } from './ast.js'
import type { Catalog } from './catalog/types.js'
import { TD, TdError, dbNotExist } from '../td-error.js'
import type { SqlContext } from './result.js'

/**
 * CREATE/ALTER/DROP USER (sql-dialect.md 2.4) and GRANT/REVOKE. Only super users manage users
 * and privileges (771 otherwise); a user may change their own password. Passwords go to the catalog, which stores scrypt hashes.
 */

type UserStmt = Extract<Statement, { type: 'createUser' | 'alterUser' | 'dropUser' | 'grant' | 'revoke' }>

function noRights(): TdError {
  return new TdError(TD.MND_NO_RIGHTS, 'Insufficient privilege for operation')
}

function isSuper(catalog: Catalog, user: string): boolean {
  return catalog.getUser(user)?.super === true
}

function checkName(name: string): void {
  if (name.length === 0 || Buffer.byteLength(name) > 23) {
    throw new TdError(TD.MND_INVALID_USER_FORMAT, 'Invalid user format')
  }
}

function checkPassword(pass: string): void {
  // TDengine rejects empty passwords and ones longer than 128 bytes; quotes are already unescaped
  if (pass.length === 0 || Buffer.byteLength(pass) > 128) {
    throw new TdError(TD.MND_INVALID_PASS_FORMAT, 'Invalid password format')
  }
}

export async function executeUser(stmt: UserStmt, catalog: Catalog, ctx: SqlContext): Promise<void> {
  const root = isSuper(catalog, ctx.user)
  switch (stmt.type) {
    case 'createUser':
      if (!root) {
        throw noRights()
      }
      checkName(stmt.name)
      checkPassword(stmt.password)
      await catalog.createUser(stmt.name, stmt.password, {
        ...(stmt.sysinfo !== undefined ? { sysinfo: stmt.sysinfo } : {}),
        ...(stmt.createdb !== undefined ? { createdb: stmt.createdb } : {}),
      })
      return
    case 'alterUser': {
      const { pass, ...flags } = stmt.change
      if (pass !== undefined) {
        if (!root && ctx.user !== stmt.name) {
          throw noRights()
        }
        checkPassword(pass)
        await catalog.alterUserPassword(stmt.name, pass)
        return
      }
      if (!root) {
        throw noRights()
      }
      if (catalog.getUser(stmt.name) === undefined) {
        throw new TdError(TD.MND_USER_NOT_EXIST, 'Invalid user')
      }
      await catalog.alterUser(stmt.name, flags)
      return
    }
    case 'grant':
    case 'revoke': {
      if (!root) {
        throw noRights()
      }
      const target = catalog.getUser(stmt.user)
      if (target === undefined) {
        throw new TdError(TD.MND_USER_NOT_EXIST, 'Invalid user')
      }
      if (target.super) {
        // super users hold every privilege; there is nothing to grant or take away
        throw new TdError(TD.MND_NO_RIGHTS, `Insufficient privilege for operation: "${stmt.user}" is a super user`)
      }
      if (stmt.db !== '*' && catalog.getDatabase(stmt.db) === undefined) {
        throw dbNotExist(stmt.db)
      }
      await (stmt.type === 'grant' ? catalog.grant(stmt.user, stmt.db, stmt.privileges) : catalog.revoke(stmt.user, stmt.db, stmt.privileges))
      return
    }
    case 'dropUser': {
      if (!root) {
        throw noRights()
      }
      const target = catalog.getUser(stmt.name)
      if (target === undefined) {
        throw new TdError(TD.MND_USER_NOT_EXIST, 'Invalid user')
      }
      if (target.super) {
        // the built-in super user cannot be dropped
        throw noRights()
      }
      await catalog.dropUser(stmt.name)
      return
    }
  }
}
