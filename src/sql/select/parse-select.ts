import { TD, TdError } from '../errors.js'
import type { SelectStmt } from './ast.js'

/**
 * Parses a SELECT statement from the cursor positioned at the SELECT keyword.
 * Placeholder signature so the statement parser compiles; the real parser replaces it.
 */
export function parseSelect(_c: unknown): SelectStmt {
  throw new TdError(TD.PAR_INTERNAL_ERROR, 'Parser internal error: SELECT parser not wired yet')
}
