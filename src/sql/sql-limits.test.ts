import { describe, expect, it } from 'vitest'
import { TdError } from '../td-error.js'
import { parseStatement } from './parser.js'
import { MAX_EXPR_DEPTH, MAX_SQL_NESTING } from './sql-limits.js'

/** the parse error of `sql`, with how long the parser took to refuse it */
function refusal(sql: string): { err: TdError; ms: number } {
  const t0 = performance.now()
  try {
    parseStatement(sql)
  } catch (e) {
    const ms = performance.now() - t0
    expect(e).toBeInstanceOf(TdError)
    return { err: e as TdError, ms }
  }
  throw new Error(`parsed: ${sql.slice(0, 80)}`)
}

const chain = (n: number, term: string, op: string): string => Array(n).fill(term).join(op)

describe('statement shape limits', () => {
  it('accepts operator chains and nesting up to the limits', () => {
    expect(() => parseStatement(`SELECT ${chain(MAX_EXPR_DEPTH, 'a', ' + ')} FROM t`)).not.toThrow()
    expect(() => parseStatement(`SELECT a FROM t WHERE ${chain(MAX_EXPR_DEPTH - 1, 'a = 1', ' OR ')}`)).not.toThrow()
    const n = MAX_SQL_NESTING - 1
    expect(() => parseStatement(`SELECT ${'('.repeat(n)}a${')'.repeat(n)} FROM t`)).not.toThrow()
    expect(() => parseStatement(`SELECT ${'abs('.repeat(n)}a${')'.repeat(n)} FROM t`)).not.toThrow()
    // flat lists cost no depth: a wide select list and IN list parse however long
    expect(() => parseStatement(`SELECT ${chain(50_000, 'a', ', ')} FROM t WHERE a IN (${chain(50_000, '1', ', ')})`)).not.toThrow()
  })

  it('refuses a 100,000-term chain with a syntax error in linear time', () => {
    for (const [term, op] of [['1', ' + '], ['a = 1', ' OR '], ['a > 0', ' AND '], ['2', ' * '], ["'x'", ' || ']]) {
      const { err, ms } = refusal(`SELECT a FROM t WHERE ${chain(100_000, term, op)}`)
      expect(err.code).toBe(9728)
      expect(err.desc).toContain(`more than ${MAX_EXPR_DEPTH} operators deep`)
      expect(ms).toBeLessThan(2000)
    }
  })

  it('refuses deep nesting of every kind before the stack overflows', () => {
    const n = 100_000
    const cases = [
      `SELECT ${'('.repeat(n)}1${')'.repeat(n)}`,
      `SELECT ${'abs('.repeat(n)}1${')'.repeat(n)}`,
      `SELECT ${'cast('.repeat(n)}1${' as int)'.repeat(n)}`,
      `SELECT ${'- '.repeat(n)}a FROM t`,
      `SELECT a FROM t WHERE ${'NOT '.repeat(n)}a`,
      `SELECT ${'CASE WHEN '.repeat(n)}1`,
      `SELECT a FROM t WHERE a IN (${'a IN ('.repeat(n)}`,
      `SELECT * FROM ${'(SELECT * FROM '.repeat(n)}t`,
      `${'('.repeat(n)}SELECT 1`,
    ]
    for (const sql of cases) {
      const { err, ms } = refusal(sql)
      expect(err.code, sql.slice(0, 40)).toBe(9728)
      expect(err.desc).toContain(`more than ${MAX_SQL_NESTING} nested levels`)
      expect(ms).toBeLessThan(2000)
    }
  })

  it('counts depth through nesting: a chain inside parentheses inside a chain', () => {
    const half = Math.ceil(MAX_EXPR_DEPTH / 2) + 1
    const inner = `(${chain(half, 'a', ' + ')})`
    const { err } = refusal(`SELECT ${chain(half, inner, ' * ')} FROM t`)
    expect(err.code).toBe(9728)
    expect(err.desc).toContain('operators deep')
  })

  it('names the default column from the first 64 characters of a long item', () => {
    const stmt = parseStatement(`SELECT ${chain(300, 'A', ' + ')} FROM t`)
    expect(stmt.type === 'select' && stmt.select.items[0].text).toBe(chain(300, 'a', ' + ').slice(0, 64))
  })
})
