import { isFailure, type RestFailure } from '../error-table.js'
import { decodeBasic } from './basic.js'
import type { Credentials } from './basic.js'
import type { LoginGuard } from './login-guard.js'
import { decodeTaosdToken } from './taosd-token.js'

export const AUTH_ERRORS = {
  noAuth: { status: 401, code: 4357, desc: 'no auth info input' },
  invalidType: { status: 401, code: 4386, desc: 'invalid type of Authorization' },
  invalidBasic: { status: 401, code: 4388, desc: 'invalid basic Authorization' },
  invalidTaosd: { status: 401, code: 4389, desc: 'invalid taosd Authorization' },
  // The spec says a failed authentication is 401; this holds whatever httpCodeServerError says.
  authFailure: { status: 401, code: 855, desc: 'Authentication failure' },
} as const satisfies Record<string, RestFailure>

/**
 * Parses an `Authorization` header value (TDengine's `CheckAuth`): `Basic <base64 user:password>`
 * with exactly two parts on ':', or `Taosd <DES token>`. The prefixes are case-sensitive, as in
 * the original. Pure: credentials are not verified here.
 */
export function parseAuthorization(header: string | undefined | null): Credentials | RestFailure {
  const value = (header ?? '').trim()
  if (value === '') {
    return AUTH_ERRORS.noAuth
  }
  if (value.startsWith('Basic')) {
    return decodeBasic(value, { strict: true }) ?? AUTH_ERRORS.invalidBasic
  }
  if (value.startsWith('Taosd')) {
    const creds = decodeTaosdToken(value.slice(6))
    return creds ?? AUTH_ERRORS.invalidTaosd
  }
  return AUTH_ERRORS.invalidType
}

/**
 * `--rest.tokens` entries are `token=user`. The token itself may contain '=' (base64 padding),
 * a user name never does, so the pair splits at the last '='. Malformed entries are skipped here;
 * config validation reports them.
 */
export function parseTokenMap(entries: readonly string[]): Map<string, string> {
  const map = new Map<string, string>()
  for (const entry of entries) {
    const at = entry.lastIndexOf('=')
    if (at <= 0 || at === entry.length - 1) {
      continue
    }
    map.set(entry.slice(0, at), entry.slice(at + 1))
  }
  return map
}

export interface Authenticator {
  /**
   * Resolves the user of a request: a configured `?token=` wins (no password needed), otherwise
   * the Authorization header is parsed and verified through the login guard (`peer`: the socket's
   * remote address, for its back-off).
   */
  authenticate(header: string | undefined, queryToken: string | undefined, peer: string | undefined): Promise<{ user: string } | RestFailure>
}

export function createAuthenticator(logins: LoginGuard, tokens: readonly string[]): Authenticator {
  const tokenMap = parseTokenMap(tokens)
  return {
    async authenticate(header, queryToken, peer) {
      if (queryToken !== undefined && queryToken !== '') {
        const user = tokenMap.get(queryToken)
        // An unknown token is ignored (taosAdapter never reads it); the header decides.
        if (user !== undefined) {
          // a token does not outlive its user: dropped or ALTER USER ... ENABLE 0 ends it
          return logins.enabled(user) ? { user } : AUTH_ERRORS.authFailure
        }
      }
      const parsed = parseAuthorization(header)
      if (isFailure(parsed)) {
        return parsed
      }
      const outcome = await logins.login(parsed.user, parsed.password, peer)
      return outcome === 'wrong' ? AUTH_ERRORS.authFailure : outcome
    },
  }
}
