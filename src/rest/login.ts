import type { Context } from 'hono'
import { respond } from '../http/error-table.js'
import { jsonText } from './json-response.js'
import type { RestDeps } from './rest-deps.js'
import { encodeTaosdToken } from '../http/auth/taosd-token.js'

const TOKEN_ERROR = { status: 400, code: 4362, desc: 'generate taosd token error' }

/**
 * `GET /rest/login/{user}/{password}` -> `{"code":0,"desc":"<Taosd token>"}`. Fields are 1..24
 * bytes (the token's fixed layout); wrong credentials are 401 code 3, as taosAdapter answers.
 */
export async function handleLogin(c: Context, deps: RestDeps): Promise<Response> {
  const user = c.req.param('user') ?? ''
  const password = c.req.param('password') ?? ''
  const token = encodeTaosdToken(user, password)
  if (token === undefined) {
    return respond('tdengine', TOKEN_ERROR)
  }
  if (!(await deps.storage.catalog.verifyUser(user, password))) {
    return respond('tdengine', { status: 401, code: 3, desc: 'Authentication failure' })
  }
  return jsonText(`{"code":0,"desc":${JSON.stringify(token)}}`, 200)
}

/** Paths under /rest/login that miss a segment (empty user or password). */
export function handleLoginMalformed(): Response {
  return respond('tdengine', TOKEN_ERROR)
}
