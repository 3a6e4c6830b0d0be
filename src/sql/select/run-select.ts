import type { Storage } from '../catalog/types.js'
import type { NumericChunk } from '../../storage/types.js'
import type { SqlContext, SqlResult } from '../result.js'
import { systemTable } from '../system-tables.js'
import type { SelectStmt } from './ast.js'
import { planSelect } from './plan-select.js'
import type { PlanEnv, SelectPlan } from './select-plan.js'
import { isInterp, runInterp } from './run-interp.js'
import { fillWindows } from './fill-windows.js'
import { backendError } from './backend-errors.js'

export interface SelectEnv {
  storage: Storage
  ctx: SqlContext
  /** epoch ms clock for NOW/TODAY (tests fix it) */
  now?: () => number
  /** see PlanEnv.preAggregate */
  preAggregate?: boolean
  /** see PlanEnv.windowNumbers */
  windowNumbers?: boolean
  /** see PlanEnv.tagIndex */
  tagIndex?: boolean
  /** system tables besides information_schema's (performance_schema) */
  moreSystemTables?: PlanEnv['systemTable']
}

/**
 * Runs a SELECT: plans it against the catalog, streams the backend rows chunk by chunk and
 * converts each value to its result.ts form. Only FILL keeps state (one gap of windows).
 */
export async function runSelect(select: SelectStmt, env: SelectEnv): Promise<SqlResult> {
  const planEnv: PlanEnv = {
    catalog: env.storage.catalog,
    dialect: env.storage.engine.dialect,
    ctx: env.ctx,
    nowMs: env.now?.() ?? Date.now(),
    systemTable: env.moreSystemTables === undefined ? systemTable : (name, catalog, user) => env.moreSystemTables?.(name, catalog, user) ?? systemTable(name, catalog, user),
    ...(env.preAggregate === undefined ? {} : { preAggregate: env.preAggregate }),
    ...(env.windowNumbers === undefined ? {} : { windowNumbers: env.windowNumbers }),
    ...(env.tagIndex === undefined ? {} : { tagIndex: env.tagIndex }),
  }
  const opts = env.ctx.signal === undefined ? {} : { signal: env.ctx.signal }
  const engine = env.storage.engine
  if (isInterp(select)) {
    return runInterp(select, (inner) => planSelect(inner, planEnv), (sql) => backendRows(() => engine.stream(sql, opts)), planEnv.nowMs)
  }
  const plan = planSelect(select, planEnv)
  const rows = convertRows(backendRows(() => engine.stream(plan.sql, opts)), plan)
  if (plan.fill !== undefined || engine.streamNumeric === undefined || !plan.columns.every((c) => NUMERIC_TYPES.has(c.type))) {
    return { kind: 'rows', columns: plan.columns, precision: plan.precision, rows }
  }
  const streamNumeric = engine.streamNumeric.bind(engine)
  const numeric = numericRows(backendRows(() => streamNumeric(plan.sql, opts)), plan)
  return { kind: 'rows', columns: plan.columns, precision: plan.precision, rows, numeric }
}

/** Result types whose values a NumericChunk carries exactly only from an integer source. */
const INTEGRAL_TYPES = new Set<string>([
  'TINYINT', 'SMALLINT', 'INT', 'BIGINT', 'TINYINT UNSIGNED', 'SMALLINT UNSIGNED', 'INT UNSIGNED', 'BIGINT UNSIGNED', 'TIMESTAMP',
])
/** Result types whose values a NumericChunk carries exactly. */
const NUMERIC_TYPES = new Set<string>([...INTEGRAL_TYPES, 'BOOL', 'FLOAT', 'DOUBLE'])

/** The engine's chunks, its errors as TdError; `open` runs at the first pull (only the form consumed starts a query). */
async function* backendRows<T>(open: () => AsyncIterable<T>): AsyncIterable<T> {
  try {
    for await (const chunk of open()) {
      yield chunk
    }
  } catch (err) {
    // a backend error as TDengine's code and words (backend-errors.ts)
    throw backendError(err)
  }
}

/**
 * The backend's chunks for a result of NUMERIC_TYPES columns (no FILL): columns pass through
 * (hidden ones dropped) when they already are the result's values, i.e. an integer result
 * column has an integer source; otherwise (a DOUBLE feeding a BIGINT is truncated) the chunk
 * becomes rows, converted as in convertRows.
 */
async function* numericRows(src: AsyncIterable<unknown[][] | NumericChunk>, plan: SelectPlan): AsyncIterable<unknown[][] | NumericChunk> {
  const width = plan.columns.length
  const conv = plan.convert
  for await (const chunk of src) {
    if (Array.isArray(chunk)) {
      yield convertInPlace(chunk, width, conv)
      continue
    }
    const columns = chunk.columns.slice(0, width)
    if (columns.every((c, i) => c.integral || !INTEGRAL_TYPES.has(plan.columns[i].type))) {
      yield { rowCount: chunk.rowCount, columns }
      continue
    }
    const rows = new Array<unknown[]>(chunk.rowCount)
    for (let r = 0; r < rows.length; r++) {
      const row = new Array<unknown>(width)
      for (let i = 0; i < width; i++) {
        const c = columns[i]
        row[i] = c.nulls !== undefined && c.nulls[r] === 1 ? null : conv[i](c.values[r])
      }
      rows[r] = row
    }
    yield rows
  }
}

/**
 * Backend rows converted to result values. The engine's rows are fresh arrays of this query:
 * converted in place, not copied (a copy would allocate as many arrays again).
 * Columns past `width` are hidden ones (window start, partition keys) that only FILL reads, in
 * their raw form.
 */
function convertInPlace(chunk: unknown[][], width: number, conv: SelectPlan['convert']): unknown[][] {
  for (let r = 0; r < chunk.length; r++) {
    const row = chunk[r]
    for (let i = 0; i < width; i++) {
      row[i] = conv[i](row[i])
    }
  }
  return chunk
}

async function* convertRows(src: AsyncIterable<unknown[][]>, plan: SelectPlan): AsyncIterable<unknown[][]> {
  const width = plan.columns.length
  const conv = plan.convert
  const fill = plan.fill
  if (fill === undefined) {
    for await (const chunk of src) {
      yield convertInPlace(chunk, width, conv)
    }
    return
  }
  const converted = async function* (): AsyncIterable<unknown[][]> {
    for await (const chunk of src) {
      convertInPlace(chunk, width, conv)
      for (const row of chunk) {
        const w = row[fill.wIndex]
        row[fill.wIndex] = typeof w === 'bigint' ? w : BigInt(w as number)
      }
      yield chunk
    }
  }
  yield* fillWindows(converted(), { ...fill, convert: conv, width })
}
