import type { DbPrivilege } from '../storage/td-types.js'
import type { Statement } from './ast.js'
import type { Cursor } from './cursor.js'
import { TD, TdError } from '../td-error.js'

/**
 * `GRANT {ALL [PRIVILEGES] | READ | WRITE [, ...]} ON {db | db.* | *.*} TO user` and REVOKE ...
 * FROM user (TDengine 3). The cursor stands after GRANT or REVOKE. Table-level grants (`db.tb`,
 * with tag conditions) and SUBSCRIBE on topics are refused by name: this service has neither.
 */
export function parseGrant(c: Cursor, type: 'grant' | 'revoke'): Statement {
  const privileges = new Set<DbPrivilege>()
  do {
    if (c.acceptKeyword('ALL')) {
      c.acceptKeyword('PRIVILEGES')
      privileges.add('read')
      privileges.add('write')
    } else if (c.acceptKeyword('READ')) {
      privileges.add('read')
    } else if (c.acceptKeyword('WRITE')) {
      privileges.add('write')
    } else if (c.atKeyword('SUBSCRIBE', 'ALTER', 'CREATE', 'DROP')) {
      throw new TdError(TD.PAR_SYNTAX_ERROR, `syntax error near "${c.peek().value}" (only READ, WRITE and ALL privileges on databases are supported)`)
    } else {
      throw c.error()
    }
  } while (c.accept(','))
  c.expectKeyword('ON')
  let db: string
  if (c.accept('*')) {
    c.expect('.')
    c.expect('*')
    db = '*'
  } else {
    db = c.expectIdent().name
    if (c.accept('.')) {
      if (!c.accept('*')) {
        throw new TdError(TD.PAR_SYNTAX_ERROR, `syntax error near "${c.peek().value}" (table-level privileges are not supported: grant on ${db}.*)`)
      }
    }
  }
  c.expectKeyword(type === 'grant' ? 'TO' : 'FROM')
  const user = c.expectIdent().name
  return { type, privileges: [...privileges], db, user }
}
