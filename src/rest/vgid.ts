import type { Context } from 'hono'
import '../http/context.js'
import { dbNotExist } from '../td-error.js'
import { vgroupOf } from '../sql/vgroup.js'
import type { DatabaseInfo } from '../storage/td-types.js'
import { problems, respond, sqlProblem } from '../http/error-table.js'
import { jsonText } from './json-response.js'
import type { RestDeps } from './rest-deps.js'

const ILLEGAL_PARAMS = { status: 400, code: 65535, desc: 'illegal params' }

/** Database names are case-insensitive unless back-quoted; the catalog holds normalised names. */
function lookupDb(deps: RestDeps, name: string): DatabaseInfo {
  const quoted = /^`(.+)`$/.exec(name)
  const info = quoted
    ? deps.storage.catalog.getDatabase(quoted[1])
    : (deps.storage.catalog.getDatabase(name) ?? deps.storage.catalog.getDatabase(name.toLowerCase()))
  if (info === undefined) {
    throw dbNotExist(name)
  }
  return info
}

/** `GET /rest/vgid?db=&table=` -> `{"code":0,"vgID":N}` (the seed's form). */
export async function handleVgidGet(c: Context, deps: RestDeps): Promise<Response> {
  const db = c.req.query('db') ?? ''
  const table = c.req.query('table') ?? ''
  if (db === '' || table === '') {
    return respond('tdengine', ILLEGAL_PARAMS)
  }
  try {
    const vg = vgroupOf(lookupDb(deps, db), table)
    return jsonText(`{"code":0,"vgID":${vg}}`, 200)
  } catch (err) {
    return respond('tdengine', sqlProblem(err, deps.config.httpCodeServerError))
  }
}

/** `POST /rest/sql/{db}/vgid` with a JSON array of table names -> `{"code":0,"vgIDs":[...]}`. */
export async function handleVgidPost(c: Context, deps: RestDeps): Promise<Response> {
  const db = c.req.param('db') ?? ''
  let tables: unknown
  try {
    tables = JSON.parse(new TextDecoder().decode(c.get('body').bytes))
  } catch (err) {
    return respond('tdengine', problems.badRequest((err as Error).message))
  }
  if (!Array.isArray(tables) || !tables.every((t) => typeof t === 'string')) {
    return respond('tdengine', problems.badRequest('body must be a JSON array of table names'))
  }
  if (db === '' || tables.length === 0) {
    return respond('tdengine', ILLEGAL_PARAMS)
  }
  try {
    const info = lookupDb(deps, db)
    const ids = (tables as string[]).map((t) => vgroupOf(info, t))
    return jsonText(`{"code":0,"vgIDs":[${ids.join(',')}]}`, 200)
  } catch (err) {
    return respond('tdengine', sqlProblem(err, deps.config.httpCodeServerError))
  }
}
