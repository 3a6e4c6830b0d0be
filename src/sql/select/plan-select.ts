import type { SelectStmt } from './ast.js'
import { assemble } from './plan-assemble.js'
import { joinSource } from './join-source.js'
import { tagsSource } from './tags-source.js'
import { fillPlan } from './plan-fill.js'
import { grouping } from './plan-grouping.js'
import { selectList } from './plan-output.js'
import { scanQuery } from './plan-scan.js'
import { queryShape } from './query-shape.js'
import { planUnion } from './plan-union.js'
import type { PlanEnv, SelectPlan } from './select-plan.js'
import { rowWindowScan } from './row-window.js'
import { resolveSource } from './sources.js'
import { SqlWriter } from './sql-writer.js'

/**
 * Plans a SELECT against the catalog; throws TdError for unknown names and illegal shapes.
 * Each step reads what the earlier ones decided. Keep their order: it is also the order in which
 * a bad statement's errors surface and hoisted aggregates are numbered (`__a0`, `__a1`...).
 */
export function planSelect(stmt: SelectStmt, env: PlanEnv): SelectPlan {
  if (stmt.setOps !== undefined) {
    return planUnion(stmt, env, (member) => planSelect(member, env))
  }
  const w = new SqlWriter(env.dialect)
  // FROM: the table, system table, subquery or join read, and its columns
  const planInner = (inner: SelectStmt): SelectPlan => planSelect(inner, env)
  let src
  if (stmt.tags === true) {
    src = tagsSource(stmt, env, w, planInner)
  } else if (stmt.from?.kind === 'join') {
    ;({ src, stmt } = joinSource(stmt, stmt.from, env, w, planInner))
  } else {
    src = resolveSource(stmt, env, w, planInner)
  }
  // `*` expanded, the window, whether the query aggregates, joins tags, pre-aggregates
  const shape = queryShape(stmt, src, env)
  // the base query: columns, WHERE (time bounds folded to ticks), each row's window
  const scan = scanQuery(shape, env, w)
  if (stmt.rowWindow !== undefined) {
    // SESSION/STATE/EVENT/COUNT windows: each row's window number over the scan
    scan.sql = rowWindowScan(shape, scan, w)
  }
  // grouping and partitioning keys, DIFF/DERIVATIVE's window, pre-aggregation hoisting
  const groups = grouping(shape, scan, w)
  // the select list, hidden columns and ORDER BY
  const out = selectList(shape, groups, w)
  const fill = fillPlan(shape, out, scan)
  // HAVING, per-partition LIMIT and SLIMIT, ORDER BY and LIMIT around it all
  return assemble(shape, scan, groups, out, fill, w)
}
