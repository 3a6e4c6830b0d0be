import type { ColumnDef, DatabaseInfo, StableInfo, TagValue } from '../storage/td-types.js'
import type { AlterAction, ChildUsing, Statement, TableRef } from './ast.js'
import { maySee, noRights, requireAccess, requireCreateDatabase, requireManageDatabase, SYSTEM_DATABASES } from './catalog/access.js'
import type { Catalog } from './catalog/types.js'
import { TD, TdError, dbNotExist, tableNotExist } from '../td-error.js'
import type { ExecEnv } from './exec-env.js'
import type { SqlContext } from './result.js'
import { checkIdentifier } from './check-identifier.js'
import { checkAlterOptions } from './db-alter-options.js'
import { convertTag, toColumnDef, toSchema, ValueError, type ValueContext } from './types.js'

/**
 * Database, super table and table DDL (sql-dialect.md section 2). Name resolution: an unprefixed
 * name resolves only against the URL database (`ctx.defaultDb`), else 9750.
 */

/** database of a possibly prefixed name, or 9750 `Database not specified` */
export function resolveDb(db: string | undefined, ctx: SqlContext): string {
  const name = db ?? ctx.defaultDb
  if (name === undefined || name === '') {
    throw new TdError(TD.PAR_DB_NOT_SPECIFIED, 'Database not specified')
  }
  return name
}

/** the database record or 904 `Database not exist` */
export function requireDb(catalog: Catalog, name: string): DatabaseInfo {
  const d = catalog.getDatabase(name)
  if (d === undefined) {
    throw dbNotExist(name)
  }
  return d
}

/** the database record of a write (INSERT, table DDL): 904 when missing, 771 without WRITE */
export function requireWritable(catalog: Catalog, name: string, ctx: SqlContext): DatabaseInfo {
  const d = requireDb(catalog, name)
  requireAccess(catalog, ctx.user, name, 'write')
  return d
}

function requireStable(catalog: Catalog, db: string, name: string): StableInfo {
  const st = catalog.getStable(db, name)
  if (st === undefined) {
    throw new TdError(TD.MND_STB_NOT_EXIST, 'STable not exist')
  }
  return st
}

/**
 * Tag values of a `USING st [(names)] TAGS (values)` clause in catalog form. Count mismatch 9741,
 * unknown tag 9742, bad values 534 (the insert-parser text) or 9811.
 */
export function usingTags(sql: string, st: StableInfo, using: ChildUsing, cx: ValueContext): Record<string, TagValue> {
  const names = using.tagNames ?? st.tags.map((t) => t.name)
  if (names.length !== using.tagValues.length) {
    throw new TdError(TD.PAR_TAGS_NOT_MATCHED, 'Tags number not matched')
  }
  const tags: Record<string, TagValue> = {}
  names.forEach((name, i) => {
    const def = st.tags.find((t) => t.name === name)
    if (def === undefined) {
      throw new TdError(TD.PAR_INVALID_TAG_NAME, `Invalid tag name: ${name}`)
    }
    tags[name] = convertOrThrow(sql, () => convertTag(using.tagValues[i], def, cx))
  })
  return tags
}

export function convertOrThrow<T>(sql: string, fn: () => T): T {
  try {
    return fn()
  } catch (e) {
    if (e instanceof ValueError) {
      throw e.toTdError(sql)
    }
    throw e
  }
}

type Ddl = Extract<
  Statement,
  {
    type:
      | 'createDatabase'
      | 'dropDatabase'
      | 'alterDatabase'
      | 'useDatabase'
      | 'databaseMaintenance'
      | 'createStable'
      | 'createTables'
      | 'dropTables'
      | 'dropStable'
      | 'alterTable'
  }
>

/** Runs one DDL statement; DDL reports 0 affected rows. */
export async function executeDdl(stmt: Ddl, sql: string, ctx: SqlContext, env: ExecEnv): Promise<void> {
  const { catalog } = env
  switch (stmt.type) {
    case 'createDatabase':
      checkIdentifier(stmt.name, 64)
      requireCreateDatabase(catalog, ctx.user)
      await catalog.createDatabase(stmt.name, stmt.options as Parameters<Catalog['createDatabase']>[1], stmt.ifNotExists, ctx.user)
      return
    case 'dropDatabase': {
      const d = catalog.getDatabase(stmt.name)
      if (d !== undefined) {
        requireManageDatabase(catalog, ctx.user, d)
      }
      await catalog.dropDatabase(stmt.name, stmt.ifExists)
      return
    }
    case 'useDatabase':
      if (SYSTEM_DATABASES.has(stmt.name)) {
        return
      }
      requireDb(catalog, stmt.name)
      if (!maySee(catalog, ctx.user, stmt.name)) {
        throw noRights(`user "${ctx.user}" has no privilege on database "${stmt.name}"`)
      }
      return
    case 'alterDatabase':
      // stored and shown (ins_databases, SHOW CREATE DATABASE); storage itself needs none of them
      requireManageDatabase(catalog, ctx.user, requireDb(catalog, stmt.name))
      checkAlterOptions(stmt.options)
      await catalog.alterDatabase(stmt.name, stmt.options)
      return
    case 'databaseMaintenance':
      // accepted and without effect: storage needs no maintenance
      requireManageDatabase(catalog, ctx.user, requireDb(catalog, stmt.name))
      return
    case 'createStable': {
      const db = resolveDb(stmt.table.db, ctx)
      requireWritable(catalog, db, ctx)
      checkIdentifier(stmt.table.name, 192)
      const schema = toSchema(stmt.columns, stmt.tags)
      if (schema.tags.length === 0) {
        throw new TdError(TD.PAR_SYNTAX_ERROR, 'syntax error near "" (a super table needs at least one tag)')
      }
      checkComment(stmt.comment)
      await catalog.createStable(db, stmt.table.name, schema.columns, schema.tags, stmt.ifNotExists, stmt.comment)
      return
    }
    case 'createTables':
      for (const clause of stmt.tables) {
        const db = resolveDb(clause.table.db, ctx)
        const dbInfo = requireWritable(catalog, db, ctx)
        checkIdentifier(clause.table.name, 192)
        if (clause.kind === 'normal') {
          const schema = toSchema(clause.columns, undefined)
          checkComment(clause.comment)
          await catalog.createNormalTable(db, clause.table.name, schema.columns, clause.ifNotExists, clause.ttl, clause.comment)
          continue
        }
        // the spec: every unprefixed name resolves against the URL database only
        const stDb = resolveDb(clause.using.stable.db, ctx)
        if (stDb !== db) {
          throw new TdError(TD.PAR_CORRESPONDING_STABLE_ERR, 'Corresponding super table not in this db')
        }
        const st = catalog.getStable(db, clause.using.stable.name)
        if (st === undefined) {
          throw tableNotExist(clause.using.stable.name)
        }
        const tags = usingTags(sql, st, clause.using, { sql, precision: dbInfo.precision, nowMs: env.now() })
        checkComment(clause.comment)
        await catalog.createChildTable(db, clause.table.name, st.name, tags, clause.ifNotExists, clause.ttl, clause.comment)
      }
      return
    case 'dropTables':
      for (const { table, ifExists } of stmt.tables) {
        const db = resolveDb(table.db, ctx)
        requireWritable(catalog, db, ctx)
        // DROP TABLE on a super table name drops the super table (3.x behaviour)
        if (catalog.getTable(db, table.name) === undefined && catalog.getStable(db, table.name) !== undefined) {
          await catalog.dropStable(db, table.name, ifExists)
        } else if (catalog.getTable(db, table.name) === undefined && !ifExists) {
          throw tableNotExist(table.name)
        } else {
          await catalog.dropTable(db, table.name, ifExists)
        }
      }
      return
    case 'dropStable': {
      const db = resolveDb(stmt.table.db, ctx)
      requireWritable(catalog, db, ctx)
      await catalog.dropStable(db, stmt.table.name, stmt.ifExists)
      return
    }
    case 'alterTable':
      await alterTable(stmt.target, stmt.table, stmt.action, sql, ctx, env)
      return
  }
}

/** longest table comment TDengine keeps (TSDB_TB_COMMENT_LEN - 1) */
const MAX_COMMENT_BYTES = 1024

/** 9806 `Comment too long` past TDengine's limit */
export function checkComment(comment: string | undefined): void {
  if (comment !== undefined && Buffer.byteLength(comment) > MAX_COMMENT_BYTES) {
    throw new TdError(TD.PAR_COMMENT_TOO_LONG, 'Comment too long')
  }
}

/** ALTER ... COMMENT 'x' (TTL and KEEP are accepted without effect) */
async function setComment(catalog: Catalog, db: string, name: string, options: Record<string, string | number>): Promise<void> {
  if (options.comment !== undefined) {
    checkComment(String(options.comment))
    await catalog.setComment(db, name, String(options.comment))
  }
}

function invalidAlter(why: string): TdError {
  return new TdError(TD.PAR_INVALID_ALTER_TABLE, `Invalid alter table statement: ${why}`)
}

function findColumn(cols: ColumnDef[], name: string, isTag: boolean): ColumnDef {
  const c = cols.find((x) => x.name === name)
  if (c === undefined) {
    throw isTag ? new TdError(TD.MND_TAG_NOT_EXIST, 'Tag does not exist') : new TdError(TD.MND_COLUMN_NOT_EXIST, 'Column does not exist')
  }
  return c
}

function checkWiden(existing: ColumnDef, wanted: ColumnDef): void {
  if (existing.type !== wanted.type || (wanted.type !== 'VARCHAR' && wanted.type !== 'NCHAR')) {
    throw new TdError(TD.PAR_INVALID_MODIFY_COL, 'Only varchar/nchar/geometry length can be modified')
  }
  if (wanted.length <= existing.length) {
    throw new TdError(TD.PAR_INVALID_MODIFY_COL, 'Field length can only be increased')
  }
}

async function alterTable(
  target: 'stable' | 'table',
  ref: TableRef,
  action: AlterAction,
  sql: string,
  ctx: SqlContext,
  env: ExecEnv,
): Promise<void> {
  const { catalog } = env
  const db = resolveDb(ref.db, ctx)
  const dbInfo = requireWritable(catalog, db, ctx)
  const table = target === 'table' ? catalog.getTable(db, ref.name) : undefined
  if (target === 'stable' || table === undefined) {
    const st = target === 'stable' ? requireStable(catalog, db, ref.name) : catalog.getStable(db, ref.name)
    if (st === undefined) {
      throw tableNotExist(ref.name)
    }
    switch (action.kind) {
      case 'addColumn':
        await catalog.addStableColumn(db, st.name, toColumnDef(action.column, false), false)
        return
      case 'addTag': {
        const def = toColumnDef(action.column, true)
        if (def.type === 'JSON' || st.tags.some((t) => t.type === 'JSON')) {
          throw new TdError(9779, 'Only one tag if there is a json tag')
        }
        await catalog.addStableColumn(db, st.name, def, true)
        return
      }
      case 'dropColumn':
        await catalog.dropStableColumn(db, st.name, action.name, false)
        return
      case 'dropTag':
        await catalog.dropStableColumn(db, st.name, action.name, true)
        return
      case 'modifyColumn':
      case 'modifyTag': {
        const isTag = action.kind === 'modifyTag'
        const def = toColumnDef(action.column, isTag)
        checkWiden(findColumn(isTag ? st.tags : st.columns, def.name, isTag), def)
        await catalog.widenColumn(db, st.name, def.name, def.length)
        return
      }
      case 'renameTag':
        checkIdentifier(action.to, 64)
        await catalog.renameColumn(db, st.name, action.from, action.to, true)
        return
      case 'renameColumn':
        throw invalidAlter('Rename column only available for normal table')
      case 'options':
        await setComment(catalog, db, st.name, action.options)
        return
      default:
        throw invalidAlter(`${action.kind} is not supported on a super table`)
    }
  }
  switch (action.kind) {
    case 'setTag': {
      if (table.kind !== 'child' || table.stable === undefined) {
        throw invalidAlter('only child tables have tags')
      }
      const st = requireStable(catalog, db, table.stable)
      const cx: ValueContext = { sql, precision: dbInfo.precision, nowMs: env.now() }
      const tags: Record<string, TagValue> = {}
      for (const { name, value } of action.values) {
        const def = st.tags.find((t) => t.name === name)
        if (def === undefined) {
          throw new TdError(TD.PAR_INVALID_TAG_NAME, `Invalid tag name: ${name}`)
        }
        tags[name] = convertOrThrow(sql, () => convertTag(value, def, cx))
      }
      await catalog.setTags(db, table.name, tags)
      return
    }
    case 'addColumn':
      if (table.kind === 'child') {
        throw invalidAlter('alter the columns of a child table through its super table')
      }
      await catalog.addTableColumn(db, table.name, toColumnDef(action.column, false))
      return
    case 'dropColumn':
      if (table.kind === 'child') {
        throw invalidAlter('alter the columns of a child table through its super table')
      }
      await catalog.dropTableColumn(db, table.name, action.name)
      return
    case 'modifyColumn': {
      if (table.kind === 'child') {
        throw invalidAlter('modify a child table column through its super table')
      }
      const def = toColumnDef(action.column, false)
      checkWiden(findColumn(table.columns ?? [], def.name, false), def)
      await catalog.widenColumn(db, table.name, def.name, def.length)
      return
    }
    case 'renameColumn':
      if (table.kind === 'child') {
        throw invalidAlter('Rename column only available for normal table')
      }
      checkIdentifier(action.to, 64)
      await catalog.renameColumn(db, table.name, action.from, action.to, false)
      return
    case 'options':
      await setComment(catalog, db, table.name, action.options)
      return
    default:
      throw invalidAlter(`${action.kind} is not supported on a ${table.kind} table`)
  }
}
