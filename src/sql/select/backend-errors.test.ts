import { describe, expect, it } from 'vitest'
import { TdError } from '../../td-error.js'
import { backendError } from './backend-errors.js'

/** A PostgreSQL driver error: its SQLSTATE in `code` */
function pgError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code })
}

describe('backendError', () => {
  it.each([
    ['DuckDB RE2 compile error', new Error('Invalid Input Error: missing ): ('), 9857, 'Syntax error in regular expression'],
    ['PostgreSQL invalid_regular_expression', pgError('2201B', 'invalid regular expression: parentheses () not balanced'), 9857, 'Syntax error in regular expression'],
    ['DuckDB integer overflow', new Error('Out of Range Error: Overflow in addition of INT64 (9223372036854775807 + 1)!'), 548, 'Value out of range'],
    ['PostgreSQL numeric_value_out_of_range', pgError('22003', 'bigint out of range'), 548, 'Value out of range'],
    ['DuckDB conversion', new Error("Conversion Error: Could not convert string 'abc' to INT32"), 12880, 'Cannot convert to specific type'],
    ['an unknown DuckDB error', new Error('Catalog Error: Table with name x does not exist!'), 767, 'Internal error'],
    ['an unknown PostgreSQL error', pgError('42P01', 'relation "x" does not exist'), 767, 'Internal error'],
  ])('%s -> %i, without the backend text', (_what, err, code, desc) => {
    const mapped = backendError(err)
    expect(mapped).toBeInstanceOf(TdError)
    expect({ code: mapped.code, desc: mapped.desc }).toEqual({ code, desc })
    // the backend's text stays with the error for the log (rest/sql-handler.ts), not the client
    expect(mapped.cause).toBe(err)
  })

  it('storage trouble keeps its cause (503 upstream when the pool is gone) but not its text', () => {
    const io = new Error('IO Error: Could not write file "/data/x.db": No space left on device')
    const mapped = backendError(io)
    expect({ code: mapped.code, desc: mapped.desc }).toEqual({ code: 65535, desc: 'Query failed: storage error, retry later' })
    expect(mapped.cause).toBe(io)
  })

  it('passes a TdError through', () => {
    const e = new TdError(9730, 'Invalid column name: x')
    expect(backendError(e)).toBe(e)
  })
})
