import { describe, expect, it } from 'vitest'
import { copyLine, copyValue } from './copy-text.js'

describe('copyValue', () => {
  it('spells NULL as \\N for null and undefined', () => {
    expect(copyValue(null)).toBe('\\N')
    expect(copyValue(undefined)).toBe('\\N')
  })

  it('escapes backslash, tab, newline and carriage return in text', () => {
    expect(copyValue('a\\b')).toBe('a\\\\b')
    expect(copyValue('a\tb\nc\rd')).toBe('a\\tb\\nc\\rd')
    // the two characters backslash + N are data, not NULL
    expect(copyValue('\\N')).toBe('\\\\N')
    expect(copyValue('plain, "quoted" \'x\'')).toBe('plain, "quoted" \'x\'')
  })

  it('writes integers exactly, including bigint beyond 2^53 and large integral numbers', () => {
    expect(copyValue(2n ** 63n - 1n)).toBe('9223372036854775807')
    expect(copyValue(18446744073709551615n)).toBe('18446744073709551615')
    expect(copyValue(-42)).toBe('-42')
    // String(1e21) is "1e+21"; COPY into BIGINT/NUMERIC needs digits
    expect(copyValue(1e21)).toBe('1000000000000000000000')
  })

  it('writes floats with the round-trip representation and PostgreSQL special values', () => {
    expect(copyValue(0.1)).toBe('0.1')
    expect(copyValue(-1.5e-7)).toBe('-1.5e-7')
    expect(copyValue(-0)).toBe('-0')
    expect(copyValue(Number.NaN)).toBe('NaN')
    expect(copyValue(Number.POSITIVE_INFINITY)).toBe('Infinity')
    expect(copyValue(Number.NEGATIVE_INFINITY)).toBe('-Infinity')
  })

  it('writes booleans as t/f and objects as escaped JSON text', () => {
    expect(copyValue(true)).toBe('t')
    expect(copyValue(false)).toBe('f')
    expect(copyValue({ a: 'x\ty', n: 10n })).toBe('{"a":"x\\\\ty","n":"10"}')
  })
})

describe('copyLine', () => {
  it('joins columns with tabs and ends with a newline', () => {
    expect(copyLine([1n, null, 'a b', false])).toBe('1\t\\N\ta b\tf\n')
  })

  it('puts an encoded prefix column first', () => {
    expect(copyLine([5n, 2.5], '7')).toBe('7\t5\t2.5\n')
    expect(copyLine([], '7')).toBe('7\n')
  })
})

describe('NUL', () => {
  it('is refused in strings as a value error (PostgreSQL text cannot hold it); JSON escapes it', () => {
    expect(() => copyValue('a\u0000b')).toThrow(/NUL/)
    // JSON.stringify writes the 6 characters \u0000, which text holds fine
    expect(copyValue({ k: 'x\u0000' })).toBe('{"k":"x\\\\u0000"}')
    try {
      copyLine(['ok', 'bad\u0000'])
    } catch (err) {
      expect((err as { code?: number }).code).toBe(9733)
    }
    expect.assertions(3)
  })
})
