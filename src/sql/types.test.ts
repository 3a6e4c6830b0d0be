import { describe, expect, it } from 'vitest'
import type { ColumnDef, DatabaseInfo } from '../storage/td-types.js'
import type { ValueExpr } from './value-expr.js'
import { TdError } from '../td-error.js'
import fc from 'fast-check'
import { convertValue, keepDays, timestampRange, toColumnDef, toSchema, ValueError, valueConverter, type ValueContext } from './types.js'

const NOW_MS = Date.UTC(2026, 0, 1)
const cx: ValueContext = { sql: 'x', precision: 'ms', nowMs: NOW_MS }
const span = { start: 0, end: 1 }
const num = (text: string): ValueExpr => ({ kind: 'number', text, span })
const str = (value: string): ValueExpr => ({ kind: 'string', value, span })
const col = (type: ColumnDef['type'], length = 8): ColumnDef => ({ name: 'c', type, length })

function reason(fn: () => unknown): string {
  try {
    fn()
  } catch (e) {
    if (e instanceof ValueError) {
      return e.reason
    }
    if (e instanceof TdError) {
      return `${e.code} ${e.desc}`
    }
    throw e
  }
  throw new Error('no error')
}

describe('convertValue', () => {
  it('range-checks every integer type at its exact bounds', () => {
    const cases: [ColumnDef['type'], string, string, string][] = [
      ['TINYINT', '-128', '127', 'tinyint'],
      ['SMALLINT', '-32768', '32767', 'smallint'],
      ['INT', '-2147483648', '2147483647', 'int'],
      ['BIGINT', '-9223372036854775808', '9223372036854775807', 'bigint'],
      ['TINYINT UNSIGNED', '0', '255', 'unsigned tinyint'],
      ['SMALLINT UNSIGNED', '0', '65535', 'unsigned smallint'],
      ['INT UNSIGNED', '0', '4294967295', 'unsigned int'],
      ['BIGINT UNSIGNED', '0', '18446744073709551615', 'unsigned bigint'],
    ]
    for (const [type, lo, hi, name] of cases) {
      const big = type.startsWith('BIGINT')
      expect(convertValue(num(lo), col(type), cx)).toEqual(big ? BigInt(lo) : Number(lo))
      expect(convertValue(num(hi), col(type), cx)).toEqual(big ? BigInt(hi) : Number(hi))
      expect(reason(() => convertValue(num((BigInt(hi) + 1n).toString()), col(type), cx))).toBe(`${name} data overflow`)
      expect(reason(() => convertValue(num((BigInt(lo) - 1n).toString()), col(type), cx))).toBe(`${name} data overflow`)
    }
    expect(convertValue(num('0x1f'), col('INT'), cx)).toBe(31)
    expect(convertValue(num('1.9'), col('INT'), cx)).toBe(1)
    expect(convertValue(str('42'), col('SMALLINT'), cx)).toBe(42)
    expect(convertValue({ kind: 'bool', value: true, span }, col('INT'), cx)).toBe(1)
    expect(reason(() => convertValue(str('abc'), col('INT'), cx))).toBe('invalid int data')
  })

  it('converts floats, bools and strings', () => {
    expect(convertValue(num('1.5e3'), col('DOUBLE'), cx)).toBe(1500)
    expect(convertValue(num('-3.4e38'), col('FLOAT'), cx)).toBe(-3.4e38)
    expect(reason(() => convertValue(num('3.5e38'), col('FLOAT'), cx))).toBe('float data overflow')
    expect(reason(() => convertValue(num('1e309'), col('DOUBLE'), cx))).toBe('double data overflow')
    expect(convertValue(str('TRUE'), col('BOOL'), cx)).toBe(true)
    expect(convertValue(num('0'), col('BOOL'), cx)).toBe(false)
    expect(convertValue(num('2'), col('BOOL'), cx)).toBe(true)
    expect(reason(() => convertValue(str('yes'), col('BOOL'), cx))).toBe('invalid bool data')
    // VARCHAR counts UTF-8 bytes, NCHAR characters: '日本' is 6 bytes, 2 characters
    expect(convertValue(str('日本'), col('NCHAR', 2), cx)).toBe('日本')
    expect(reason(() => convertValue(str('日本'), col('VARCHAR', 5), cx))).toBe('9811 Value too long for column/tag: c')
    expect(convertValue(str('日本'), col('VARCHAR', 6), cx)).toBe('日本')
    expect(convertValue(num('12'), col('VARCHAR', 2), cx)).toBe('12')
    expect(convertValue({ kind: 'null', span }, col('INT'), cx)).toBeNull()
  })

  it('computes timestamps from NOW, TODAY, epochs and strings with deltas', () => {
    expect(convertValue({ kind: 'now', span, deltas: [{ sign: -1, value: 5, unit: 'm' }] }, col('TIMESTAMP'), cx)).toBe(BigInt(NOW_MS - 300_000))
    expect(convertValue({ kind: 'today', span, deltas: [{ sign: 1, value: 1, unit: 'h' }] }, col('TIMESTAMP'), { ...cx, nowMs: NOW_MS + 5000 })).toBe(BigInt(NOW_MS + 3_600_000))
    expect(convertValue(num('1626164208000'), col('TIMESTAMP'), cx)).toBe(1_626_164_208_000n)
    expect(convertValue({ kind: 'string', value: '2021-07-13T16:16:48+08:00', span, deltas: [{ sign: 1, value: 1, unit: 'd' }] }, col('TIMESTAMP'), cx)).toBe(
      1_626_164_208_000n + 86_400_000n,
    )
    expect(convertValue(str('2021-07-13 08:16:48.000001'), col('TIMESTAMP'), { ...cx, precision: 'us' })).toBe(1_626_164_208_000_001n)
    expect(reason(() => convertValue(num('1.5'), col('TIMESTAMP'), cx))).toBe('invalid timestamp')
    expect(reason(() => convertValue({ kind: 'now', span, deltas: [{ sign: 1, value: 1, unit: 'n' }] }, col('TIMESTAMP'), cx))).toBe('invalid timestamp')
  })

  it('accepts JSON objects of scalars for JSON tags', () => {
    expect(convertValue(str('{"a":1,"b":"x","c":null}'), col('JSON'), cx)).toEqual({ a: 1, b: 'x', c: null })
    expect(convertValue(str(''), col('JSON'), cx)).toBeNull()
    expect(reason(() => convertValue(str('{"a":{"b":1}}'), col('JSON'), cx))).toBe('invalid json data')
    expect(reason(() => convertValue(str('[1]'), col('JSON'), cx))).toBe('invalid json data')
  })
})

describe('schemas', () => {
  it('applies column and tag length limits', () => {
    expect(toColumnDef({ name: 'v', type: 'VARCHAR', length: 65517, span }, false)).toEqual({ name: 'v', type: 'VARCHAR', length: 65517 })
    expect(() => toColumnDef({ name: 'v', type: 'VARCHAR', length: 16383, span }, true)).toThrow(expect.objectContaining({ code: 9794 }))
    expect(toColumnDef({ name: 'n', type: 'NCHAR', length: 4095, span }, true).length).toBe(4095)
    expect(() => toColumnDef({ name: 'n', type: 'NCHAR', length: 4096, span }, true)).toThrow(expect.objectContaining({ code: 9794 }))
    expect(toColumnDef({ name: 'j', type: 'JSON', span }, true).length).toBe(4095)
    expect(toSchema([{ name: 'ts', type: 'TIMESTAMP', span }, { name: 'u', type: 'BIGINT UNSIGNED', span }], []).columns).toEqual([
      { name: 'ts', type: 'TIMESTAMP', length: 8 },
      { name: 'u', type: 'BIGINT UNSIGNED', length: 8 },
    ])
  })

  it('derives the write window from KEEP and precision', () => {
    const db = (keep: string | number, precision: DatabaseInfo['precision'] = 'ms'): DatabaseInfo => ({
      name: 'd',
      precision,
      vgroups: 2,
      firstVgId: 2,
      options: { keep },
      createdAt: 0,
      owner: 'root',
    })
    expect(keepDays(db('3650d,3650d,3650d'))).toBe(3650)
    expect(keepDays(db(10))).toBe(10)
    expect(keepDays(db('1440m,2880m,4320m'))).toBe(3)
    expect(timestampRange(db(1), NOW_MS)).toEqual([BigInt(NOW_MS - 86_400_000), BigInt(Date.UTC(2970, 0, 1)) - 1n])
    expect(timestampRange(db(1, 'ns'), NOW_MS)[1]).toBe(9223372036854775807n)
    expect(timestampRange(db(1, 'us'), NOW_MS)[0]).toBe(BigInt(NOW_MS - 86_400_000) * 1000n)
  })
})

describe('valueConverter', () => {
  const TYPES: ColumnDef['type'][] = [
    'TIMESTAMP', 'BOOL', 'TINYINT', 'SMALLINT', 'INT', 'BIGINT', 'TINYINT UNSIGNED', 'SMALLINT UNSIGNED',
    'INT UNSIGNED', 'BIGINT UNSIGNED', 'FLOAT', 'DOUBLE', 'VARCHAR', 'NCHAR',
  ]
  const outcome = (fn: () => unknown): unknown => {
    try {
      const v = fn()
      return { value: typeof v === 'bigint' ? `${v}n` : Object.is(v, -0) ? '-0' : v }
    } catch (e) {
      return { error: e instanceof Error ? `${e.constructor.name}: ${e.message}` : String(e) }
    }
  }
  const digits = fc.stringMatching(/^[0-9]{1,20}$/)
  const numberText = fc.oneof(
    digits,
    fc.tuple(fc.constantFrom('', '-', '+'), digits, fc.option(digits)).map(([s, a, b]) => (b === null ? s + a : `${s}${a}.${b}`)),
    fc.tuple(digits, fc.constantFrom('e', 'e-', 'e+'), fc.stringMatching(/^[0-9]{1,3}$/)).map(([a, e, b]) => a + e + b),
    fc.constantFrom('0x1f', '-0', '.5', '5.', '-.5', '1e400', '9007199254740993', '-9223372036854775808', '-', '.', ''),
    fc.double({ noNaN: true }).map(String),
  )
  const value: fc.Arbitrary<ValueExpr> = fc.oneof(
    numberText.map(num),
    numberText.map(str),
    fc.boolean().map((value): ValueExpr => ({ kind: 'bool', value, span })),
    fc.constant<ValueExpr>({ kind: 'null', span }),
    fc.constant<ValueExpr>({ kind: 'number', text: '5', span, deltas: [{ sign: 1, value: 1, unit: 's' }] }),
  )

  it('gives what convertValue gives, value or error, for every column type', () => {
    fc.assert(
      fc.property(fc.constantFrom(...TYPES), value, (type, v) => {
        const c = col(type, 16)
        expect(outcome(() => valueConverter(c, cx)(v))).toEqual(outcome(() => convertValue(v, c, cx)))
      }),
      { numRuns: 5000 },
    )
  })
})
