import type { Expr, SelectItem, SelectStmt } from './ast.js'
import { children, containsSeries, findCompanion } from './expr-walk.js'
import { isAggregateName } from './functions.js'
import type { Source } from './sources.js'
import type { SqlWriter } from './sql-writer.js'
import { extraWindows, type WindowSpec } from './window.js'

/**
 * A grouped super-table query can aggregate each child's rows before the tag table is joined
 * when tbname is one of its keys: tbname names exactly one `_tid`, so grouping by `_tid` makes
 * the same groups, and the join then touches one row per group instead of one per data row.
 * Everything the aggregates read must be a data column, and the WHERE clause must not need tags;
 * other shapes keep the join-first plan.
 */
export function preAggregable(
  stmt: SelectStmt,
  items: SelectItem[],
  src: Source,
  window: WindowSpec | undefined,
  groupExprs: Expr[],
  star: boolean,
): boolean {
  if (src.kind !== 'stable' || src.tagsTable === undefined || stmt.distinct || star) {
    return false
  }
  if (window !== undefined && extraWindows(window) !== 0) {
    return false
  }
  const tagNames = new Set(['tbname', ...src.cols.filter((c) => c.tag).map((c) => c.name)])
  if (groupExprs.length === 0 || !groupExprs.every((g) => g.kind === 'col' && tagNames.has(g.name))) {
    return false
  }
  if (!groupExprs.some((g) => g.kind === 'col' && g.name === 'tbname')) {
    return false
  }
  const readsTags = (e: Expr): boolean => (e.kind === 'col' && tagNames.has(e.name)) || children(e).some(readsTags)
  if (stmt.where !== undefined && readsTags(stmt.where)) {
    return false
  }
  let ok = true
  const walk = (e: Expr): void => {
    if (e.kind === 'call' && isAggregateName(e.name)) {
      // ELAPSED in a window reads the whole partition's span through a window over the groups
      // HISTOGRAM's rows come from unnest, which cannot be a per-child column
      ok &&= !e.args.some(readsTags) && !(e.name === 'elapsed' && window !== undefined) && !['histogram', 'twa', 'leastsquares'].includes(e.name)
      return
    }
    if (containsSeries(e)) {
      ok = false
    }
    children(e).forEach(walk)
  }
  items.forEach((i) => walk(i.expr))
  stmt.orderBy.forEach((o) => walk(o.expr))
  if (stmt.having !== undefined) {
    walk(stmt.having)
  }
  return ok && findCompanion(items, stmt) === undefined
}

/**
 * The pre-aggregated FROM source `b`: one row per (child, window) aggregated first, the join then
 * adds tbname and tags to it. `hoisted`: aggregate SQL -> its column alias; `tagCols`: the tag
 * join's columns under their `b` aliases.
 */
export function perChildJoin(
  baseSql: string,
  hoisted: Map<string, string>,
  tagCols: string[],
  tagsTable: string,
  windowed: boolean,
  w: SqlWriter,
  newest?: { ts: string; lastRows: Map<string, string> },
): string {
  const q = (n: string): string => w.q(n)
  const perChild = [`b.${q('__tid')} AS ${q('__tid')}`]
  const perChildKeys = [`b.${q('__tid')}`]
  if (windowed) {
    perChild.push(`b.${q('__w')} AS ${q('__w')}`)
    perChildKeys.push(`b.${q('__w')}`)
  }
  let inner: string
  if (!windowed && newest !== undefined && hoisted.size > 0 && newest.lastRows.size === hoisted.size) {
    // only LAST_ROWs: each child's newest row, found by its timestamp ((_tid, ts) is the key) and
    // joined back, instead of one arg_max per column over every row (TSBS lastpoint: 60 -> 4 ms
    // in DuckDB); the join's bound on ts lets the backend skip all but the newest blocks
    newest.lastRows.forEach((row, alias) => perChild.push(`${row} AS ${q(alias)}`))
    const m = `SELECT b.${q('__tid')} AS ${q('__tid')}, max(${newest.ts}) AS ${q('__m')} FROM (${baseSql}) AS b GROUP BY b.${q('__tid')}`
    inner = `SELECT ${perChild.join(', ')} FROM (${baseSql}) AS b JOIN (${m}) AS m ON b.${q('__tid')} = m.${q('__tid')} AND ${newest.ts} = m.${q('__m')}`
  } else {
    hoisted.forEach((alias, aggregateSql) => perChild.push(`${aggregateSql} AS ${q(alias)}`))
    inner = `SELECT ${perChild.join(', ')} FROM (${baseSql}) AS b GROUP BY ${perChildKeys.join(', ')}`
  }
  const joined = `SELECT i.*, ${tagCols.join(', ')} FROM (${inner}) AS i JOIN ${tagsTable} AS t ON i.${q('__tid')} = t.${q('_tid')}`
  return ` FROM (${joined}) AS b`
}
