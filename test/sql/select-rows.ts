import type { Storage } from '../../src/sql/catalog/types.js'
import { Cursor } from '../../src/sql/cursor.js'
import { tokenize } from '../../src/sql/lexer.js'
import { parseSelect } from '../../src/sql/select/parse-select.js'
import { runSelect, type SelectEnv } from '../../src/sql/select/run-select.js'

/** Runs a SELECT straight through the SQL layer (no HTTP) and collects its result rows, visible columns only. */
export async function selectRows(
  storage: Storage,
  sql: string,
  plan: Pick<SelectEnv, 'preAggregate' | 'windowNumbers'> = {},
): Promise<unknown[][]> {
  const stmt = parseSelect(new Cursor(sql, tokenize(sql)))
  const result = await runSelect(stmt, { storage, ctx: { user: 'root' }, ...plan })
  if (result.kind !== 'rows') {
    throw new Error('expected rows')
  }
  const out: unknown[][] = []
  for await (const chunk of result.rows) {
    out.push(...chunk.map((r) => r.slice(0, result.columns.length)))
  }
  return out
}
