import { describe, expect, it } from 'vitest'
import { desEcbDecrypt, desEcbEncrypt } from './des.js'
import { decodeTaosdToken, encodeTaosdToken } from './taosd-token.js'

const hex = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s, 'hex'))
const toHex = (b: Uint8Array): string => Buffer.from(b).toString('hex')

describe('DES-ECB known-answer vectors', () => {
  // Classic worked example (Grabbe, "The DES Algorithm Illustrated") and FIPS/NBS style vectors.
  const vectors: Array<[key: string, plain: string, cipher: string]> = [
    ['133457799bbcdff1', '0123456789abcdef', '85e813540f0ab405'],
    ['0e329232ea6d0d73', '8787878787878787', '0000000000000000'],
    ['0000000000000000', '0000000000000000', '8ca64de9c1b123a7'],
    ['ffffffffffffffff', 'ffffffffffffffff', '7359b2163e4edc58'],
    ['3000000000000000', '1000000000000001', '958e6e627a05557b'],
    ['0123456789abcdef', '4e6f772069732074', '3fa40e8a984d4815'],
  ]
  for (const [key, plain, cipher] of vectors) {
    it(`key ${key} plain ${plain}`, () => {
      expect(toHex(desEcbEncrypt(hex(key), hex(plain)))).toBe(cipher)
      expect(toHex(desEcbDecrypt(hex(key), hex(cipher)))).toBe(plain)
    })
  }

  it('rejects partial blocks and bad keys', () => {
    expect(() => desEcbEncrypt(hex('0000000000000000'), new Uint8Array(7))).toThrow(/multiple of 8/)
    expect(() => desEcbEncrypt(new Uint8Array(7), new Uint8Array(8))).toThrow(/8 bytes/)
  })
})

describe('Taosd token', () => {
  const ROOT = '/KfeAzX/f9na8qdtNZmtONryp201ma04bEl8LcvLUd7a8qdtNZmtONryp201ma04'

  it('encodes root/taosdata to the documented token', () => {
    expect(encodeTaosdToken('root', 'taosdata')).toBe(ROOT)
  })

  it('decodes the documented token', () => {
    expect(decodeTaosdToken(ROOT)).toEqual({ user: 'root', password: 'taosdata' })
  })

  it('round-trips 24-byte fields', () => {
    const u = 'u'.repeat(24)
    const p = 'p'.repeat(24)
    const t = encodeTaosdToken(u, p)
    expect(t).toBeDefined()
    expect(decodeTaosdToken(t as string)).toEqual({ user: u, password: p })
  })

  it('refuses empty or over-long fields', () => {
    expect(encodeTaosdToken('', 'x')).toBeUndefined()
    expect(encodeTaosdToken('x', '')).toBeUndefined()
    expect(encodeTaosdToken('x'.repeat(25), 'y')).toBeUndefined()
    expect(encodeTaosdToken('x', 'y'.repeat(25))).toBeUndefined()
  })

  it('rejects malformed tokens', () => {
    expect(decodeTaosdToken('not base64!')).toBeUndefined()
    expect(decodeTaosdToken(Buffer.alloc(40).toString('base64'))).toBeUndefined()
    // 48 zero bytes decrypt to garbage without a NUL-terminated pair, or to empty fields
    expect(decodeTaosdToken(ROOT.slice(0, -4))).toBeUndefined()
  })
})
