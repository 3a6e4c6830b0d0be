import { Hono } from 'hono'
import type { AppConfig } from '../config/types.js'
import type { Logger } from '../logger.js'
import type { SqlExecutor } from '../sql/result.js'
import type { Storage } from '../storage/index.js'

export interface RestDeps {
  config: AppConfig
  storage: Storage
  sql: SqlExecutor
  logger: Logger
}

/** Routes under `/rest`: `/rest/sql[/{db}]`, `/rest/sql/{db}/vgid`, `/rest/vgid`, `/rest/login/...`. */
export function createRestRoutes(_deps: RestDeps): Hono {
  return new Hono()
}
