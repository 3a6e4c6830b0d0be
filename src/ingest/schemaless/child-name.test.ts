import { describe, expect, it } from 'vitest'
import { childTableName, stableName } from './child-name.js'

describe('schemaless names', () => {
  it('matches the documented example md5(st,t1=3,t2=4,t3=t3)', () => {
    expect(childTableName('st', [['t1', '3'], ['t2', '4'], ['t3', 't3']])).toBe('t_5674733529a38572948e6d500eacb850')
    // the order sent does not matter
    expect(childTableName('st', [['t3', 't3'], ['t1', '3'], ['t2', '4']])).toBe('t_5674733529a38572948e6d500eacb850')
  })
  it('sorts keys case-insensitively, the shorter key first on a common prefix', () => {
    // md5("m,a=1,AB=2,b=3") worked out with: printf 'm,a=1,AB=2,b=3' | md5sum
    expect(childTableName('m', [['b', '3'], ['AB', '2'], ['a', '1']])).toBe('t_c483f557a52afd0f161a2af6b60b8519')
  })
  it('a tagless point is named after the super table alone', () => {
    // printf 'cpu' | md5sum
    expect(childTableName('cpu', [])).toBe('t_d9747e2da342bdb995f6389533ad1a3d')
  })
  it('replaces dots in measurement names', () => {
    expect(stableName('meters.current')).toBe('meters_current')
    expect(stableName('plain')).toBe('plain')
  })
})
