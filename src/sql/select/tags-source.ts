/**
 * `SELECT TAGS tag, tbname FROM stable`: one row per child table, read from the tag table (a
 * child table: its own single row, its tags being constants of the statement).
 */
import { TD, TdError } from '../../td-error.js'
import type { SelectStmt } from './ast.js'
import type { PlanEnv, SelectPlan } from './select-plan.js'
import { resolveFrom, type Source } from './sources.js'
import type { SqlWriter } from './sql-writer.js'

export function tagsSource(stmt: SelectStmt, env: PlanEnv, w: SqlWriter, planInner: (s: SelectStmt) => SelectPlan): Source {
  const base = stmt.from === undefined ? undefined : resolveFrom(stmt.from, env, w, planInner)
  if (base === undefined || (base.kind !== 'stable' && base.kind !== 'child')) {
    throw new TdError(TD.PAR_INVALID_TAGS_PC, 'The _TAGS pseudo column can only be used for subtable and supertable queries')
  }
  const tags = base.cols.filter((c) => c.tag)
  const src: Source = {
    kind: 'normal',
    cols: tags,
    starCols: tags,
    qualifiers: base.qualifiers,
    precision: base.precision,
    from: () => (base.kind === 'stable' ? `${base.tagsTable as string} AS t` : '(SELECT 1 AS one) AS t'),
    baseWhere: [],
  }
  if (base.tbname !== undefined) {
    src.tbname = base.tbname
  }
  return src
}
