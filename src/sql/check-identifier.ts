import { identifierProblem } from '../identifier.js'
import { TD, TdError } from '../td-error.js'

/**
 * Name rules (sql-dialect.md 1.3): db names up to 64 bytes, table names up to 192, column and tag
 * names up to 64; back-quoted names may not contain `.`; and the rules every name follows
 * (identifierProblem: valid Unicode, no control characters). Violations: 9751 `Invalid identifier
 * name`.
 */
export function checkIdentifier(name: string, maxBytes: number): void {
  const problem = name.includes('.') ? 'contains a dot' : identifierProblem(name, maxBytes)
  if (problem !== undefined) {
    // TDengine's text; the reason is added where the name alone does not show it
    const why = problem.startsWith('contains a c') || problem.startsWith('is not') ? ` (the name ${problem})` : ''
    throw new TdError(TD.PAR_INVALID_IDENTIFIER_NAME, `Invalid identifier name: ${name}${why}`)
  }
}
