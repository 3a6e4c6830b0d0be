import { describe, expect, it } from 'vitest'
import { MAX_NCHAR_COLUMN, MAX_NCHAR_TAG, MAX_VARCHAR_COLUMN, fitsQuickly, maxVarLength, valueLength, varCapacity } from './sizing.js'

describe('varCapacity (sql-dialect 9.4)', () => {
  it('is the smallest power of two strictly greater than the length', () => {
    expect(varCapacity(0, 100000)).toBe(1)
    expect(varCapacity(1, 100000)).toBe(2)
    expect(varCapacity(4, 100000)).toBe(8)
    expect(varCapacity(6, 100000)).toBe(8)
    expect(varCapacity(8, 100000)).toBe(16)
    expect(varCapacity(1023, 100000)).toBe(1024)
  })
  it('keeps lengths from 1024 exactly and caps at the type maximum', () => {
    expect(varCapacity(1024, 100000)).toBe(1024)
    expect(varCapacity(5000, 100000)).toBe(5000)
    expect(varCapacity(70000, MAX_VARCHAR_COLUMN)).toBe(65517)
    expect(varCapacity(900, 600)).toBe(600)
  })
  it('maxima follow TDengine 3.0.5 (NCHAR counts 4 bytes a character)', () => {
    expect(maxVarLength('VARCHAR', false)).toBe(65517)
    expect(maxVarLength('VARCHAR', true)).toBe(16382)
    expect(maxVarLength('NCHAR', false)).toBe(MAX_NCHAR_COLUMN)
    expect(MAX_NCHAR_COLUMN).toBe(16379)
    expect(maxVarLength('NCHAR', true)).toBe(MAX_NCHAR_TAG)
    expect(MAX_NCHAR_TAG).toBe(4095)
  })
})

describe('valueLength', () => {
  it('counts UTF-8 bytes for VARCHAR and code points for NCHAR', () => {
    expect(valueLength('VARCHAR', 'abc')).toBe(3)
    expect(valueLength('VARCHAR', 'é')).toBe(2)
    expect(valueLength('VARCHAR', '€')).toBe(3)
    expect(valueLength('VARCHAR', '😀')).toBe(4)
    expect(valueLength('NCHAR', 'é€')).toBe(2)
    // a surrogate pair is one character
    expect(valueLength('NCHAR', 'a😀b')).toBe(3)
    // a lone surrogate still counts as one
    expect(valueLength('NCHAR', '\ud800x')).toBe(2)
  })
  it('fitsQuickly never says yes for a value that does not fit', () => {
    for (const s of ['', 'a', 'abcd', '€€', '😀😀', 'x'.repeat(40)]) {
      for (const len of [0, 1, 2, 3, 4, 8, 12, 64]) {
        for (const type of ['VARCHAR', 'NCHAR'] as const) {
          if (fitsQuickly(type, s, len)) {
            expect(valueLength(type, s)).toBeLessThanOrEqual(len)
          }
        }
      }
    }
  })
})
