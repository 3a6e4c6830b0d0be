import type { Expr, SelectStmt } from './select/ast.js'
import { backendError } from './select/backend-errors.js'
import { children } from './select/expr-walk.js'
import { planSelect } from './select/plan-select.js'
import { systemTable } from './system-tables.js'
import { TD, TdError, tableNotExist } from '../td-error.js'
import type { ExecEnv } from './exec-env.js'
import type { SqlContext } from './result.js'
import type { TableRef } from './ast.js'
import { requireWritable, resolveDb } from './ddl.js'
import { physicalOf } from './catalog/shared-tables.js'
import type { StableInfo } from '../storage/td-types.js'

/**
 * DELETE FROM [db.]tb [WHERE condition] over a child, normal or super table (TDengine 3). The
 * condition may name the primary timestamp and, for super and child tables, tags and tbname; a
 * data column is 9813 as in TDengine. The rows are chosen by the SELECT planner (`SELECT ts
 * [, tbname] FROM tb WHERE condition`), so every time literal and function means what it means
 * in a query; they are deleted in one backend statement. Affected rows: the rows deleted.
 */

function invalidWhere(): TdError {
  return new TdError(TD.PAR_INVALID_DELETE_WHERE, 'The DELETE statement must have a definite time window range')
}

/** every column name the condition reads */
function columnNames(e: Expr, out: Set<string>): Set<string> {
  if (e.kind === 'col') {
    out.add(e.name)
  }
  for (const c of children(e)) {
    columnNames(c, out)
  }
  return out
}

export async function executeDelete(table: TableRef, where: Expr | undefined, ctx: SqlContext, env: ExecEnv): Promise<number> {
  const { catalog } = env
  const db = resolveDb(table.db, ctx)
  requireWritable(catalog, db, ctx)
  const d = env.storage.engine.dialect
  const q = d.quoteIdent
  const phys = (name: string): string => `${q(d.schemaName(db))}.${q(name)}`
  const child = catalog.getTable(db, table.name)
  const st = child === undefined ? catalog.getStable(db, table.name) : undefined
  if (child === undefined && st === undefined) {
    throw tableNotExist(table.name)
  }
  const stable = st ?? (child?.kind === 'child' && child.stable !== undefined ? catalog.getStable(db, child.stable) : undefined)
  const columns = child?.kind === 'normal' ? (child.columns ?? []) : (stable?.columns ?? [])
  const ts = columns[0].name
  if (where !== undefined) {
    const tags = new Set(stable?.tags.map((t) => t.name) ?? [])
    for (const name of columnNames(where, new Set())) {
      const isData = columns.some((c) => c.name === name)
      if ((isData && name !== ts) || (!isData && !tags.has(name) && name !== 'tbname' && name !== '_rowts' && name !== '_c0')) {
        // TDengine rejects a condition on a data column; an unknown name likewise
        throw isData ? invalidWhere() : new TdError(TD.PAR_INVALID_COLUMN, `Invalid column name: ${name}`)
      }
    }
  }
  // a super table may be a view over a shared table (storage/routes.ts): DELETE goes to the table, for its rows
  const target = child?.kind === 'normal' ? { table: phys(child.name), rows: 'TRUE' } : physicalOf(d, stable as StableInfo, false)
  const dataTable = target.table
  const conds: string[] = target.rows === 'TRUE' ? [] : [target.rows]
  if (child?.kind === 'child') {
    conds.push(`${q('_tid')} = ${child.tid}`)
  }
  if (where !== undefined) {
    const select: SelectStmt = {
      kind: 'select',
      distinct: false,
      items: [{ expr: { kind: 'col', name: ts }, text: ts }],
      from: { kind: 'table', db, name: table.name },
      where,
      partitionBy: [],
      groupBy: [],
      orderBy: [],
    }
    if (st !== undefined) {
      select.items.push({ expr: { kind: 'col', name: 'tbname' }, text: 'tbname' })
    }
    const plan = planSelect(select, { catalog, dialect: d, ctx, nowMs: env.now(), systemTable })
    if (st === undefined) {
      conds.push(`${q(ts)} IN (SELECT ${q('o0')} FROM (${plan.sql}) AS ${q('__k')})`)
    } else {
      // rows of many children: their keys come back as (ts, tbname), tbname names the _tid
      conds.push(
        `EXISTS (SELECT 1 FROM (${plan.sql}) AS ${q('__k')} JOIN ${phys(`${st.name}$tags`)} AS ${q('__t')} ON ${q('__t')}.${q('tbname')} = ${q('__k')}.${q('o1')}` +
          ` WHERE ${q('__t')}.${q('_tid')} = ${q('__del')}.${q('_tid')} AND ${q('__k')}.${q('o0')} = ${q('__del')}.${q(ts)})`,
      )
    }
  }
  const sql = `DELETE FROM ${dataTable} AS ${q('__del')}` + (conds.length > 0 ? ` WHERE ${conds.join(' AND ')}` : '')
  try {
    return await env.engine.exec(sql, ctx.signal === undefined ? {} : { signal: ctx.signal })
  } catch (err) {
    // a backend failure in TDengine's words, never the backend's text
    throw backendError(err)
  }
}
