/**
 * The scan columns STATECOUNT and STATEDURATION count within: for each such call, a running
 * count of the rows that fail its condition, per partition in time order. Rows with the same
 * count form one run (a failing row and the rows after it), so the select list needs only one
 * more window over (partition, run). NULL values neither fail nor end a run.
 */
import type { Expr } from './ast.js'
import type { CompileCtx, Ref } from './compile-context.js'
import { compile } from './compile-expr.js'
import { children } from './expr-walk.js'
import type { QueryShape } from './query-shape.js'
import { runColumnName, stateCondition } from './rows-funcs.js'
import type { SqlWriter } from './sql-writer.js'
import { fixed } from './type-info.js'

/** backend columns `expr AS alias` for the scan; registers each in `mainScope` under runColumnName */
export function stateRunColumns(shape: QueryShape, whereCtx: CompileCtx, w: SqlWriter, mainScope: Map<string, Ref>): string[] {
  const src = shape.src
  const ts = src?.ts === undefined ? undefined : whereCtx.scope.get(src.ts)?.sql
  if (ts === undefined) {
    return []
  }
  const out: string[] = []
  const walk = (e: Expr): void => {
    if (e.kind === 'call' && (e.name === 'statecount' || e.name === 'stateduration') && e.args.length >= 3) {
      const key = runColumnName(e)
      if (!mainScope.has(key)) {
        const x = compile(e.args[0], whereCtx).sql
        const part = shape.stmt.partitionBy.map((g) => compile(g, whereCtx).sql)
        const alias = `__r${out.length}`
        const over = `OVER (${part.length > 0 ? `PARTITION BY ${part.join(', ')} ` : ''}ORDER BY ${ts} ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)`
        out.push(`sum(CASE WHEN ${x} IS NOT NULL AND NOT ${stateCondition(e, x)} THEN 1 ELSE 0 END) ${over} AS ${w.q(alias)}`)
        mainScope.set(key, { sql: `b.${w.q(alias)}`, type: fixed('BIGINT'), ts: false })
      }
    }
    children(e).forEach(walk)
  }
  shape.items.forEach((i) => walk(i.expr))
  return out
}
