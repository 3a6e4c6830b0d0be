import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { insertRows } from './parse-insert.js'
import { parseStatement } from './parser.js'
import { tokenize } from './lexer.js'

/** The parse result or the error, comparable across the two paths. */
function outcome(sql: string, fastValues: boolean): unknown {
  try {
    const stmt = parseStatement(sql, { fastValues })
    if (stmt.type === 'insert') {
      // the lexer's plain tuples as the ValueExprs the parser builds
      stmt.targets = stmt.targets.map(({ plain: _, ...t }) => ({ ...t, rows: insertRows({ plain: _, ...t }) }))
    }
    return { ok: stmt }
  } catch (err) {
    const e = err as { code?: number; message: string }
    return { code: e.code, message: e.message }
  }
}

const plain = fc.oneof(
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
  fc.constantFrom('1.', '.5', '-.5', '+7', '1E5', '2e-3', '-1.5E+2', '0', '007', '9007199254740993', '-9223372036854775808'),
  fc.constantFrom('NULL', 'null', 'true', 'FALSE', 'now', 'NOW'),
  fc.string({ maxLength: 6 }).map((s) => `'${s.replaceAll("'", "''")}'`),
  fc.constantFrom(`'it''s'`, `"dq"`, `'a\\'b'`, `'tab\\tnl\\n'`, `'2024-01-01 00:00:00.000'`, `''`, `'\\\\'`),
)
const other = fc.constantFrom(
  '0x1F', '0X1f', 'now()', 'NOW + 1s', 'now - 5m', '1700000000000 + 1s', "'2024-01-01' - 1d", '- 5', '1.e5', '1e', '10s', 'abc', "'open",
  '1.2.3', '$', 'today()', '(1)', '', 'nul', 'truex', '5x',
)
const value = fc.oneof({ weight: 5, arbitrary: plain }, { weight: 1, arbitrary: other })
const ws = fc.constantFrom('', ' ', '  ', '\n', '\t')
const tuple = fc.tuple(fc.array(fc.tuple(ws, value, ws), { minLength: 1, maxLength: 4 }), fc.constantFrom('(', '( ')).map(
  ([vals, open]) => `${open}${vals.map(([a, v, b]) => `${a}${v}${b}`).join(',')})`,
)
const target = fc.tuple(
  fc.constantFrom('d1', 'db.d2', 'd3 USING st TAGS (1)', 'd4 (ts, v)', 'st (tbname, ts, v)'),
  fc.constantFrom('VALUES', 'values', 'Values'),
  fc.array(fc.tuple(tuple, fc.constantFrom('', ',', ' ', ' , ')), { minLength: 1, maxLength: 5 }),
).map(([t, kw, tuples]) => `${t} ${kw} ${tuples.map(([x, sep]) => x + sep).join('')}`)

describe('INSERT VALUES fast path (lexer scanPlainTuples)', () => {
  it('parses to exactly what the ordinary token path builds, or fails with the same error', () => {
    fc.assert(
      fc.property(fc.array(target, { minLength: 1, maxLength: 3 }), fc.constantFrom('', ';', ' ; x'), (targets, tail) => {
        const sql = `INSERT INTO ${targets.join(' ')}${tail}`
        expect(outcome(sql, true)).toEqual(outcome(sql, false))
      }),
      { numRuns: 3000 },
    )
  })

  it('takes plain tuples without a token each, and leaves the rest to ordinary lexing', () => {
    const kinds = tokenize("INSERT INTO d1 VALUES (1, 'a', NULL) (2, 'b', true), (now + 1s, 'c', 0x10) (4, 'd', 5)").map((t) => t.kind)
    expect(kinds.filter((k) => k === 'rows')).toHaveLength(1)
    expect(kinds.filter((k) => k === 'number')).toEqual(['number', 'number', 'number'])
    // not an INSERT: a column called values stays an identifier followed by ordinary tokens
    expect(tokenize('SELECT values FROM t WHERE values IN (1, 2)').some((t) => t.kind === 'rows')).toBe(false)
  })
})
