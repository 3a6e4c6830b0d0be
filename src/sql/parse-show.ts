import type { ShowObject, ShowStmt, TableRef } from './ast.js'
import type { Cursor } from './cursor.js'
import { expectString, parseTableRef } from './parse-common.js'

/** SHOW statements (sql-dialect.md section 7). */

const SHOW_OTHER: Readonly<Record<string, ShowObject>> = {
  DNODES: 'dnodes',
  MNODES: 'mnodes',
  QNODES: 'qnodes',
  SNODES: 'snodes',
  CLUSTER: 'cluster',
  VARIABLES: 'variables',
  CONNECTIONS: 'connections',
  QUERIES: 'queries',
  APPS: 'apps',
  GRANTS: 'grants',
  LICENCES: 'licences',
  LICENSES: 'licences',
  STREAMS: 'streams',
  TOPICS: 'topics',
  CONSUMERS: 'consumers',
  SUBSCRIPTIONS: 'subscriptions',
  TRANSACTIONS: 'transactions',
  FUNCTIONS: 'functions',
  INDEXES: 'indexes',
  VNODES: 'vnodes',
  SCORES: 'scores',
}

function parseLike(c: Cursor): string | undefined {
  if (c.acceptKeyword('LIKE')) {
    return expectString(c)
  }
  return undefined
}

export function parseShow(c: Cursor): ShowStmt {
  if (c.acceptKeywords('USER', 'PRIVILEGES')) {
    return { what: 'userPrivileges' }
  }
  if (c.acceptKeyword('USER', 'SYSTEM')) {
    c.expectKeyword('DATABASES')
    return { what: 'databases' }
  }
  if (c.acceptKeyword('DATABASES')) {
    return { what: 'databases' }
  }
  if (c.acceptKeyword('USERS')) {
    return { what: 'users' }
  }
  if (c.acceptKeyword('CREATE')) {
    if (c.acceptKeyword('DATABASE')) {
      return { what: 'createDatabase', name: c.expectIdent().name }
    }
    if (c.acceptKeyword('STABLE')) {
      return { what: 'createTable', table: parseTableRef(c), stable: true }
    }
    c.expectKeyword('TABLE')
    return { what: 'createTable', table: parseTableRef(c), stable: false }
  }
  if (c.atKeyword('TAGS') && c.atKeywordAt(1, 'FROM')) {
    c.next()
    c.next()
    return { what: 'tags', table: showFromTable(c) }
  }
  if (c.atKeyword('TABLE') && c.atKeywordAt(1, 'TAGS')) {
    c.next()
    c.next()
    c.expectKeyword('FROM')
    return { what: 'tableTags', table: showFromTable(c) }
  }
  if (c.atKeyword('CLUSTER') && c.atKeywordAt(1, 'ALIVE')) {
    c.next()
    c.next()
    return { what: 'alive', cluster: true }
  }
  if (c.atKeyword('LOCAL') && c.atKeywordAt(1, 'VARIABLES')) {
    c.next()
    c.next()
    return { what: 'other', object: 'localVariables' }
  }
  let tableKind: 'normal' | 'child' | undefined
  if (c.atKeyword('NORMAL', 'CHILD') && (c.atKeywordAt(1, 'TABLES') || c.peek(2).value === '.')) {
    tableKind = c.next().value === 'normal' ? 'normal' : 'child'
  }
  // optional `db.` prefix before STABLES / TABLES / VGROUPS / ALIVE
  let db: string | undefined
  if (c.atIdent() && c.peek(1).value === '.' && c.peek(1).kind === 'punct') {
    db = c.expectIdent().name
    c.expect('.')
  }
  if (c.acceptKeyword('STABLES') && tableKind === undefined) {
    const like = parseLike(c)
    return { what: 'stables', ...(db !== undefined ? { db } : {}), ...(like !== undefined ? { like } : {}) }
  }
  if (c.acceptKeyword('TABLES')) {
    const like = parseLike(c)
    return {
      what: 'tables',
      ...(db !== undefined ? { db } : {}),
      ...(like !== undefined ? { like } : {}),
      ...(tableKind !== undefined ? { tableKind } : {}),
    }
  }
  if (tableKind === undefined && c.acceptKeyword('VGROUPS')) {
    return db !== undefined ? { what: 'vgroups', db } : { what: 'vgroups' }
  }
  if (tableKind === undefined && c.acceptKeyword('ALIVE')) {
    return { what: 'alive', cluster: false }
  }
  if (db === undefined && tableKind === undefined) {
    const t = c.peek()
    const key = t.kind === 'ident' || t.kind === 'keyword' ? t.value.toUpperCase() : ''
    const obj = SHOW_OTHER[key]
    if (obj !== undefined) {
      c.next()
      return { what: 'other', object: obj }
    }
  }
  throw c.error()
}

/** `t [FROM db]` or `db.t` */
function showFromTable(c: Cursor): TableRef {
  const ref = parseTableRef(c)
  if (ref.db === undefined && c.acceptKeyword('FROM')) {
    ref.db = c.expectIdent().name
  }
  return ref
}
