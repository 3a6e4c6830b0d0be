import { describe, expect, it } from 'vitest'
import { floatArith, isCheap } from './float-arith.js'

describe('floatArith', () => {
  it.each([
    ['CAST(b."c1" AS DOUBLE PRECISION)', true],
    ['CAST(CAST(1e300 AS DOUBLE PRECISION) AS DOUBLE PRECISION)', true],
    ['CAST(CAST(-1e-300 AS DOUBLE PRECISION) AS DOUBLE PRECISION)', true],
    ["CAST('x' AS VARCHAR(8))", true],
    ['"c1"', true],
    ['CAST("s".td_fmul(CAST(b."c1" AS DOUBLE PRECISION), CAST(b."c2" AS DOUBLE PRECISION)) AS DOUBLE PRECISION)', false],
    ['CAST((b."c1" + 1) AS DOUBLE PRECISION)', false],
    ['CAST(sum(b."c1") AS DOUBLE PRECISION)', false],
  ])('%s is cheap: %s', (sql, cheap) => {
    expect(isCheap(sql)).toBe(cheap)
  })

  it('inlinable SQL functions over columns and constants, PL/pgSQL ones over computed operands', () => {
    expect(floatArith('"s"', '*', '"a"', '2')).toBe('"s".td_fmul("a", 2)')
    expect(floatArith('"s"', '-', '"a"', '"b"')).toBe('"s".td_fadd("a", -("b"))')
    expect(floatArith('"s"', '+', '"s".td_fmul("a", 2)', '"b"')).toBe('"s".td_fadd_p("s".td_fmul("a", 2), "b")')
    expect(floatArith('"s"', '/', '"a"', '"b"')).toBe('"s".td_fdiv("a", "b")')
    expect(floatArith('"s"', '/', '"a"', '("b" + 1)')).toBe('"s".td_fdiv_p("a", ("b" + 1))')
  })
})
