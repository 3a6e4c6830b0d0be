/**
 * @module
 * What the /rest routes (routes.ts and its handlers: sql-handler.ts, vgid.ts, login.ts) are built
 * from; src/lifecycle.ts provides it.
 */
import type { AppConfig } from '../config/types.js'
import type { LoginGuard } from '../http/auth/login-guard.js'
import type { Logger } from '../logger.js'
import type { SqlExecutor } from '../sql/result.js'
import type { Storage } from '../sql/catalog/types.js'
import type { RowsOffload } from './encode/rows-offload.js'

/** The memory gate as /rest needs it (src/monitor/gate.ts `Gate` satisfies this). */
export interface RestGate {
  allPaused(): boolean
  queryPaused(): boolean
}

import type { WorkBudget } from '../monitor/work-budget.js'

export interface RestDeps {
  config: AppConfig
  storage: Storage
  sql: SqlExecutor
  logger: Logger
  /** optional: the process's one login guard, shared by /rest and the write routes (one per module without it) */
  logins?: LoginGuard
  /** optional: without it nothing is ever paused */
  gate?: RestGate
  /** optional: the HTTP SQL log of `log.enableRecordHttpSql` (LoggerHandle.sqlLogger) */
  sqlLogger?: Logger
  /** optional: a worker that encodes parts of large results (encode-offload.ts) */
  encodeOffload?: RowsOffload
  /** optional: the work budget a streamed query result reserves its share of (monitor.workMemory) */
  work?: QueryWork
}

/** What a query reserves while its result is produced and sent. */
export interface QueryWork {
  budget: WorkBudget
  /** bytes one streamed result may hold at once (chunks fetched, encoded, queued for the socket) */
  queryBytes: number
  /** monitor.workWait, ms */
  waitMs: number
  refused?: (kind: string) => void
}
