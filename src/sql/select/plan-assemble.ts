import { TD, TdError } from '../../td-error.js'
import { compile } from './compile-expr.js'
import type { Grouping } from './plan-grouping.js'
import type { Output } from './plan-output.js'
import type { Scan } from './plan-scan.js'
import { perChildJoin } from './pre-aggregate.js'
import type { QueryShape } from './query-shape.js'
import type { SelectPlan } from './select-plan.js'
import type { SqlWriter } from './sql-writer.js'

/**
 * Writes the backend statement: the select list over the scan `b` (or the pre-aggregated join),
 * GROUP BY and HAVING, an outer query `z` for per-partition LIMIT, SLIMIT and DIFF/DERIVATIVE's
 * row filter or to drop hidden columns, then ORDER BY and LIMIT.
 */
export function assemble(shape: QueryShape, scan: Scan, grouping: Grouping, out: Output, fill: SelectPlan['fill'], w: SqlWriter): SelectPlan {
  const { stmt, src, window, aggregated, pre } = shape
  const { ctx, keySqls } = grouping
  const { selectSql, hidden, aliases, width, order, orderRefs } = out
  // window functions for per-partition LIMIT and SLIMIT go after every other column
  const windowCols: string[] = []
  let sql = ''
  const selectHead = (): string => `SELECT ${stmt.distinct ? 'DISTINCT ' : ''}${[...selectSql, ...hidden, ...windowCols].join(', ')}`
  const having = aggregated && stmt.having !== undefined ? compile(stmt.having, ctx).sql : undefined
  if (pre && scan.sql !== undefined && src?.tagsTable !== undefined) {
    const ts = src.ts === undefined ? undefined : scan.mainScope.get(src.ts)?.sql
    const newest = ts === undefined ? undefined : { ts, lastRows: grouping.lastRows }
    sql += perChildJoin(scan.sql, grouping.hoisted, scan.tagCols, src.tagsTable, window !== undefined, w, newest)
    if (having !== undefined) {
      sql += ` WHERE ${having}`
    }
  } else if (scan.sql !== undefined) {
    sql += ` FROM (${scan.sql}) AS b`
  }
  if (aggregated && !pre) {
    const groupBy = [...keySqls]
    if (window !== undefined || stmt.rowWindow !== undefined) {
      groupBy.push(`b.${w.q('__w')}`)
    }
    if (groupBy.length > 0) {
      sql += ` GROUP BY ${groupBy.join(', ')}`
    }
    if (having !== undefined) {
      sql += ` HAVING ${having}`
    }
  } else if (!aggregated && stmt.having !== undefined) {
    throw new TdError(TD.PAR_SYNTAX_ERROR, 'syntax error near "having" (HAVING needs GROUP BY or an aggregate)')
  }

  const visible = (): string => aliases.slice(0, width).map((a) => `z.${w.q(a)}`).join(', ')
  const perPartitionLimit = stmt.limit !== undefined && stmt.partitionBy.length > 0 && fill === undefined
  const valid = ctx.series?.valid ?? []
  const wrap = perPartitionLimit || stmt.slimit !== undefined || valid.length > 0
  if (wrap) {
    const extra: string[] = []
    const filters: string[] = []
    // LIMIT per partition counts output rows only: with DIFF, TOP... it numbers them after the row filter
    const limitAfterValid = valid.length > 0 && perPartitionLimit
    if (valid.length > 0) {
      extra.push(`(${valid.join(' AND ')}) AS ${w.q('__valid')}`)
      filters.push(w.q('__valid'))
    }
    const part = stmt.partitionBy.length > 0 ? keySqls.slice(0, stmt.partitionBy.length) : keySqls
    if (perPartitionLimit && stmt.limit !== undefined && !limitAfterValid) {
      const within = order.map((o) => `${o.sql} ${o.dir}`).join(', ')
      extra.push(`row_number() OVER (PARTITION BY ${part.join(', ')}${within === '' ? '' : ` ORDER BY ${within}`}) AS ${w.q('__rn')}`)
      filters.push(`${w.q('__rn')} > ${stmt.limit.offset}`, `${w.q('__rn')} <= ${stmt.limit.offset + stmt.limit.limit}`)
    }
    if (stmt.slimit !== undefined) {
      extra.push(`dense_rank() OVER (ORDER BY ${part.map((k) => `${k} ASC NULLS LAST`).join(', ')}) AS ${w.q('__pr')}`)
      filters.push(`${w.q('__pr')} > ${stmt.slimit.offset}`, `${w.q('__pr')} <= ${stmt.slimit.offset + stmt.slimit.limit}`)
    }
    if (stmt.distinct) {
      throw new TdError(TD.PAR_SYNTAX_ERROR, 'syntax error near "distinct" (DISTINCT with PARTITION BY limits is not supported)')
    }
    windowCols.push(...extra)
    if (limitAfterValid && stmt.limit !== undefined) {
      const keys = out.keyIndexes.map((i) => w.q(aliases[i]))
      const rn = `row_number() OVER (PARTITION BY ${keys.join(', ')}${orderRefs.length > 0 ? ` ORDER BY ${orderRefs.join(', ')}` : ''}) AS ${w.q('__rn')}`
      const kept = `SELECT y.*, ${rn} FROM (SELECT * FROM (${selectHead()}${sql}) AS x WHERE ${filters.join(' AND ')}) AS y`
      const rnq = w.q('__rn')
      sql = `SELECT ${visible()} FROM (${kept}) AS z WHERE ${rnq} > ${stmt.limit.offset} AND ${rnq} <= ${stmt.limit.offset + stmt.limit.limit}`
    } else {
      sql = `SELECT ${fill === undefined ? visible() : '*'} FROM (${selectHead()}${sql}) AS z WHERE ${filters.join(' AND ')}`
    }
  } else if (fill === undefined && hidden.length > 0) {
    // hidden sort/partition keys only order the rows: keep them out of the result so they are
    // neither sent nor converted (a tbname key meant one string decode per row)
    sql = `SELECT ${visible()} FROM (${selectHead()}${sql}) AS z`
  } else {
    sql = selectHead() + sql
  }
  if (orderRefs.length > 0) {
    sql += ` ORDER BY ${orderRefs.join(', ')}`
  }
  if (stmt.limit !== undefined && !perPartitionLimit && fill === undefined) {
    sql += ` LIMIT ${stmt.limit.limit} OFFSET ${stmt.limit.offset}`
  }
  const plan: SelectPlan = { sql, columns: out.columns, precision: shape.precision, convert: out.convert }
  if (fill !== undefined) {
    plan.fill = fill
  }
  return plan
}
