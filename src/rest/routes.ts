import { Hono } from 'hono'
import type { RowsOffload } from './encode/rows-offload.js'
import type { AppConfig } from '../config/types.js'
import type { Logger } from '../logger.js'
import type { SqlExecutor } from '../sql/result.js'
import type { Storage } from '../sql/catalog/types.js'
import { createAuthenticator } from './auth.js'
import { handleLogin, handleLoginMalformed } from './login.js'
import { paused } from './respond.js'
import { handleSql } from './sql-handler.js'
import { handleVgidGet, handleVgidPost } from './vgid.js'

/** The memory gate as /rest needs it (src/monitor/gate.ts `Gate` satisfies this). */
export interface RestGate {
  allPaused(): boolean
  queryPaused(): boolean
}

export interface RestDeps {
  config: AppConfig
  storage: Storage
  sql: SqlExecutor
  logger: Logger
  /** optional: without it nothing is ever paused */
  gate?: RestGate
  /** optional: the HTTP SQL log of `log.enableRecordHttpSql` (LoggerHandle.sqlLogger) */
  sqlLogger?: Logger
  /** optional: a worker that encodes parts of large results (encode/offload.ts) */
  encodeOffload?: RowsOffload
}

/**
 * Routes under `/rest` (paths relative to the `/rest` mount point of src/http/app.ts):
 * `/rest/sql[/{db}]`, `/rest/sql/{db}/vgid`, `/rest/vgid`, `/rest/login/{user}/{password}`.
 */
export function createRestRoutes(deps: RestDeps): Hono {
  const app = new Hono()
  const auth = createAuthenticator(deps.storage.catalog, deps.config.rest.tokens)

  // "all paused" refuses every /rest route before auth (adapter-behaviour 2.1).
  app.use('*', async (c, next) => {
    if (deps.gate?.allPaused() === true) {
      return paused('memory exceeds threshold')
    }
    await next()
  })

  app.post('/sql', (c) => handleSql(c, deps, auth))
  // `@tdengine/rest` posts to `/rest/sql/` by default: a direct alias, never a redirect.
  app.post('/sql/', (c) => handleSql(c, deps, auth))
  app.post('/sql/:db/vgid', (c) => handleVgidPost(c, deps, auth))
  app.post('/sql/:db', (c) => handleSql(c, deps, auth))
  app.get('/vgid', (c) => handleVgidGet(c, deps, auth))
  app.get('/login/:user/:password', (c) => handleLogin(c, deps))
  app.get('/login/*', () => handleLoginMalformed())
  app.get('/login', () => handleLoginMalformed())
  return app
}
