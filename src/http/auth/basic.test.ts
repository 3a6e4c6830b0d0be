import { describe, expect, it } from 'vitest'
import { decodeBasic } from './basic.js'

const b64 = (s: string): string => Buffer.from(s).toString('base64')

describe('decodeBasic, lenient (schemaless endpoints)', () => {
  it('decodes Basic user:password (the password may contain colons)', () => {
    expect(decodeBasic(`Basic ${b64('root:taosdata')}`)).toEqual({ user: 'root', password: 'taosdata' })
    expect(decodeBasic(`Basic ${b64('u:a:b')}`)).toEqual({ user: 'u', password: 'a:b' })
  })
  it('ignores other schemes and malformed values', () => {
    expect(decodeBasic(undefined)).toBeUndefined()
    expect(decodeBasic('')).toBeUndefined()
    expect(decodeBasic('Bearer abc')).toBeUndefined()
    expect(decodeBasic('Basic !!!')).toBeUndefined()
    expect(decodeBasic(`Basic ${b64('nocolon')}`)).toBeUndefined()
  })
})
