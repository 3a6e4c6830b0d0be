import { describe, expect, it } from 'vitest'
import { parseReqId, parseTtl, parseTz } from './params.js'

describe('parseTz', () => {
  it('accepts IANA zones and treats empty/UTC as UTC', () => {
    expect(parseTz(undefined)).toEqual({ tz: undefined })
    expect(parseTz('')).toEqual({ tz: undefined })
    expect(parseTz('UTC')).toEqual({ tz: undefined })
    expect(parseTz('Asia/Shanghai')).toEqual({ tz: 'Asia/Shanghai' })
  })

  it('rejects unknown zones with 400 65535', () => {
    expect(parseTz('Mars/Olympus')).toEqual({ status: 400, code: 65535, desc: 'unknown time zone Mars/Olympus' })
  })
})

describe('parseReqId', () => {
  it('accepts signed int64', () => {
    expect(parseReqId(undefined)).toEqual({ reqId: 0n })
    expect(parseReqId('-42')).toEqual({ reqId: -42n })
    expect(parseReqId('9223372036854775807')).toEqual({ reqId: 9223372036854775807n })
  })

  it('rejects text and overflow', () => {
    expect(parseReqId('abc')).toEqual({
      status: 400,
      code: 65535,
      desc: 'illegal param, req_id must be numeric strconv.ParseInt: parsing "abc": invalid syntax',
    })
    expect(parseReqId('9223372036854775808')).toMatchObject({ status: 400, code: 65535 })
    expect(parseReqId('1.5')).toMatchObject({ status: 400, code: 65535 })
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
