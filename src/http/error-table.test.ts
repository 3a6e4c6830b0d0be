import { describe, expect, it } from 'vitest'
import { problemBody, statusForDbError } from './error-table.js'

describe('statusForDbError', () => {
  it('is 200 for every code when httpCodeServerError is false', () => {
    for (const code of [534, 855, 9728, 11, 904, 65535]) {
      expect(statusForDbError(code, false)).toBe(200)
    }
  })

  it('maps codes when httpCodeServerError is true', () => {
    for (const code of [534, 539, 9728, 1547, 548, 9787]) {
      expect(statusForDbError(code, true)).toBe(400)
    }
    for (let code = 848; code <= 855; code++) {
      expect(statusForDbError(code, true)).toBe(401)
    }
    expect(statusForDbError(847, true)).toBe(500)
    expect(statusForDbError(856, true)).toBe(500)
    expect(statusForDbError(11, true)).toBe(502)
    expect(statusForDbError(904, true)).toBe(500)
    expect(statusForDbError(65535, true)).toBe(500)
  })
})

describe('problemBody', () => {
  it('writes the TDengine error body and escapes like gin', () => {
    expect(problemBody('tdengine', { status: 400, code: 9728, desc: 'syntax error near "<x> & y"' })).toBe(
      '{"code":9728,"desc":"syntax error near \\"\\u003cx\\u003e \\u0026 y\\""}',
    )
  })
})
