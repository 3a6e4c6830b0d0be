/**
 * JSON tag operators: `jtag->'key'` and `jtag CONTAINS 'key'`, and comparisons of a member with
 * a constant. JSON tags are stored as JSON text on every backend; the dialect reads members.
 * Takes already compiled operands, so compile-expr.ts can call in without an import cycle.
 */
import { TD, TdError } from '../../td-error.js'
import type { Expr } from './ast.js'
import type { Compiled } from './compile-context.js'
import type { SqlWriter } from './sql-writer.js'
import { fixed } from './type-info.js'

const BOOL = fixed('BOOL')

function requireJson(doc: Compiled, text: string): void {
  if (doc.type.type !== 'JSON') {
    throw new TdError(TD.PAR_WRONG_VALUE_TYPE, `Invalid value type: ${text}`)
  }
}

/** `doc->'key'`: the member's JSON text (`"v"`, `35`, `true`, `null`); NULL when absent */
export function jsonMember(doc: Compiled, key: string, w: SqlWriter): Compiled {
  requireJson(doc, `->'${key}'`)
  return { sql: w.dialect.jsonGet(doc.sql, key), type: { type: 'JSON', length: doc.type.length } }
}

/** `doc CONTAINS 'key'`: the key is present (false for a NULL tag) */
export function jsonContains(doc: Compiled, key: string, w: SqlWriter): Compiled {
  requireJson(doc, `contains '${key}'`)
  return { sql: `(${w.dialect.jsonKind(doc.sql, key)} IS NOT NULL)`, type: BOOL }
}

/**
 * `doc->'key' <op> constant`, compared within the constant's kind (string, number, bool) as
 * TDengine does: an absent member gives NULL; a member of another kind is unequal to the
 * constant (so `!=` holds) and neither smaller nor greater.
 */
export function jsonCompare(op: string, doc: Compiled, key: string, constant: Expr, w: SqlWriter): Compiled | undefined {
  requireJson(doc, `->'${key}'`)
  const d = w.dialect
  const text = d.jsonText(doc.sql, key)
  let kind: string
  let value: string
  let lit: string
  switch (constant.kind) {
    case 'str':
      kind = 'string'
      value = text
      lit = d.quoteString(constant.value)
      break
    case 'num':
      kind = 'number'
      value = `CAST(${text} AS ${w.physType('DOUBLE')})`
      lit = `CAST(${constant.text} AS ${w.physType('DOUBLE')})`
      break
    case 'bool':
      kind = 'boolean'
      value = `CAST(${text} AS BOOLEAN)`
      lit = constant.value ? 'TRUE' : 'FALSE'
      break
    case 'null':
      return { sql: 'CAST(NULL AS BOOLEAN)', type: BOOL }
    default:
      return undefined
  }
  const sqlOp = op === '!=' ? '<>' : op
  const kindSql = d.jsonKind(doc.sql, key)
  const otherKind = op === '!=' ? 'TRUE' : 'FALSE'
  return {
    sql: `(CASE WHEN ${kindSql} IS NULL THEN CAST(NULL AS BOOLEAN) WHEN ${kindSql} = '${kind}' THEN (${value} ${sqlOp} ${lit}) ELSE ${otherKind} END)`,
    type: BOOL,
  }
}

/** a member as text for LIKE / MATCH: only string members match */
export function jsonStringText(doc: Compiled, key: string, w: SqlWriter): Compiled {
  requireJson(doc, `->'${key}'`)
  const d = w.dialect
  return { sql: `(CASE WHEN ${d.jsonKind(doc.sql, key)} = 'string' THEN ${d.jsonText(doc.sql, key)} END)`, type: { type: 'VARCHAR', length: doc.type.length } }
}
