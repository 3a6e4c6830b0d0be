import { Hono } from 'hono'
import { createAuthenticator } from '../http/auth/authorization.js'
import { LoginGuard } from '../http/auth/login-guard.js'
import { handleLogin, handleLoginMalformed } from './login.js'
import type { RestDeps } from './rest-deps.js'
import { tdengineAuth } from '../http/middleware/auth.js'
import { restRetryAfter } from '../http/middleware/gate.js'
import { respond, sqlProblem, type RestFailure } from '../http/error-table.js'
import { handleSql } from './sql-handler.js'
import { restBody, sqlBody } from './sql-body.js'
import { handleVgidGet, handleVgidPost } from './vgid.js'

/**
 * Routes under `/rest` (paths relative to the `/rest` mount point of src/http/app.ts):
 * `/rest/sql[/{db}]`, `/rest/sql/{db}/vgid`, `/rest/vgid`, `/rest/login/{user}/{password}`.
 */
export function createRestRoutes(deps: RestDeps): Hono {
  const app = new Hono()
  const logins = deps.logins ?? new LoginGuard(deps.storage.catalog)
  const authenticator = createAuthenticator(logins, deps.config.rest.tokens)

  // "all paused" refuses every /rest route before auth (adapter-behaviour 2.1), with Retry-After
  // (also added to the SQL handler's query-paused 503)
  if (deps.gate !== undefined) {
    app.use('*', restRetryAfter(deps.gate))
  }

  const sqlAuth = tdengineAuth({
    authenticator,
    refuse: (f: RestFailure) => respond('tdengine', f),
    // users live in the catalog: storage down means 503, not a 500
    failed: (err) => respond('tdengine', sqlProblem(err, deps.config.httpCodeServerError)),
  })
  // (a storage failure while authenticating goes to the app's error handler, as it always has)
  const vgidAuth = tdengineAuth({ authenticator, refuse: (f) => respond('tdengine', f) })
  // bodies are read after authentication, under http.maxBodySize (and TDengine's 1 MiB for SQL)
  const maxBody = deps.config.http.maxBodySize
  const statement = sqlBody(maxBody, deps.config.httpCodeServerError)
  app.post('/sql', sqlAuth, ...statement, (c) => handleSql(c, deps))
  // `@tdengine/rest` posts to `/rest/sql/` by default: a direct alias, never a redirect.
  app.post('/sql/', sqlAuth, ...statement, (c) => handleSql(c, deps))
  app.post('/sql/:db/vgid', vgidAuth, ...restBody(maxBody), (c) => handleVgidPost(c, deps))
  app.post('/sql/:db', sqlAuth, ...statement, (c) => handleSql(c, deps))
  app.get('/vgid', vgidAuth, (c) => handleVgidGet(c, deps))
  app.get('/login/:user/:password', (c) => handleLogin(c, logins))
  app.get('/login/*', () => handleLoginMalformed())
  app.get('/login', () => handleLoginMalformed())
  return app
}
