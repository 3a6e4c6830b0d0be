import { describe, expect, it } from 'vitest'
import { AUTH_ERRORS, parseAuthorization, parseTokenMap } from './authorization.js'

const basic = (s: string): string => `Basic ${Buffer.from(s).toString('base64')}`

describe('parseAuthorization', () => {
  it('reads Basic user:password', () => {
    expect(parseAuthorization(basic('root:taosdata'))).toEqual({ user: 'root', password: 'taosdata' })
    expect(parseAuthorization(`  ${basic('a:b')}  `)).toEqual({ user: 'a', password: 'b' })
  })

  it('missing or blank header is 4357', () => {
    expect(parseAuthorization(undefined)).toBe(AUTH_ERRORS.noAuth)
    expect(parseAuthorization('   ')).toBe(AUTH_ERRORS.noAuth)
  })

  it('Basic needs exactly two non-empty parts and strict base64', () => {
    expect(parseAuthorization(basic('root:taos:data'))).toBe(AUTH_ERRORS.invalidBasic)
    expect(parseAuthorization(basic('root'))).toBe(AUTH_ERRORS.invalidBasic)
    expect(parseAuthorization(basic(':pw'))).toBe(AUTH_ERRORS.invalidBasic)
    expect(parseAuthorization(basic('root:'))).toBe(AUTH_ERRORS.invalidBasic)
    expect(parseAuthorization('Basic !!!!')).toBe(AUTH_ERRORS.invalidBasic)
    // unpadded base64 is refused, as Go's StdEncoding does
    expect(parseAuthorization('Basic cm9vdDp0YW9zZGF0YQ')).toBe(AUTH_ERRORS.invalidBasic)
    expect(AUTH_ERRORS.invalidBasic).toEqual({ status: 401, code: 4388, desc: 'invalid basic Authorization' })
  })

  it('reads Taosd tokens and rejects bad ones with 4389', () => {
    expect(
      parseAuthorization('Taosd /KfeAzX/f9na8qdtNZmtONryp201ma04bEl8LcvLUd7a8qdtNZmtONryp201ma04'),
    ).toEqual({ user: 'root', password: 'taosdata' })
    expect(parseAuthorization('Taosd abcd')).toEqual({
      status: 401,
      code: 4389,
      desc: 'invalid taosd Authorization',
    })
  })

  it('other schemes (and lower-case basic) are 4386', () => {
    expect(parseAuthorization('Bearer xyz')).toEqual({
      status: 401,
      code: 4386,
      desc: 'invalid type of Authorization',
    })
    expect(parseAuthorization(basic('a:b').replace('Basic', 'basic'))).toBe(AUTH_ERRORS.invalidType)
  })
})

describe('parseTokenMap', () => {
  it('splits token=user at the last =', () => {
    const m = parseTokenMap(['abc==x=alice', 'plain=bob', 'broken', '=nouser', 'nouser='])
    expect([...m.entries()]).toEqual([
      ['abc==x', 'alice'],
      ['plain', 'bob'],
    ])
  })
})
