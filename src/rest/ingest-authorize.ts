import type { Context, MiddlewareHandler } from 'hono'
import { problems, type Problem } from '../http/error-table.js'
import { authorize } from '../http/middleware/auth.js'
import type { DbPrivilege } from '../storage/td-types.js'
import type { IngestDeps } from './ingest-deps.js'

/**
 * The privilege check of a schemaless route (after verifyUser, before the body is read): the
 * database the route names, READ or WRITE, CREATEDB when smlAutoCreateDB would create it, and a
 * refusal as 403 in the route's format.
 */
export function authorizeIngest(
  deps: IngestDeps,
  db: (c: Context) => string,
  access: DbPrivilege,
  refuse: (problem: Problem) => Response,
): MiddlewareHandler {
  return authorize(deps.storage.catalog, {
    db,
    access,
    autoCreate: deps.config.smlAutoCreateDB,
    refuse: (desc) => refuse(problems.forbidden(desc)),
  })
}
