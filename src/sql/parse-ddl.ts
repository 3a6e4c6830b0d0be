import type { TdType } from '../storage/td-types.js'
import type { AlterAction, ColumnSpec, CreateTableClause, Statement, TableRef } from './ast.js'
import type { Cursor } from './cursor.js'
import { expect01, expectInt, expectString, ifExists, ifNotExists, parseTableRef, prev, span } from './parse-common.js'
import { parseUsing, parseValue } from './parse-values.js'
import type { ValueExpr } from './value-expr.js'
import { ALTERABLE_DB_OPTIONS } from './db-alter-options.js'

/** CREATE, DROP and ALTER of databases, super tables, tables and users. */

// ---------------------------------------------------------------------------------------------
// databases

/** option name -> how its value is written */
const DB_OPTIONS: Readonly<Record<string, 'int' | 'string' | 'duration' | 'keep'>> = {
  vgroups: 'int',
  precision: 'string',
  replica: 'int',
  strict: 'string',
  buffer: 'int',
  pages: 'int',
  pagesize: 'int',
  cachemodel: 'string',
  cachesize: 'int',
  comp: 'int',
  duration: 'duration',
  keep: 'keep',
  keep_time_offset: 'int',
  maxrows: 'int',
  minrows: 'int',
  stt_trigger: 'int',
  single_stable: 'int',
  table_prefix: 'int',
  table_suffix: 'int',
  tsdb_pagesize: 'int',
  wal_level: 'int',
  wal_fsync_period: 'int',
  wal_retention_period: 'int',
  wal_retention_size: 'int',
  wal_roll_period: 'int',
  wal_segment_size: 'int',
  s3_chunkpages: 'int',
  s3_keeplocal: 'duration',
  s3_compact: 'int',
  compact_interval: 'duration',
  compact_time_range: 'keep',
  compact_time_offset: 'duration',
  encrypt_algorithm: 'string',
  dnodes: 'string',
}

function durationText(c: Cursor): string {
  const t = c.peek()
  if (t.kind === 'duration' || (t.kind === 'number' && /^\d+$/.test(t.value))) {
    c.next()
    return t.value
  }
  if (t.kind === 'string') {
    c.next()
    return t.value
  }
  throw c.error()
}

function parseDbOptions(c: Cursor, allowed?: ReadonlySet<string>): Record<string, string | number> {
  const options: Record<string, string | number> = {}
  while (c.atIdent()) {
    const t = c.peek()
    const name = t.kind === 'ident' ? t.value : ''
    const kind = DB_OPTIONS[name]
    if (kind === undefined || (allowed !== undefined && !allowed.has(name))) {
      throw c.error()
    }
    c.next()
    switch (kind) {
      case 'int':
        options[name] = expectInt(c)
        break
      case 'string': {
        const v = c.peek()
        if (v.kind === 'string' || v.kind === 'ident') {
          c.next()
          options[name] = name === 'precision' || name === 'cachemodel' || name === 'strict' ? v.value.toLowerCase() : v.value
        } else {
          throw c.error()
        }
        break
      }
      case 'duration':
        options[name] = durationText(c)
        break
      case 'keep': {
        const parts = [durationText(c)]
        while (c.accept(',')) {
          parts.push(durationText(c))
        }
        options[name] = parts.join(',')
        break
      }
    }
  }
  return options
}

// ---------------------------------------------------------------------------------------------
// CREATE / DROP / ALTER

export function parseCreate(c: Cursor): Statement {
  if (c.acceptKeyword('DATABASE')) {
    const ine = ifNotExists(c)
    const name = c.expectIdent().name
    return { type: 'createDatabase', name, ifNotExists: ine, options: parseDbOptions(c) }
  }
  if (c.acceptKeyword('USER')) {
    const name = c.expectIdent().name
    c.expectKeyword('PASS')
    const stmt: Statement = { type: 'createUser', name, password: expectString(c) }
    for (;;) {
      if (c.acceptKeyword('SYSINFO')) {
        stmt.sysinfo = expect01(c)
      } else if (c.acceptKeyword('CREATEDB')) {
        stmt.createdb = expect01(c)
      } else {
        break
      }
    }
    return stmt
  }
  if (c.acceptKeyword('STABLE')) {
    const ine = ifNotExists(c)
    const table = parseTableRef(c)
    const columns = parseColumnDefs(c)
    c.expectKeyword('TAGS')
    const tags = parseColumnDefs(c)
    const opts = parseTableOptions(c)
    return { type: 'createStable', table, ifNotExists: ine, columns, tags, ...(opts.comment !== undefined ? { comment: opts.comment } : {}) }
  }
  if (c.acceptKeyword('TABLE')) {
    const ine = ifNotExists(c)
    const table = parseTableRef(c)
    if (c.at('(')) {
      const columns = parseColumnDefs(c)
      if (c.acceptKeyword('TAGS')) {
        // CREATE TABLE ... TAGS (...) is an alias of CREATE STABLE
        const tags = parseColumnDefs(c)
        const opts = parseTableOptions(c)
        return { type: 'createStable', table, ifNotExists: ine, columns, tags, ...(opts.comment !== undefined ? { comment: opts.comment } : {}) }
      }
      const opts = parseTableOptions(c)
      return { type: 'createTables', tables: [{ kind: 'normal', table, ifNotExists: ine, columns, ...opts }] }
    }
    const tables: CreateTableClause[] = [parseChildClause(c, table, ine)]
    // several children in one statement: `t1 USING st TAGS (..) [IF NOT EXISTS] t2 USING ...`
    while (c.atIdent() || c.atKeyword('IF')) {
      const ine2 = ifNotExists(c)
      const t2 = parseTableRef(c)
      tables.push(parseChildClause(c, t2, ine2))
    }
    return { type: 'createTables', tables }
  }
  throw c.error()
}

function parseChildClause(c: Cursor, table: TableRef, ine: boolean): CreateTableClause {
  const using = parseUsing(c)
  const opts = parseTableOptions(c)
  return { kind: 'child', table, ifNotExists: ine, using, ...opts }
}


/** COMMENT 'x' | TTL n | SMA(cols) | KEEP k | WATERMARK/MAX_DELAY/DELETE_MARK d[,d] | ROLLUP(f) */
function parseTableOptions(c: Cursor): { comment?: string; ttl?: number } {
  const out: { comment?: string; ttl?: number } = {}
  for (;;) {
    if (c.acceptKeyword('COMMENT')) {
      out.comment = expectString(c)
    } else if (c.acceptKeyword('TTL')) {
      out.ttl = expectInt(c)
    } else if (c.acceptKeyword('SMA', 'ROLLUP')) {
      c.expect('(')
      c.expectIdent()
      while (c.accept(',')) {
        c.expectIdent()
      }
      c.expect(')')
    } else if (c.acceptKeyword('KEEP', 'WATERMARK', 'MAX_DELAY', 'DELETE_MARK')) {
      durationText(c)
      while (c.accept(',')) {
        durationText(c)
      }
    } else {
      return out
    }
  }
}

const SIMPLE_TYPES: Readonly<Record<string, TdType>> = {
  bool: 'BOOL',
  tinyint: 'TINYINT',
  smallint: 'SMALLINT',
  int: 'INT',
  integer: 'INT',
  bigint: 'BIGINT',
  float: 'FLOAT',
  double: 'DOUBLE',
  timestamp: 'TIMESTAMP',
  json: 'JSON',
}

/** `name TYPE[(n)] [UNSIGNED]` plus ignored column options (ENCODE/COMPRESS/LEVEL/COMMENT) */
function parseColumnSpec(c: Cursor): ColumnSpec {
  const id = c.expectIdent()
  const { type, length } = parseType(c)
  for (;;) {
    if (c.acceptKeyword('ENCODE', 'COMPRESS', 'LEVEL', 'COMMENT')) {
      expectString(c)
    } else {
      break
    }
  }
  const sp = span(id.token, prev(c))
  return length === undefined ? { name: id.name, type, span: sp } : { name: id.name, type, length, span: sp }
}

function parseType(c: Cursor): { type: TdType; length?: number } {
  const t = c.peek()
  if (t.kind !== 'ident') {
    throw c.error()
  }
  const word = t.value
  if (word === 'varchar' || word === 'binary' || word === 'nchar') {
    c.next()
    c.expect('(')
    const n = c.peek()
    if (n.kind !== 'number' || !/^\d+$/.test(n.value)) {
      throw c.error()
    }
    c.next()
    c.expect(')')
    return { type: word === 'nchar' ? 'NCHAR' : 'VARCHAR', length: Number(n.value) }
  }
  const simple = SIMPLE_TYPES[word]
  if (simple === undefined) {
    throw c.error()
  }
  c.next()
  if (simple === 'TINYINT' || simple === 'SMALLINT' || simple === 'INT' || simple === 'BIGINT') {
    if (c.acceptKeyword('UNSIGNED')) {
      return { type: `${simple} UNSIGNED` as TdType }
    }
  }
  return { type: simple }
}

function parseColumnDefs(c: Cursor): ColumnSpec[] {
  c.expect('(')
  const cols = [parseColumnSpec(c)]
  while (c.accept(',')) {
    cols.push(parseColumnSpec(c))
  }
  c.expect(')')
  return cols
}

export function parseDrop(c: Cursor): Statement {
  if (c.acceptKeyword('DATABASE')) {
    const ie = ifExists(c)
    return { type: 'dropDatabase', name: c.expectIdent().name, ifExists: ie }
  }
  if (c.acceptKeyword('USER')) {
    return { type: 'dropUser', name: c.expectIdent().name }
  }
  if (c.acceptKeyword('STABLE')) {
    const ie = ifExists(c)
    return { type: 'dropStable', table: parseTableRef(c), ifExists: ie }
  }
  if (c.acceptKeyword('TABLE')) {
    const tables: { table: TableRef; ifExists: boolean }[] = []
    do {
      const ie = ifExists(c)
      tables.push({ table: parseTableRef(c), ifExists: ie })
    } while (c.accept(','))
    return { type: 'dropTables', tables }
  }
  throw c.error()
}

export function parseAlter(c: Cursor): Statement {
  if (c.acceptKeyword('DATABASE')) {
    const name = c.expectIdent().name
    // only the options TDengine lets ALTER change; the others are a syntax error there too
    const options = parseDbOptions(c, ALTERABLE_DB_OPTIONS)
    if (Object.keys(options).length === 0) {
      throw c.error()
    }
    return { type: 'alterDatabase', name, options }
  }
  if (c.acceptKeyword('USER')) {
    const name = c.expectIdent().name
    if (c.acceptKeyword('PASS')) {
      return { type: 'alterUser', name, change: { pass: expectString(c) } }
    }
    if (c.acceptKeyword('ENABLE')) {
      return { type: 'alterUser', name, change: { enable: expect01(c) } }
    }
    if (c.acceptKeyword('SYSINFO')) {
      return { type: 'alterUser', name, change: { sysinfo: expect01(c) } }
    }
    if (c.acceptKeyword('CREATEDB')) {
      return { type: 'alterUser', name, change: { createdb: expect01(c) } }
    }
    throw c.error()
  }
  let target: 'stable' | 'table'
  if (c.acceptKeyword('STABLE')) {
    target = 'stable'
  } else if (c.acceptKeyword('TABLE')) {
    target = 'table'
  } else {
    throw c.error()
  }
  const table = parseTableRef(c)
  return { type: 'alterTable', target, table, action: parseAlterAction(c) }
}

function parseAlterAction(c: Cursor): AlterAction {
  if (c.acceptKeyword('ADD')) {
    if (c.acceptKeyword('TAG')) {
      return { kind: 'addTag', column: parseColumnSpec(c) }
    }
    c.acceptKeyword('COLUMN')
    return { kind: 'addColumn', column: parseColumnSpec(c) }
  }
  if (c.acceptKeyword('DROP')) {
    if (c.acceptKeyword('TAG')) {
      return { kind: 'dropTag', name: c.expectIdent().name }
    }
    c.acceptKeyword('COLUMN')
    return { kind: 'dropColumn', name: c.expectIdent().name }
  }
  if (c.acceptKeyword('MODIFY')) {
    if (c.acceptKeyword('TAG')) {
      return { kind: 'modifyTag', column: parseColumnSpec(c) }
    }
    c.acceptKeyword('COLUMN')
    return { kind: 'modifyColumn', column: parseColumnSpec(c) }
  }
  if (c.acceptKeyword('RENAME')) {
    const isTag = c.acceptKeyword('TAG')
    if (!isTag) {
      c.expectKeyword('COLUMN')
    }
    const from = c.expectIdent().name
    const to = c.expectIdent().name
    return isTag ? { kind: 'renameTag', from, to } : { kind: 'renameColumn', from, to }
  }
  if (c.acceptKeyword('SET')) {
    c.expectKeyword('TAG')
    const values: { name: string; value: ValueExpr }[] = []
    // `SET TAG a = 1, b = 2`; a repeated TAG keyword after the comma is tolerated
    for (;;) {
      const name = c.expectIdent().name
      c.expect('=')
      values.push({ name, value: parseValue(c, false) })
      if (!c.accept(',')) {
        break
      }
      c.acceptKeyword('TAG')
    }
    return { kind: 'setTag', values }
  }
  const options: Record<string, string | number> = {}
  for (;;) {
    if (c.acceptKeyword('COMMENT')) {
      options.comment = expectString(c)
    } else if (c.acceptKeyword('TTL')) {
      options.ttl = expectInt(c)
    } else if (c.acceptKeyword('KEEP')) {
      options.keep = durationText(c)
    } else {
      break
    }
  }
  if (Object.keys(options).length === 0) {
    throw c.error()
  }
  return { kind: 'options', options }
}
