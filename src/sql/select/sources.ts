import { requireAccess } from '../catalog/access.js'
import { dbNotExist, TD, TdError, tableNotExist } from '../../td-error.js'
import type { ColumnMeta } from '../result.js'
import type { TagLookup } from '../catalog/types.js'
import type { ColumnDef, Precision, TagValue } from '../../storage/td-types.js'
import type { FromItem, SelectItem, SelectStmt } from './ast.js'
import { fixed, type TypeInfo } from './type-info.js'
import type { PlanEnv, SelectPlan } from './select-plan.js'
import type { SqlWriter } from './sql-writer.js'

/** A column the FROM clause offers, and how the base query reads it. */
export interface SourceCol {
  name: string
  /** joins: the table or alias the column belongs to (scope key `qualifier.name`) */
  qualifier?: string
  /** SQL text valid inside the base query (over `d`/`t`/`s`) */
  raw: string
  type: TypeInfo
  tag: boolean
}

/** What a FROM clause reads: a super, child or normal table, a system table or a subquery. */
export interface Source {
  kind: 'stable' | 'child' | 'normal' | 'system' | 'subquery'
  cols: SourceCol[]
  /** columns `*` expands to */
  starCols: SourceCol[]
  tbname?: string
  /** name of the primary timestamp column */
  ts?: string
  qualifiers: Set<string>
  precision: Precision
  /** FROM text; `join` = tags or tbname are referenced */
  from(join: boolean): string
  baseWhere: string[]
  /** raw SQL of the per-table order key of super tables */
  tidRaw?: string
  /** super tables: the tag table, joined as `t` */
  tagsTable?: string
  tidOf?: (name: string) => number | undefined
  /** super tables: children by tag value (tag-filter.ts); asked only when a WHERE can use it */
  tagIndex?: () => TagLookup | undefined
}

/** tbname's type; the expression compiler also recognises the tbname column by this very object */
export const TBNAME_TYPE: TypeInfo = { type: 'VARCHAR', length: 192 }
const INFO_SCHEMA = new Set(['information_schema', 'performance_schema'])

function colType(c: ColumnDef): TypeInfo {
  return { type: c.type, length: c.length }
}

/**
 * Resolves the FROM clause against the catalog; undefined without FROM. `planInner` plans a FROM
 * subquery with the same environment.
 */
export function resolveSource(stmt: SelectStmt, env: PlanEnv, w: SqlWriter, planInner: (select: SelectStmt) => SelectPlan): Source | undefined {
  return resolveFrom(stmt.from, env, w, planInner)
}

/** One FROM item other than a join (join-source.ts resolves joins from these). */
export function resolveFrom(from: FromItem | undefined, env: PlanEnv, w: SqlWriter, planInner: (select: SelectStmt) => SelectPlan): Source | undefined {
  if (from === undefined) {
    return undefined
  }
  if (from.kind === 'join') {
    throw new TdError(TD.PAR_NOT_SUPPORT_JOIN, "Not supported join since 'nested join'")
  }
  if (from.kind === 'subquery') {
    const inner = planInner(from.select)
    if (inner.fill !== undefined) {
      throw new TdError(TD.PAR_SYNTAX_ERROR, 'syntax error near "fill" (FILL is not supported inside a FROM subquery)')
    }
    const cols: SourceCol[] = inner.columns.map((c, i) => ({
      name: c.name,
      raw: `s.${w.q(`o${i}`)}`,
      type: { type: c.type, length: c.length },
      tag: false,
    }))
    const ts = cols.find((c) => c.type.type === 'TIMESTAMP')?.name
    const src: Source = {
      kind: 'subquery',
      cols,
      starCols: cols,
      qualifiers: new Set(from.alias === undefined ? [] : [from.alias]),
      precision: inner.precision,
      from: () => `(${inner.sql}) AS s`,
      baseWhere: [],
    }
    if (ts !== undefined) {
      src.ts = ts
    }
    return src
  }
  const dbName = from.db ?? env.ctx.defaultDb
  if (dbName === undefined) {
    throw new TdError(TD.PAR_DB_NOT_SPECIFIED, 'Database not specified')
  }
  const qualifiers = new Set([from.name, ...(from.alias === undefined ? [] : [from.alias])])
  if (INFO_SCHEMA.has(dbName)) {
    const sys = env.systemTable?.(from.name, env.catalog, env.ctx.user)
    if (sys === undefined) {
      throw tableNotExist(from.name)
    }
    return systemSource(sys, qualifiers, w)
  }
  const db = env.catalog.getDatabase(dbName)
  if (db === undefined) {
    throw dbNotExist(dbName)
  }
  requireAccess(env.catalog, env.ctx.user, db.name, 'read')
  const schema = w.q(w.dialect.schemaName(db.name))
  const st = env.catalog.getStable(db.name, from.name)
  if (st !== undefined) {
    const data = st.columns.map((c) => ({ name: c.name, raw: `d.${w.q(c.name)}`, type: colType(c), tag: false }))
    const tags = st.tags.map((c) => ({ name: c.name, raw: `t.${w.q(c.name)}`, type: colType(c), tag: true }))
    return {
      kind: 'stable',
      cols: [...data, ...tags],
      starCols: [...data, ...tags],
      tbname: `t.${w.q('tbname')}`,
      ts: st.columns[0].name,
      qualifiers,
      precision: db.precision,
      from: (join) =>
        `${schema}.${w.q(st.name)} AS d` +
        (join ? ` JOIN ${schema}.${w.q(`${st.name}$tags`)} AS t ON d.${w.q('_tid')} = t.${w.q('_tid')}` : ''),
      baseWhere: [],
      tidRaw: `d.${w.q('_tid')}`,
      tagsTable: `${schema}.${w.q(`${st.name}$tags`)}`,
      tidOf: (name) => {
        const child = env.catalog.getTable(db.name, name)
        return child?.kind === 'child' && child.stable === st.name ? child.tid : undefined
      },
      tagIndex: () => env.catalog.tagIndex?.(db.name, st.name),
    }
  }
  const tb = env.catalog.getTable(db.name, from.name)
  if (tb === undefined) {
    throw tableNotExist(from.name)
  }
  if (tb.kind === 'child') {
    const parent = tb.stable === undefined ? undefined : env.catalog.getStable(db.name, tb.stable)
    if (parent === undefined) {
      throw tableNotExist(from.name)
    }
    const data = parent.columns.map((c) => ({ name: c.name, raw: `d.${w.q(c.name)}`, type: colType(c), tag: false }))
    // a child's tags are constants of the statement: no join needed
    const tags = parent.tags.map((c) => ({
      name: c.name,
      raw: tagLiteral(tb.tags?.[c.name] ?? null, c, w),
      type: colType(c),
      tag: true,
    }))
    return {
      kind: 'child',
      cols: [...data, ...tags],
      starCols: data,
      tbname: w.dialect.quoteString(tb.name),
      ts: parent.columns[0].name,
      qualifiers,
      precision: db.precision,
      from: () => `${schema}.${w.q(parent.name)} AS d`,
      baseWhere: [`d.${w.q('_tid')} = ${tb.tid}`],
    }
  }
  const columns = tb.columns ?? []
  const data = columns.map((c) => ({ name: c.name, raw: `d.${w.q(c.name)}`, type: colType(c), tag: false }))
  const src: Source = {
    kind: 'normal',
    cols: data,
    starCols: data,
    tbname: w.dialect.quoteString(tb.name),
    qualifiers,
    precision: db.precision,
    from: () => `${schema}.${w.q(tb.name)} AS d`,
    baseWhere: [],
  }
  if (columns.length > 0) {
    src.ts = columns[0].name
  }
  return src
}

function tagLiteral(v: TagValue, c: ColumnDef, w: SqlWriter): string {
  if (c.type === 'JSON') {
    return v === null ? w.literal(null, colType(c)) : w.dialect.quoteString(typeof v === 'string' ? v : JSON.stringify(v))
  }
  return w.literal(v, colType(c))
}

function systemSource(sys: { columns: ColumnMeta[]; rows: unknown[][] }, qualifiers: Set<string>, w: SqlWriter): Source {
  const names = sys.columns.map((_c, i) => w.q(`c${i}`)).join(', ')
  const types = sys.columns.map((c) => ({ type: c.type, length: c.length }))
  const rowSql = (row: unknown[]): string =>
    `(${row.map((v, i) => w.literal(typeof v === 'object' && v !== null ? JSON.stringify(v) : v, types[i])).join(', ')})`
  // the first row carries explicit casts so every column gets its declared type
  const typedNulls = `(${types.map((t) => w.literal(null, t.type === 'NULL' ? fixed('VARCHAR') : t)).join(', ')})`
  const values = [typedNulls, ...sys.rows.map(rowSql)].join(', ')
  const cols = sys.columns.map((c, i) => ({ name: c.name, raw: `s.${w.q(`c${i}`)}`, type: types[i], tag: false }))
  return {
    kind: 'system',
    cols,
    starCols: cols,
    qualifiers,
    precision: 'ms',
    // the typed-NULL row only fixes the column types; it is filtered out again
    from: () => `(SELECT * FROM (VALUES ${values}) AS v(${names}) OFFSET 1) AS s`,
    baseWhere: [],
  }
}

/** `*`, `t.*`, `first(*)`/`last(*)`/`last_row(*)` expand to one item per column */
export function expandItems(items: SelectItem[], src: Source | undefined): SelectItem[] {
  const out: SelectItem[] = []
  for (const it of items) {
    const e = it.expr
    if (e.kind === 'star') {
      if (src === undefined) {
        throw new TdError(TD.PAR_SYNTAX_ERROR, 'syntax error near "*"')
      }
      if (e.table !== undefined && !src.qualifiers.has(e.table)) {
        throw tableNotExist(e.table)
      }
      for (const c of src.starCols) {
        if (c.qualifier === undefined) {
          out.push({ expr: { kind: 'col', name: c.name }, text: c.name })
        } else if (e.table === undefined || e.table === c.qualifier) {
          out.push({ expr: { kind: 'col', table: c.qualifier, name: c.name }, text: c.name })
        }
      }
      continue
    }
    if (e.kind === 'call' && ['first', 'last', 'last_row'].includes(e.name) && e.args.length === 1 && e.args[0].kind === 'star') {
      if (src === undefined) {
        throw new TdError(TD.PAR_SYNTAX_ERROR, 'syntax error near "*"')
      }
      for (const c of src.cols.filter((x) => !x.tag)) {
        out.push({ expr: { kind: 'call', name: e.name, args: [{ kind: 'col', name: c.name }] }, text: `${e.name}(${c.name})` })
      }
      continue
    }
    out.push(it)
  }
  return out
}
