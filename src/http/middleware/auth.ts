/**
 * @module
 * Authentication as route middleware, configured per route, so each protocol keeps its own order
 * of checks and its own refusal bodies:
 *  - `basicCredentials` reads the credentials a schemaless request presents (Basic header, with
 *    the `u`/`p` query override for line protocol) and refuses absent or unusable ones;
 *  - `verifyUser` checks them against the user table, usually after the cheap checks (db, ttl,
 *    Content-Length), and puts the user on the context;
 *  - `tdengineAuth` is /rest's: a configured `?token=`, else Basic (strict) or Taosd, verified.
 * Each takes the route's renderer for its refusals (src/http/error-table.ts).
 */
import type { Context, MiddlewareHandler } from 'hono'
import { normaliseDbName } from '../../ingest/naming.js'
import { requireAccess, requireIngest } from '../../sql/catalog/access.js'
import { findDatabase } from '../../sql/catalog/find-database.js'
import type { Catalog } from '../../sql/catalog/types.js'
import type { DbPrivilege } from '../../storage/td-types.js'
import { TD, TdError } from '../../td-error.js'
import type { Authenticator } from '../auth/authorization.js'
import type { LoginGuard } from '../auth/login-guard.js'
import { decodeBasic } from '../auth/basic.js'
import { isFailure, problems, type Problem, type RestFailure } from '../error-table.js'
import { peerAddress } from '../context.js'

/** Why presented credentials are refused: no header, an unusable one, an empty user or password. */
export type CredentialsProblem = 'absent' | 'malformed' | 'empty'

export interface BasicCredentialsOptions {
  /** `u` and `p` query parameters override each part of the Basic credentials (taosAdapter's line protocol) */
  queryOverride?: boolean
  /** the refusal of a problem, or undefined to let the request go on to verifyUser */
  refuse: (problem: CredentialsProblem) => Response | undefined
}

export function basicCredentials(opts: BasicCredentialsOptions): MiddlewareHandler {
  return async function basicCredentials(c, next) {
    const header = c.req.header('Authorization')
    let creds = decodeBasic(header)
    if (opts.queryOverride === true) {
      creds = { user: c.req.query('u') ?? creds?.user ?? '', password: c.req.query('p') ?? creds?.password ?? '' }
    }
    let problem: CredentialsProblem | undefined
    if (creds === undefined) {
      problem = header === undefined || header.trim() === '' ? 'absent' : 'malformed'
    } else if (creds.user === '' || creds.password === '') {
      problem = 'empty'
    }
    const refusal = problem === undefined ? undefined : opts.refuse(problem)
    if (refusal !== undefined) {
      return refusal
    }
    c.set('credentials', creds ?? { user: '', password: '' })
    await next()
  }
}

/**
 * Verifies the credentials basicCredentials put on the context through the login guard; wrong
 * ones get `refuse(wrongCredentials)`, a backed-off address or a full verification queue their
 * 429 / 503 with Retry-After.
 */
export function verifyUser(logins: LoginGuard, refuse: (problem: Problem) => Response): MiddlewareHandler {
  return async function verifyUser(c, next) {
    const { user, password } = c.get('credentials')
    const outcome = await logins.login(user, password, peerAddress(c))
    if (outcome === 'wrong') {
      return refuse(problems.wrongCredentials())
    }
    if (isFailure(outcome)) {
      return refuse(outcome)
    }
    c.set('user', user)
    await next()
  }
}

export interface AuthorizeOptions {
  /** the database the request names (after the route checked it is given) */
  db: (c: Context) => string
  /** a remote read reads; every other schemaless route writes */
  access: DbPrivilege
  /** smlAutoCreateDB: a missing database will be created, so CREATEDB is what the user needs */
  autoCreate: boolean
  /** the refusal (403 in the route's format) with TDengine's text naming user, privilege and database */
  refuse: (desc: string) => Response
}

/**
 * After verifyUser, before the body is read: may the user read or write the named database
 * (src/sql/catalog/access.ts, the rules every path applies)? A missing database passes when it
 * will not be created: the route answers 404 for it.
 */
export function authorize(catalog: Catalog, opts: AuthorizeOptions): MiddlewareHandler {
  return async function authorize(c, next) {
    const user = c.get('user') as string
    let db: string
    try {
      db = normaliseDbName(opts.db(c))
    } catch {
      // an unusable name: the write itself answers it (400), as without this check
      await next()
      return
    }
    // a database another replica created a moment ago is seen before the rules are applied
    await findDatabase(catalog, db)
    try {
      if (opts.access === 'read') {
        requireAccess(catalog, user, db, 'read')
      } else {
        requireIngest(catalog, user, db, opts.autoCreate)
      }
    } catch (err) {
      if (err instanceof TdError && err.code === TD.MND_NO_RIGHTS) {
        return opts.refuse(err.desc)
      }
      throw err
    }
    await next()
  }
}

export interface TdengineAuthOptions {
  authenticator: Authenticator
  /** an auth failure (4357, 4386, 4388, 4389, 855 ...) */
  refuse: (failure: RestFailure) => Response
  /** the user table could not be read (storage down); without it the error goes to the app's handler */
  failed?: (err: unknown, c: Context) => Response
}

/** /rest's authentication: `?token=`, else the Authorization header (Basic or Taosd), verified. */
export function tdengineAuth(opts: TdengineAuthOptions): MiddlewareHandler {
  return async function tdengineAuth(c, next) {
    let who: Awaited<ReturnType<Authenticator['authenticate']>>
    try {
      who = await opts.authenticator.authenticate(c.req.header('Authorization'), c.req.query('token'), peerAddress(c))
    } catch (err) {
      if (opts.failed === undefined) {
        throw err
      }
      return opts.failed(err, c)
    }
    if (isFailure(who)) {
      return opts.refuse(who)
    }
    c.set('user', who.user)
    await next()
  }
}
