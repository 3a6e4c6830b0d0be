import { describe, expect, it } from 'vitest'
import { errorBody, execBody } from './bodies.js'

describe('bodies', () => {
  it('exec body', () => {
    expect(execBody(3)).toBe('{"code":0,"column_meta":[["affected_rows","INT",4]],"data":[[3]],"rows":1}')
  })

  it('error body escapes like gin', () => {
    expect(errorBody(9728, 'syntax error near "<x> & y"')).toBe(
      '{"code":9728,"desc":"syntax error near \\"\\u003cx\\u003e \\u0026 y\\""}',
    )
  })
})
