/** Questions the planner asks of the statement's expressions before compiling them. */
import { TD, TdError } from '../../td-error.js'
import type { Expr, SelectItem, SelectStmt } from './ast.js'
import type { Companion } from './compile-context.js'
import { FUNCTIONS, isAggregateName } from './functions.js'

export function exprKey(e: Expr): string {
  return JSON.stringify(e)
}

/** a GROUP BY position (`group by 1`) or select alias, as the item's expression */
export function resolvePositional(g: Expr, items: SelectItem[]): Expr {
  if (g.kind === 'num' && !g.isFloat) {
    const n = Number(g.text)
    if (n >= 1 && n <= items.length) {
      return items[n - 1].expr
    }
    throw new TdError(TD.PAR_WRONG_VALUE_TYPE, `Invalid value type: ${g.text}`)
  }
  if (g.kind === 'col' && g.table === undefined) {
    const aliased = items.find((i) => i.alias === g.name)
    if (aliased !== undefined) {
      return aliased.expr
    }
  }
  return g
}

/** the select item an ORDER BY term names (position, alias or the same expression) */
export function outputIndex(e: Expr, items: SelectItem[], names: Set<string>): number | undefined {
  if (e.kind === 'num' && !e.isFloat) {
    const n = Number(e.text)
    if (n >= 1 && n <= items.length) {
      return n - 1
    }
    throw new TdError(TD.PAR_WRONG_VALUE_TYPE, `Invalid value type: ${e.text}`)
  }
  if (e.kind === 'col' && e.table === undefined && names.has(e.name)) {
    const byAlias = items.findIndex((i) => i.alias === e.name)
    if (byAlias >= 0) {
      return byAlias
    }
  }
  const k = exprKey(e)
  const same = items.findIndex((i) => exprKey(i.expr) === k)
  return same >= 0 ? same : undefined
}

export function pseudoRole(e: Expr): 'wstart' | 'wend' | 'wduration' | undefined {
  if (e.kind === 'col' && e.table === undefined) {
    if (e.name === '_wstart') {
      return 'wstart'
    }
    if (e.name === '_wend') {
      return 'wend'
    }
    if (e.name === '_wduration') {
      return 'wduration'
    }
  }
  return undefined
}

export function children(e: Expr): Expr[] {
  switch (e.kind) {
    case 'call':
      return e.args
    case 'unary':
    case 'cast':
    case 'json':
      return [e.expr]
    case 'binary':
      return [e.left, e.right]
    case 'between':
      return [e.expr, e.low, e.high]
    case 'in':
      return [e.expr, ...e.list]
    case 'like':
      return [e.expr, e.pattern]
    case 'isNull':
      return [e.expr]
    case 'case':
      return [...(e.operand ? [e.operand] : []), ...e.whens.flatMap((w) => [w.when, w.then]), ...(e.else ? [e.else] : [])]
    default:
      return []
  }
}

export function containsSeries(e: Expr): boolean {
  const kind = e.kind === 'call' ? FUNCTIONS.get(e.name)?.kind : undefined
  if (kind === 'timeseries' || kind === 'rows') {
    return true
  }
  return children(e).some(containsSeries)
}

/** TOP, CSUM... (rows-funcs.ts): several rows per partition, never grouped */
export function containsRows(e: Expr): boolean {
  if (e.kind === 'call' && FUNCTIONS.get(e.name)?.kind === 'rows') {
    return true
  }
  return children(e).some(containsRows)
}

export function containsAgg(e: Expr): boolean {
  if (e.kind === 'call' && isAggregateName(e.name)) {
    return true
  }
  return children(e).some(containsAgg)
}

/** every column name the statement mentions, and whether a `*` needs the tag table */
export function collectRefs(stmt: SelectStmt): { names: Set<string>; star: boolean } {
  const names = new Set<string>()
  let star = false
  const walk = (e: Expr): void => {
    if (e.kind === 'col') {
      names.add(e.name)
    } else if (e.kind === 'star') {
      star = true
    }
    children(e).forEach(walk)
  }
  stmt.items.forEach((i) => walk(i.expr))
  const rest = [stmt.where, stmt.having, ...stmt.partitionBy, ...stmt.groupBy, ...stmt.orderBy.map((o) => o.expr)]
  rest.forEach((e) => {
    if (e !== undefined) {
      walk(e)
    }
  })
  // `count(*)` does not need the tag table, nor `first(*)`, `last(*)`, `last_row(*)` (data columns only, see expandItems)
  const tagFree = new Set(['count', 'first', 'last', 'last_row'])
  if (star && !stmt.items.some((i) => i.expr.kind === 'star' || (i.expr.kind === 'call' && !tagFree.has(i.expr.name) && i.expr.args.some((a) => a.kind === 'star')))) {
    star = false
  }
  return { names, star }
}

export function findCompanion(items: SelectItem[], stmt: SelectStmt): Companion | undefined {
  const sel: Companion[] = []
  const walk = (e: Expr): void => {
    if (e.kind === 'call' && ['first', 'last', 'last_row', 'min', 'max'].includes(e.name) && e.args.length === 1) {
      sel.push({ fn: e.name as Companion['fn'], arg: e.args[0] })
      return
    }
    if (e.kind === 'call' && isAggregateName(e.name)) {
      // an ordinary aggregate (avg, sum...) has no single row to borrow columns from
      plainAggregate = true
      return
    }
    children(e).forEach(walk)
  }
  let plainAggregate = false
  items.forEach((i) => walk(i.expr))
  if (stmt.window !== undefined || plainAggregate || sel.length !== 1) {
    return undefined
  }
  return sel[0]
}

export function constValue(e: Expr): unknown {
  switch (e.kind) {
    case 'num':
      return e.isFloat ? Number(e.text) : BigInt(e.text)
    case 'str':
      return e.value
    case 'bool':
      return e.value
    case 'null':
      return null
    default:
      throw new TdError(TD.PAR_WRONG_VALUE_TYPE, 'Invalid value type: fill value must be a constant')
  }
}

/** An AND chain's terms, left to right (none for an absent expression). */
export function conjuncts(e: Expr | undefined, out: Expr[] = []): Expr[] {
  if (e === undefined) {
    return out
  }
  if (e.kind === 'binary' && e.op === 'AND') {
    conjuncts(e.left, out)
    conjuncts(e.right, out)
  } else {
    out.push(e)
  }
  return out
}
