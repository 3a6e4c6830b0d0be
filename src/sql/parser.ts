import type { TdType } from '../storage/td-types.js'
import type {
  AlterAction,
  ChildUsing,
  ColumnSpec,
  CreateTableClause,
  InsertTarget,
  ShowObject,
  ShowStmt,
  Span,
  Statement,
  TableRef,
  TimeDelta,
  ValueExpr,
} from './ast.js'
import { Cursor } from './cursor.js'
import { TD, TdError } from '../td-error.js'
import { splitDuration, tokenize, type Token } from './lexer.js'
import { parseSelect } from './select/parse-select.js'

/**
 * Recursive-descent parser for one TDengine statement (sql-dialect.md sections 2-4, 7). SELECT is
 * delegated to src/sql/select. A single trailing `;` is tolerated; anything after it is 9728.
 * Syntax errors: 9728 `syntax error near "<rest of the SQL>"`, 9729 at end of input, and for
 * INSERT TDengine's insert-parser form 534 `syntax error near '<text>' (<reason>)`.
 */
export function parseStatement(sql: string, opts: { fastValues?: boolean } = {}): Statement {
  const c = new Cursor(sql, tokenize(sql, opts.fastValues ?? true))
  const stmt = parseOne(c)
  c.accept(';')
  if (!c.atEnd()) {
    throw c.error()
  }
  return stmt
}

function parseOne(c: Cursor): Statement {
  if (c.atKeyword('SELECT') || c.at('(')) {
    return { type: 'select', select: parseParenSelect(c) }
  }
  const t = c.peek()
  if (c.acceptKeyword('CREATE')) {
    return parseCreate(c)
  }
  if (c.acceptKeyword('DROP')) {
    return parseDrop(c)
  }
  if (c.acceptKeyword('ALTER')) {
    return parseAlter(c)
  }
  if (c.acceptKeyword('USE')) {
    return { type: 'useDatabase', name: c.expectIdent().name }
  }
  if (c.atKeyword('FLUSH', 'COMPACT', 'TRIM')) {
    const op = c.next().value.toLowerCase() as 'flush' | 'compact' | 'trim'
    c.expectKeyword('DATABASE')
    return { type: 'databaseMaintenance', op, name: c.expectIdent().name }
  }
  if (c.acceptKeyword('SHOW')) {
    return { type: 'show', show: parseShow(c) }
  }
  if (c.acceptKeyword('DESCRIBE', 'DESC')) {
    return { type: 'describe', table: parseTableRef(c) }
  }
  if (c.acceptKeyword('INSERT')) {
    return parseInsert(c)
  }
  throw c.error(t)
}

/** `SELECT ...` or `(SELECT ...)`, any depth of wrapping parentheses */
function parseParenSelect(c: Cursor): ReturnType<typeof parseSelect> {
  if (c.accept('(')) {
    const inner = parseParenSelect(c)
    c.expect(')')
    return inner
  }
  return parseSelect(c)
}

function span(from: Token, to: Token): Span {
  return { start: from.start, end: to.end }
}

function prev(c: Cursor): Token {
  return c.tokens[Math.max(0, c.pos - 1)]
}

/** `[db.]name` */
export function parseTableRef(c: Cursor): TableRef {
  const first = c.expectIdent()
  if (c.accept('.')) {
    const second = c.expectIdent()
    return { db: first.name, name: second.name, span: span(first.token, second.token) }
  }
  return { name: first.name, span: span(first.token, first.token) }
}

function ifNotExists(c: Cursor): boolean {
  return c.acceptKeywords('IF', 'NOT', 'EXISTS')
}

function ifExists(c: Cursor): boolean {
  return c.acceptKeywords('IF', 'EXISTS')
}

function expectString(c: Cursor): string {
  const t = c.peek()
  if (t.kind !== 'string') {
    throw c.error()
  }
  c.next()
  return t.value
}

/** an integer, optionally negative */
function expectInt(c: Cursor): number {
  const neg = c.accept('-')
  const t = c.peek()
  if (t.kind !== 'number' || !/^\d+$/.test(t.value)) {
    throw c.error()
  }
  c.next()
  return neg ? -Number(t.value) : Number(t.value)
}

function expect01(c: Cursor): boolean {
  const t = c.peek()
  const v = expectInt(c)
  if (v !== 0 && v !== 1) {
    throw c.error(t)
  }
  return v === 1
}

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

function parseDbOptions(c: Cursor): Record<string, string | number> {
  const options: Record<string, string | number> = {}
  while (c.atIdent()) {
    const t = c.peek()
    const name = t.kind === 'ident' ? t.value : ''
    const kind = DB_OPTIONS[name]
    if (kind === undefined) {
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

function parseCreate(c: Cursor): Statement {
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

/** `USING st [(tag, ...)] TAGS (v, ...)` */
function parseUsing(c: Cursor, insert = false): ChildUsing {
  c.expectKeyword('USING')
  const stable = parseTableRef(c)
  let tagNames: string[] | undefined
  if (c.accept('(')) {
    tagNames = [c.expectIdent().name]
    while (c.accept(',')) {
      tagNames.push(c.expectIdent().name)
    }
    c.expect(')')
  }
  c.expectKeyword('TAGS')
  c.expect('(')
  const tagValues = [parseValue(c, insert)]
  while (c.accept(',')) {
    tagValues.push(parseValue(c, insert))
  }
  c.expect(')')
  return tagNames === undefined ? { stable, tagValues } : { stable, tagNames, tagValues }
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

export function parseType(c: Cursor): { type: TdType; length?: number } {
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

function parseDrop(c: Cursor): Statement {
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

function parseAlter(c: Cursor): Statement {
  if (c.acceptKeyword('DATABASE')) {
    const name = c.expectIdent().name
    const options = parseDbOptions(c)
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

// ---------------------------------------------------------------------------------------------
// values (INSERT VALUES, TAGS, SET TAG)

/** INSERT-parser error: 534 `syntax error near '<up to 63 chars from tok>' (<reason>)` */
export function insertError(sql: string, start: number, reason: string): TdError {
  return new TdError(TD.TSC_SQL_SYNTAX_ERROR, `syntax error near '${sql.slice(start, start + 63)}' (${reason})`)
}

function parseDeltas(c: Cursor): TimeDelta[] | undefined {
  let deltas: TimeDelta[] | undefined
  while ((c.at('+') || c.at('-')) && c.peek(1).kind === 'duration') {
    const sign = c.next().value === '+' ? 1 : -1
    const d = splitDuration(c.next().value)
    ;(deltas ??= []).push({ sign, value: d.value, unit: d.unit })
  }
  return deltas
}

/** one literal value; `insert` selects the 534 error form for INSERT statements */
function parseValue(c: Cursor, insert: boolean): ValueExpr {
  const t = c.peek()
  if (t.kind === 'keyword') {
    if (t.value === 'NULL') {
      c.next()
      return { kind: 'null', span: span(t, t) }
    }
    if (t.value === 'TRUE' || t.value === 'FALSE') {
      c.next()
      return { kind: 'bool', value: t.value === 'TRUE', span: span(t, t) }
    }
  } else if (t.kind === 'number') {
    c.next()
    return withDeltas(c, { kind: 'number', text: t.value, span: span(t, t) })
  } else if (t.kind === 'string') {
    c.next()
    return withDeltas(c, { kind: 'string', value: t.value, span: span(t, t) })
  } else if (t.kind === 'op' && (t.value === '-' || t.value === '+') && c.peek(1).kind === 'number') {
    c.next()
    const n = c.next()
    return withDeltas(c, { kind: 'number', text: t.value === '-' ? '-' + n.value : n.value, span: span(t, n) })
  } else if (t.kind === 'ident' && (t.value === 'now' || t.value === 'today')) {
    c.next()
    if (c.accept('(')) {
      c.expect(')')
    } else if (t.value === 'today') {
      throw insert ? insertError(c.sql, t.start, 'invalid data or symbol') : c.error(t)
    }
    return withDeltas(c, { kind: t.value, span: span(t, prev(c)) })
  }
  throw insert ? insertError(c.sql, t.start, 'invalid data or symbol') : c.error(t)
}

function withDeltas<T extends ValueExpr>(c: Cursor, v: T): T {
  if (v.kind === 'null' || v.kind === 'bool') {
    return v
  }
  const deltas = parseDeltas(c)
  if (deltas !== undefined) {
    ;(v as { deltas?: TimeDelta[] }).deltas = deltas
    v.span = { start: v.span.start, end: prev(c).end }
  }
  return v
}

// ---------------------------------------------------------------------------------------------
// INSERT

function parseInsert(c: Cursor): Statement {
  c.expectKeyword('INTO')
  const targets: InsertTarget[] = []
  do {
    targets.push(parseInsertTarget(c))
  } while (c.atIdent())
  return { type: 'insert', targets }
}

/** All tuples of an INSERT target as parseValue builds them, the lexer's plain ones first. */
export function insertRows(target: InsertTarget): ValueExpr[][] {
  return target.plain === undefined ? target.rows : target.plain.toValueExprs().concat(target.rows)
}

function parseInsertTarget(c: Cursor): InsertTarget {
  const table = parseTableRef(c)
  const target: InsertTarget = { table, rows: [] }
  if (c.atKeyword('USING')) {
    target.using = parseUsing(c, true)
  }
  if (c.accept('(')) {
    const cols: { name: string; span: Span }[] = []
    do {
      const id = c.expectIdent()
      cols.push({ name: id.name, span: span(id.token, id.token) })
    } while (c.accept(','))
    c.expect(')')
    target.columns = cols
  }
  if (target.using === undefined && c.atKeyword('USING')) {
    target.using = parseUsing(c, true)
  }
  const kw = c.peek()
  if (c.atKeyword('SELECT') || c.atKeyword('FILE')) {
    throw insertError(c.sql, kw.start, kw.value.toUpperCase() === 'SELECT' ? 'INSERT ... SELECT is not supported' : 'INSERT ... FILE is not supported over REST')
  }
  if (!c.acceptKeyword('VALUES')) {
    throw insertError(c.sql, kw.start, 'keyword VALUES or FILE is expected')
  }
  if (!c.at('(') && c.peek().kind !== 'rows') {
    throw insertError(c.sql, c.peek().start, 'invalid data or symbol')
  }
  for (;;) {
    const t = c.peek()
    if (t.kind === 'rows') {
      // tuples the lexer already found (scanPlainTuples), only ever right after VALUES;
      // ordinary ones may follow
      c.next()
      target.plain = t.tuples
      continue
    }
    if (!c.accept('(')) {
      break
    }
    const row: ValueExpr[] = [parseValue(c, true)]
    while (c.accept(',')) {
      row.push(parseValue(c, true))
    }
    if (!c.accept(')')) {
      throw insertError(c.sql, c.peek().start, 'invalid data or symbol')
    }
    target.rows.push(row)
    c.accept(',')
  }
  return target
}

// ---------------------------------------------------------------------------------------------
// SHOW

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

function parseShow(c: Cursor): ShowStmt {
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
