import type { Context } from 'hono'
import type { LoginGuard } from '../http/auth/login-guard.js'
import { peerAddress } from '../http/context.js'
import { respond } from '../http/error-table.js'
import { jsonText } from './json-response.js'
import { encodeTaosdToken } from '../http/auth/taosd-token.js'

const TOKEN_ERROR = { status: 400, code: 4362, desc: 'generate taosd token error' }

/**
 * `GET /rest/login/{user}/{password}` -> `{"code":0,"desc":"<Taosd token>"}`. Fields are 1..24
 * bytes (the token's fixed layout); wrong credentials are 401 code 3, as taosAdapter answers;
 * the login guard's refusals (429 / 503) come before any password check.
 */
export async function handleLogin(c: Context, logins: LoginGuard): Promise<Response> {
  const user = c.req.param('user') ?? ''
  const password = c.req.param('password') ?? ''
  const token = encodeTaosdToken(user, password)
  if (token === undefined) {
    return respond('tdengine', TOKEN_ERROR)
  }
  const outcome = await logins.login(user, password, peerAddress(c))
  if (outcome === 'wrong') {
    return respond('tdengine', { status: 401, code: 3, desc: 'Authentication failure' })
  }
  if (!('user' in outcome)) {
    // a backed-off address (429) or a full verification queue (503), with Retry-After
    return respond('tdengine', outcome)
  }
  return jsonText(`{"code":0,"desc":${JSON.stringify(token)}}`, 200)
}

/** Paths under /rest/login that miss a segment (empty user or password). */
export function handleLoginMalformed(): Response {
  return respond('tdengine', TOKEN_ERROR)
}
