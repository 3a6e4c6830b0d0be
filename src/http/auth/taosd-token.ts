import { STRICT_BASE64, type Credentials } from './basic.js'
import { desEcbDecrypt, desEcbEncrypt } from './des.js'

/**
 * The legacy `Taosd` token of TDengine's REST interface (issued by `GET /rest/login/{user}/{password}`,
 * sent back as `Authorization: Taosd <token>`): base64 of DES-ECB over a 48-byte block, user in
 * bytes 0..23 and password in bytes 24..47, each NUL-padded. The key is fixed by the original.
 */
const TOKEN_KEY = Uint8Array.from([0x40, 0xb6, 0x7a, 0x30, 0x56, 0x73, 0xfd, 0x44])
const FIELD = 24

/** Encodes a token; returns undefined when user or password is empty or longer than 24 bytes. */
export function encodeTaosdToken(user: string, password: string): string | undefined {
  const u = Buffer.from(user, 'utf8')
  const p = Buffer.from(password, 'utf8')
  if (u.length === 0 || p.length === 0 || u.length > FIELD || p.length > FIELD) {
    return undefined
  }
  const plain = new Uint8Array(FIELD * 2)
  plain.set(u, 0)
  plain.set(p, FIELD)
  return Buffer.from(desEcbEncrypt(TOKEN_KEY, plain)).toString('base64')
}

/** Decodes a token; undefined when it is not base64 of exactly 48 bytes or a field is empty. */
export function decodeTaosdToken(token: string): Credentials | undefined {
  if (!STRICT_BASE64.test(token)) {
    return undefined
  }
  const bytes = Buffer.from(token, 'base64')
  if (bytes.length !== FIELD * 2) {
    return undefined
  }
  const plain = Buffer.from(desEcbDecrypt(TOKEN_KEY, bytes))
  const field = (start: number): string => {
    const end = plain.indexOf(0, start)
    return plain.toString('utf8', start, end === -1 || end > start + FIELD ? start + FIELD : end)
  }
  const user = field(0)
  const password = field(FIELD)
  if (user === '' || password === '') {
    return undefined
  }
  return { user, password }
}
