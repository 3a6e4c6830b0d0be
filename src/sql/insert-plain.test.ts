import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ColumnDef, TdType } from '../storage/td-types.js'
import { convertRows } from './insert.js'
import { tokenize } from './lexer.js'
import { ValueError } from './types.js'

/**
 * The lexer's plain tuples are converted straight from the text (convertPlain); the ordinary
 * path converts the ValueExprs the parser builds. Both must give the same rows, or fail with the
 * same error, for every literal and column type.
 */
const TYPES: [TdType, number][] = [
  ['DOUBLE', 8],
  ['FLOAT', 4],
  ['INT', 4],
  ['TINYINT', 1],
  ['SMALLINT UNSIGNED', 2],
  ['BIGINT', 8],
  ['BIGINT UNSIGNED', 8],
  ['BOOL', 1],
  ['VARCHAR', 6],
  ['NCHAR', 4],
]

const literal = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: -300, max: 70000 }).map(String) },
  { weight: 2, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }).map(String) },
  { weight: 2, arbitrary: fc.tuple(fc.integer({ min: 0, max: 99999 }), fc.integer({ min: 0, max: 99999 })).map(([a, b]) => `${a}.${b}`) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '-0', '+0', '-0.0', '1.', '.5', '-.5', '+7', '+1.25', '007', '1E5', '2e-3', '9007199254740993', '999999999999999', '1000000000000000',
      '-99999999999999', '-128', '-129', '127', '128', '255', '256', '65535', '65536', '2147483648', '-9223372036854775808',
      '18446744073709551615', '18446744073709551616', '0.30000000000000004', '123456789.12345', '1234567890.12345',
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom('NULL', 'true', 'FALSE', 'now', "'12'", "'1.5'", "'abc'", "'abcdefg'", "'ünï'", "''", "'2024-01-01 00:00:00'") },
)
const timestamp = fc.oneof(
  fc.integer({ min: 1_700_000_000_000, max: 1_700_100_000_000 }).map(String),
  fc.constantFrom('now', 'NULL', '0', '-1', "'2024-01-01 00:00:00.000'", '1700000000000.5', '+1700000000000', '17000000000000000', "'x'"),
)

function outcome(run: () => unknown[][]): unknown {
  try {
    return { rows: run() }
  } catch (e) {
    return e instanceof ValueError ? { reason: e.reason, start: e.start, code: e.code } : { err: String(e) }
  }
}

describe('INSERT plain tuples read from the text', () => {
  it('give the same rows or the same error as the ValueExprs the parser builds', () => {
    const nowMs = 1_700_050_000_000
    const range: [bigint, bigint] = [1_699_000_000_000n, 1_701_000_000_000n]
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: TYPES.length - 1 }), { minLength: 1, maxLength: 4 }),
        fc.array(fc.tuple(timestamp, fc.array(literal, { minLength: 4, maxLength: 4 }), fc.boolean()), { minLength: 1, maxLength: 6 }),
        (types, tuples) => {
          const cols: ColumnDef[] = [{ name: 'ts', type: 'TIMESTAMP', length: 8 }, ...types.map((t, i) => ({ name: `c${i}`, type: TYPES[t][0], length: TYPES[t][1] }))]
          // a short tuple now and then: the row shape error must come out the same too
          const body = tuples.map(([ts, vals, short]) => `(${[ts, ...vals.slice(0, short && vals.length > 1 ? types.length - 1 : types.length)].join(', ')})`).join(' ')
          const sql = `INSERT INTO t VALUES ${body}`
          const token = tokenize(sql).find((t) => t.kind === 'rows')
          if (token?.tuples === undefined) {
            return
          }
          const plain = token.tuples
          const cx = { sql, precision: 'ms' as const, nowMs }
          const fast = outcome(() => convertRows(sql, plain, [], cols, cx, range, 'ts'))
          const ordinary = outcome(() => convertRows(sql, undefined, plain.toValueExprs(), cols, cx, range, 'ts'))
          expect(fast).toEqual(ordinary)
        },
      ),
      { numRuns: 3000 },
    )
  })

  it('reads -0, decimals and integers exactly as Number() does', () => {
    const sql = 'INSERT INTO t VALUES (1700000000000, -0, 0.1, 123456.789, -7, 9007199254740)'
    const plain = tokenize(sql).find((t) => t.kind === 'rows')?.tuples
    const cols: ColumnDef[] = [
      { name: 'ts', type: 'TIMESTAMP', length: 8 },
      { name: 'a', type: 'DOUBLE', length: 8 },
      { name: 'b', type: 'DOUBLE', length: 8 },
      { name: 'c', type: 'FLOAT', length: 4 },
      { name: 'd', type: 'INT', length: 4 },
      { name: 'e', type: 'BIGINT', length: 8 },
    ]
    const rows = convertRows(sql, plain, [], cols, { sql, precision: 'ms', nowMs: 1_700_000_000_000 }, [0n, 2n ** 62n], 'ts')
    expect(rows).toEqual([[1700000000000n, -0, 0.1, 123456.789, -7, 9007199254740n]])
    expect(Object.is(rows[0][1], -0)).toBe(true)
  })
})
