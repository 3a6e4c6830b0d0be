import type { Context } from 'hono'
import { errorBody } from './encode.js'
import { failure, jsonText } from './respond.js'
import type { RestDeps } from './routes.js'
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
    return failure(TOKEN_ERROR)
  }
  if (!(await deps.storage.catalog.verifyUser(user, password))) {
    return jsonText(errorBody(3, 'Authentication failure'), 401)
  }
  return jsonText(`{"code":0,"desc":${JSON.stringify(token)}}`, 200)
}

/** Paths under /rest/login that miss a segment (empty user or password). */
export function handleLoginMalformed(): Response {
  return failure(TOKEN_ERROR)
}
