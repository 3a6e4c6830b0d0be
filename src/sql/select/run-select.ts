import type { Storage } from '../../storage/index.js'
import { TD, TdError } from '../errors.js'
import type { SqlContext, SqlResult } from '../result.js'
import { systemTable } from '../system-tables.js'
import type { SelectStmt } from './ast.js'
import { planSelect, type SelectPlan } from './plan-select.js'
import { fillWindows } from './window.js'

export interface SelectEnv {
  storage: Storage
  ctx: SqlContext
  /** epoch ms clock for NOW/TODAY (tests fix it) */
  now?: () => number
  /** see PlanEnv.preAggregate */
  preAggregate?: boolean
}

/**
 * Runs a SELECT: plans it against the catalog, streams the backend rows chunk by chunk and
 * converts each value to its result.ts form. Only FILL keeps state (one gap of windows).
 */
export async function runSelect(select: SelectStmt, env: SelectEnv): Promise<SqlResult> {
  const plan = planSelect(select, {
    catalog: env.storage.catalog,
    dialect: env.storage.engine.dialect,
    ctx: env.ctx,
    nowMs: env.now?.() ?? Date.now(),
    systemTable,
    ...(env.preAggregate === undefined ? {} : { preAggregate: env.preAggregate }),
  })
  const opts = env.ctx.signal === undefined ? {} : { signal: env.ctx.signal }
  const raw = backendRows(env.storage, plan, opts)
  return { kind: 'rows', columns: plan.columns, precision: plan.precision, rows: convertRows(raw, plan) }
}

async function* backendRows(storage: Storage, plan: SelectPlan, opts: { signal?: AbortSignal }): AsyncIterable<unknown[][]> {
  try {
    for await (const chunk of storage.engine.stream(plan.sql, opts)) {
      yield chunk
    }
  } catch (err) {
    if (err instanceof TdError) {
      throw err
    }
    // never leak backend error codes; keep the backend text for the operator
    throw new TdError(TD.GENERIC, `Query failed: ${(err as Error).message}`, { cause: err })
  }
}

async function* convertRows(src: AsyncIterable<unknown[][]>, plan: SelectPlan): AsyncIterable<unknown[][]> {
  const width = plan.columns.length
  const conv = plan.convert
  const converted = async function* (): AsyncIterable<unknown[][]> {
    for await (const chunk of src) {
      // The engine's rows are fresh arrays of this query: converted in place, not copied (a
      // 160,000-row aggregate allocated as many arrays again). Columns past `width` are hidden
      // ones (window start, partition keys) that only FILL reads, in their raw form.
      for (let r = 0; r < chunk.length; r++) {
        const row = chunk[r]
        for (let i = 0; i < width; i++) {
          row[i] = conv[i](row[i])
        }
        if (plan.fill !== undefined) {
          const w = row[plan.fill.wIndex]
          row[plan.fill.wIndex] = typeof w === 'bigint' ? w : BigInt(w as number)
        }
      }
      yield chunk
    }
  }
  if (plan.fill === undefined) {
    yield* converted()
    return
  }
  yield* fillWindows(converted(), { ...plan.fill, convert: conv, width })
}
