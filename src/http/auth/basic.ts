/**
 * @module
 * The one decoder of `Authorization: Basic ...`. Two readings, as the two families of endpoints
 * have always had them:
 *  - lenient (schemaless writes, remote write/read): `Basic ` then any padded base64, split at the
 *    first ':' (the password may hold colons; empty parts are the caller's business);
 *  - strict (/rest, TDengine's `CheckAuth`): `Basic` then canonical base64 of exactly two
 *    non-empty parts.
 */

export interface Credentials {
  user: string
  password: string
}

/** Canonical base64 (padding only where needed), as Go's StdEncoding accepts it. */
export const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

const LOOSE_BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

/** Credentials of a Basic header, or undefined when it is absent, another scheme or unusable. */
export function decodeBasic(header: string | undefined | null, opts: { strict?: boolean } = {}): Credentials | undefined {
  const value = (header ?? '').trim()
  if (opts.strict === true) {
    if (!value.startsWith('Basic')) {
      return undefined
    }
    const encoded = value.slice(6)
    if (!STRICT_BASE64.test(encoded)) {
      return undefined
    }
    const parts = Buffer.from(encoded, 'base64').toString('utf8').split(':')
    if (parts.length !== 2 || parts[0] === '' || parts[1] === '') {
      return undefined
    }
    return { user: parts[0], password: parts[1] }
  }
  if (!value.startsWith('Basic ')) {
    return undefined
  }
  const encoded = value.slice(6).trim()
  if (!LOOSE_BASE64.test(encoded)) {
    return undefined
  }
  const text = Buffer.from(encoded, 'base64').toString('utf8')
  const at = text.indexOf(':')
  if (at < 0) {
    return undefined
  }
  return { user: text.slice(0, at), password: text.slice(at + 1) }
}
