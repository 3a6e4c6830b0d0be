import type { Catalog } from '../catalog/types.js'
import type { ColumnMeta, SqlContext } from '../result.js'
import type { Dialect } from '../../storage/dialect.js'
import type { Precision } from '../../storage/td-types.js'
import type { FillOptions } from './fill-windows.js'

/** What the planner needs besides the statement. */
export interface PlanEnv {
  catalog: Catalog
  dialect: Dialect
  ctx: SqlContext
  /** epoch ms of this statement's NOW */
  nowMs: number
  /**
   * false: never aggregate per child before the tag join (see preAggregable); only the
   * differential test turns it off, to compare both plans
   */
  preAggregate?: boolean
  /**
   * false: INTERVAL windows are always grouped by their aligned start, never numbered from a
   * lower time bound (see windowIndex); only the differential test turns it off
   */
  windowNumbers?: boolean
  /**
   * false: tag and tbname equalities in a super table's WHERE stay a tag join, never resolved to
   * `_tid` lists by the catalog's tag index (tag-filter.ts); only tests turn it off
   */
  tagIndex?: boolean
  /** information_schema tables; undefined when not wired */
  systemTable?: (name: string, catalog: Catalog, user: string) => { columns: ColumnMeta[]; rows: unknown[][] } | undefined
}

/** A planned SELECT: one backend statement plus how to turn its rows into the result. */
export interface SelectPlan {
  sql: string
  columns: ColumnMeta[]
  precision: Precision
  /** converts a backend value of each visible column into its result.ts form */
  convert: ((v: unknown) => unknown)[]
  /** FILL post-processing over rows ordered by (partition keys, window start) */
  fill?: Omit<FillOptions, 'convert' | 'width'>
}
