import { describe, expect, it } from 'vitest'
import { BodyTooLarge, basicCredentials, declaredTooLarge, parseTtl, readBodyText } from './request.js'

const b64 = (s: string): string => Buffer.from(s).toString('base64')

describe('basicCredentials', () => {
  it('decodes Basic user:password (the password may contain colons)', () => {
    expect(basicCredentials(`Basic ${b64('root:taosdata')}`)).toEqual({ user: 'root', password: 'taosdata' })
    expect(basicCredentials(`Basic ${b64('u:a:b')}`)).toEqual({ user: 'u', password: 'a:b' })
  })
  it('ignores other schemes and malformed values', () => {
    expect(basicCredentials(undefined)).toBeUndefined()
    expect(basicCredentials('')).toBeUndefined()
    expect(basicCredentials('Bearer abc')).toBeUndefined()
    expect(basicCredentials('Basic !!!')).toBeUndefined()
    expect(basicCredentials(`Basic ${b64('nocolon')}`)).toBeUndefined()
  })
})

describe('parseTtl', () => {
  it('absent or empty is 0; digits are days', () => {
    expect(parseTtl(undefined)).toBe(0)
    expect(parseTtl('')).toBe(0)
    expect(parseTtl('30')).toBe(30)
  })
  it('anything else is an error text naming ttl', () => {
    for (const bad of ['-1', '1.5', 'ten', '1e3', '99999999999']) {
      expect(parseTtl(bad)).toMatch(/ttl/)
    }
  })
})

describe('body limits', () => {
  it('declaredTooLarge reads Content-Length only', () => {
    const req = (cl?: string): Request => new Request('http://x/', { method: 'POST', headers: cl === undefined ? {} : { 'Content-Length': cl } })
    expect(declaredTooLarge(req('11'), 10)).toBe(true)
    expect(declaredTooLarge(req('10'), 10)).toBe(false)
    expect(declaredTooLarge(req(), 10)).toBe(false)
    expect(declaredTooLarge(req('11'), 0)).toBe(false)
  })
  it('readBodyText stops past the cap and decodes UTF-8 across chunks', async () => {
    const enc = new TextEncoder().encode('héllo wörld')
    const stream = (parts: Uint8Array[]): ReadableStream<Uint8Array> =>
      new ReadableStream({
        start(c) {
          for (const p of parts) {
            c.enqueue(p)
          }
          c.close()
        },
      })
    const mk = (parts: Uint8Array[]): Request =>
      new Request('http://x/', { method: 'POST', body: stream(parts), duplex: 'half' } as RequestInit)
    // split inside the two-byte é
    expect(await readBodyText(mk([enc.slice(0, 2), enc.slice(2)]), 100)).toBe('héllo wörld')
    await expect(readBodyText(mk([enc, enc]), enc.length + 1)).rejects.toBeInstanceOf(BodyTooLarge)
    expect(await readBodyText(mk([enc, enc]), 0)).toBe('héllo wörldhéllo wörld')
    expect(await readBodyText(new Request('http://x/', { method: 'POST' }), 10)).toBe('')
  })
})
