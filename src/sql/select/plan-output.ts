import { TD, TdError } from '../../td-error.js'
import type { ColumnMeta } from '../result.js'
import type { OrderItem } from './ast.js'
import type { CompileCtx } from './compile-context.js'
import { compile } from './compile-expr.js'
import { containsAgg, outputIndex, pseudoRole } from './expr-walk.js'
import type { Grouping } from './plan-grouping.js'
import type { QueryShape } from './query-shape.js'
import type { SqlWriter } from './sql-writer.js'
import { converter } from './value-converter.js'

/** An output column's part in FILL: a window pseudo column, an aggregate (filled) or other. */
type ColumnRole = 'wstart' | 'wend' | 'wduration' | 'agg' | 'other'

/** One ORDER BY term in backend SQL; `output`: the select item it names. */
interface OrderTerm {
  sql: string
  dir: string
  output?: number
}

/** The select list: visible columns `oN`, then hidden ones (window start, partition and sort keys). */
export interface Output {
  columns: ColumnMeta[]
  convert: ((v: unknown) => unknown)[]
  /** visible columns as `expr AS oN` */
  selectSql: string[]
  roles: ColumnRole[]
  /** every column's alias, visible then hidden */
  aliases: string[]
  /** visible column count */
  width: number
  /** hidden columns as `expr AS alias` */
  hidden: string[]
  /** index of the window start column; -1 without a window */
  wIndex: number
  /** indexes of the partition key columns (none with DISTINCT) */
  keyIndexes: number[]
  order: OrderTerm[]
  /** ORDER BY over the column aliases */
  orderRefs: string[]
}

/** Compiles the select list, then the hidden columns and the ORDER BY terms that read them. */
export function selectList(shape: QueryShape, grouping: Grouping, w: SqlWriter): Output {
  const { stmt, items, window } = shape
  const { ctx, keySqls } = grouping
  const columns: ColumnMeta[] = []
  const convert: ((v: unknown) => unknown)[] = []
  const selectSql: string[] = []
  const roles: ColumnRole[] = []
  const names = new Set<string>()
  // backend expression -> column index, so hidden columns reuse an identical selected one
  const sqlIndex = new Map<string, number>()
  const aliases: string[] = []
  items.forEach((it, i) => {
    const c = compile(it.expr, ctx)
    const name = it.alias ?? it.text
    names.add(name)
    columns.push({ name, type: c.type.type, length: c.type.length })
    convert.push(converter(c.type))
    selectSql.push(`${c.sql} AS ${w.q(`o${i}`)}`)
    aliases.push(`o${i}`)
    if (!sqlIndex.has(c.sql)) {
      sqlIndex.set(c.sql, i)
    }
    roles.push(pseudoRole(it.expr) ?? (containsAgg(it.expr) ? 'agg' : 'other'))
  })
  const width = items.length

  // hidden columns: window start, partition keys, sort keys
  const hidden: string[] = []
  const hiddenCol = (sql: string, alias: string): number => {
    const existing = sqlIndex.get(sql)
    if (existing !== undefined) {
      return existing
    }
    const idx = width + hidden.length
    hidden.push(`${sql} AS ${w.q(alias)}`)
    aliases.push(alias)
    sqlIndex.set(sql, idx)
    return idx
  }
  let wIndex = -1
  if (window !== undefined || ctx.window !== undefined) {
    wIndex = hiddenCol(ctx.window?.w as string, '__w')
  }
  const keyIndexes: number[] = []
  if (!stmt.distinct) {
    stmt.partitionBy.forEach((_g, i) => {
      keyIndexes.push(hiddenCol(keySqls[i], `__k${i}`))
    })
  }
  const order = orderTerms(shape, ctx, names, keySqls, w)
  const orderRefs: string[] = []
  order.forEach((o, i) => {
    const idx = o.output ?? hiddenCol(o.sql, `__s${i}`)
    orderRefs.push(`${w.q(aliases[idx])} ${o.dir}`)
  })
  return { columns, convert, selectSql, roles, aliases, width, hidden, wIndex, keyIndexes, order, orderRefs }
}

/** ORDER BY as written, or the default order: partition keys, then window start or (_tid, ts) */
function orderTerms(shape: QueryShape, ctx: CompileCtx, names: Set<string>, keySqls: string[], w: SqlWriter): OrderTerm[] {
  const { stmt, items, src, aggregated } = shape
  const dir = (o: OrderItem): string => {
    const nullsFirst = o.nullsFirst ?? o.desc
    return `${o.desc ? 'DESC' : 'ASC'} NULLS ${nullsFirst ? 'FIRST' : 'LAST'}`
  }
  if (stmt.window?.fill !== undefined && stmt.window.fill.mode !== 'none' && stmt.orderBy.length > 0) {
    // FILL walks windows in ascending order per partition; other orders would need the whole result
    const only = stmt.orderBy[0]
    const idx = outputIndex(only.expr, items, names)
    const target = idx === undefined ? only.expr : items[idx].expr
    if (stmt.orderBy.length > 1 || pseudoRole(target) !== 'wstart') {
      throw new TdError(TD.PAR_SYNTAX_ERROR, 'syntax error near "order by" (with FILL only ORDER BY _wstart is supported)')
    }
  }
  if (stmt.orderBy.length > 0 && !(stmt.window?.fill !== undefined && stmt.window.fill.mode !== 'none')) {
    return stmt.orderBy.map((o) => {
      const idx = outputIndex(o.expr, items, names)
      if (idx !== undefined) {
        return { sql: compile(items[idx].expr, ctx).sql, dir: dir(o), output: idx }
      }
      if (stmt.distinct) {
        throw new TdError(TD.PAR_SYNTAX_ERROR, 'syntax error near "order" (ORDER BY with DISTINCT must name selected columns)')
      }
      return { sql: compile(o.expr, ctx).sql, dir: dir(o) }
    })
  }
  if (stmt.distinct || src === undefined) {
    return []
  }
  const asc = 'ASC NULLS LAST'
  const terms = keySqls.map((k) => ({ sql: k, dir: asc }))
  if (ctx.window !== undefined) {
    terms.push({ sql: ctx.window?.w ?? `b.${w.q('__w')}`, dir: asc })
  }
  if (shape.window !== undefined && shape.rowsFn && src.ts !== undefined) {
    // TOP... in windows: each window's rows in time order
    const tsRef = ctx.scope.get(src.ts)
    if (tsRef !== undefined) {
      terms.push({ sql: tsRef.sql, dir: asc })
    }
  } else if (aggregated && ctx.agg?.rowOrder !== undefined) {
    // HISTOGRAM: each group's bins in order
    terms.push({ sql: ctx.agg.rowOrder, dir: asc })
  } else if (shape.window === undefined && !aggregated && src.ts !== undefined) {
    if (src.kind === 'stable' && stmt.partitionBy.length === 0 && stmt.limit !== undefined) {
      // TDengine promises no order across child tables without ORDER BY. Sorting by (_tid, ts)
      // under a LIMIT makes the backend keep a top-N heap of the whole LIMIT before the first
      // row; storage order streams instead.
      return terms
    }
    // TOP, CSUM... over a super table: one timeline, so time order alone
    if (src.tidRaw !== undefined && stmt.partitionBy.length === 0 && !shape.rowsFn) {
      terms.push({ sql: `b.${w.q('__tid')}`, dir: asc })
    }
    const tsRef = ctx.scope.get(src.ts)
    if (tsRef !== undefined) {
      terms.push({ sql: tsRef.sql, dir: asc })
    }
  }
  return terms
}
