import { describe, expect, it } from 'vitest'
import { execBody } from './bodies.js'

describe('bodies', () => {
  it('exec body', () => {
    expect(execBody(3)).toBe('{"code":0,"column_meta":[["affected_rows","INT",4]],"data":[[3]],"rows":1}')
  })
})
