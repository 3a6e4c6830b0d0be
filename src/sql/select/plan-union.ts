import { TD, TdError } from '../../td-error.js'
import type { ColumnMeta } from '../result.js'
import type { TdType } from '../../storage/td-types.js'
import type { Expr, SelectStmt } from './ast.js'
import { exprKey } from './expr-walk.js'
import type { PlanEnv, SelectPlan } from './select-plan.js'
import { SqlWriter } from './sql-writer.js'
import { isSignedInt, isString, isUnsignedInt } from './type-info.js'
import { converter } from './value-converter.js'

/**
 * `a UNION [ALL] b ...`: each member planned on its own, the results stacked positionally. The
 * column count must agree (9780); names come from the first member; a later member whose column
 * type differs is cast to the first member's type (TDengine's translateSetOperatorImpl), strings
 * of one kind taking the longest length. ORDER BY (result column name, alias or position) and
 * LIMIT apply to the union.
 */
export function planUnion(stmt: SelectStmt, env: PlanEnv, planMember: (s: SelectStmt) => SelectPlan): SelectPlan {
  const head: SelectStmt = { ...stmt, orderBy: [] }
  delete head.setOps
  delete head.limit
  delete head.slimit
  const members = [head, ...(stmt.setOps ?? []).map((m) => m.select)]
  const plans = members.map((m) => planMember(m))
  const width = plans[0].columns.length
  for (const p of plans) {
    if (p.columns.length !== width) {
      throw new TdError(TD.PAR_INCORRECT_NUM_OF_COL, 'Query block has incorrect number of result columns')
    }
    if (p.fill !== undefined) {
      throw new TdError(TD.PAR_SYNTAX_ERROR, 'syntax error near "fill" (FILL is not supported in a UNION member)')
    }
  }
  if (stmt.slimit !== undefined) {
    throw new TdError(TD.PAR_SLIMIT_LEAK_PARTITION_GROUP_BY, 'slimit/soffset only available for PARTITION/GROUP BY query')
  }
  const w = new SqlWriter(env.dialect)
  const columns: ColumnMeta[] = plans[0].columns.map((c, i) => unionType(c, plans.map((p) => p.columns[i])))
  const names = columns.map((_c, i) => w.q(`o${i}`))
  // numbers of differing types are stacked in the type DuckDB unifies them to and cast to the
  // first member's type after ORDER BY and LIMIT: DuckDB 1.5's TopN pushes its boundary through a
  // narrowing cast in a member into that member's scan and prunes rows it must keep (duckdb#25158)
  const late = columns.map((_c, i) => plans.some((p) => p.columns[i].type !== plans[0].columns[i].type) && plans.every((p) => unifiable(p.columns[i].type)))
  const cast = (i: number): string => `CAST(${names[i]} AS ${w.physType(columns[i].type, columns[i].length)}) AS ${names[i]}`
  const parts = plans.map((p, k) => {
    const list = columns.map((c, i) => (p.columns[i].type === c.type || late[i] ? names[i] : cast(i)))
    return `SELECT ${list.join(', ')} FROM (${p.sql}) AS ${w.q(`u${k}`)}`
  })
  let sql = parts[0]
  ;(stmt.setOps ?? []).forEach((m, i) => {
    sql += ` UNION${m.all ? ' ALL' : ''} ${parts[i + 1]}`
  })
  sql = `SELECT * FROM (${sql}) AS ${w.q('u')}`
  if (stmt.orderBy.length > 0) {
    const terms = stmt.orderBy.map((o) => {
      const idx = orderColumn(o.expr, stmt, columns)
      const nullsFirst = o.nullsFirst ?? o.desc
      return `${names[idx]} ${o.desc ? 'DESC' : 'ASC'} NULLS ${nullsFirst ? 'FIRST' : 'LAST'}`
    })
    sql += ` ORDER BY ${terms.join(', ')}`
  }
  if (stmt.limit !== undefined) {
    sql += ` LIMIT ${stmt.limit.limit} OFFSET ${stmt.limit.offset}`
  }
  if (late.some(Boolean)) {
    const list = columns.map((_c, i) => (late[i] ? cast(i) : names[i]))
    sql = `SELECT ${list.join(', ')} FROM (${sql}) AS ${w.q('v')}`
  }
  return { sql, columns, precision: plans[0].precision, convert: columns.map((c) => converter({ type: c.type, length: c.length })) }
}

/** a number DuckDB unifies with the other numbers of a UNION by itself (BOOL and TIMESTAMP are not) */
function unifiable(t: ColumnMeta['type']): boolean {
  return t === 'FLOAT' || t === 'DOUBLE' || isUnsignedInt(t) || (isSignedInt(t) && t !== 'BOOL')
}

function unionType(first: ColumnMeta, all: ColumnMeta[]): ColumnMeta {
  const types = all.map((c) => c.type).filter((t) => t !== 'NULL')
  const known = types[0] as TdType | undefined
  if (known === undefined) {
    return { ...first, type: 'VARCHAR', length: 0 }
  }
  const t = first.type === 'NULL' ? known : first.type
  // strings of one kind keep the longest length, so no member is cut
  if (isString(t as TdType) && all.every((c) => c.type === t || c.type === 'NULL')) {
    return { name: first.name, type: t, length: Math.max(...all.map((c) => c.length)) }
  }
  // otherwise TDengine casts every later member to the first member's type
  return { name: first.name, type: t, length: all.find((c) => c.type === t)?.length ?? first.length }
}

/** an ORDER BY term of a union: a result column by name, alias or 1-based position */
function orderColumn(e: Expr, stmt: SelectStmt, columns: ColumnMeta[]): number {
  if (e.kind === 'num' && !e.isFloat) {
    const n = Number(e.text)
    if (n >= 1 && n <= columns.length) {
      return n - 1
    }
    throw new TdError(TD.PAR_WRONG_VALUE_TYPE, `Invalid value type: ${e.text}`)
  }
  if (e.kind === 'col' && e.table === undefined) {
    const byName = columns.findIndex((c) => c.name === e.name)
    if (byName >= 0) {
      return byName
    }
  }
  const k = exprKey(e)
  const same = stmt.items.findIndex((i) => exprKey(i.expr) === k)
  if (same >= 0 && same < columns.length) {
    return same
  }
  throw new TdError(TD.PAR_INVALID_COLUMN, 'Invalid column name: ORDER BY of a UNION names a result column')
}
