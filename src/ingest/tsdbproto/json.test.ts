import { describe, expect, it } from 'vitest'
import { IngestParseError } from '../errors.js'
import { clonePoint, type Field, type Point } from '../point.js'
import { OpenTsdbJsonParser } from './json.js'
import { TSDB_VALUE_FIELD } from './telnet.js'

const parser = new OpenTsdbJsonParser()

function run(body: string): { points: Array<{ index: number; point: Point }>; errors: IngestParseError[] } {
  const points: Array<{ index: number; point: Point }> = []
  const errors: IngestParseError[] = []
  const stats = parser.parse(
    body,
    (p, index) => points.push({ index, point: clonePoint(p) }),
    (e) => errors.push(e),
  )
  expect(parser.current).toEqual({ measurement: '', tags: [], fields: [], ts: null })
  expect(stats.points).toBe(points.length)
  expect(stats.errors).toBe(errors.length)
  return { points, errors }
}

function check(input: string, expected: Point[]): void {
  for (let round = 0; round < 2; round++) {
    const r = run(input)
    expect(r.errors.map((e) => e.message), input).toEqual([])
    expect(r.points.map((x) => x.point), input).toEqual(expected)
  }
}

function fail(input: string, reason: string, field?: string): IngestParseError {
  let err: IngestParseError | undefined
  for (let round = 0; round < 2; round++) {
    const r = run(input)
    expect(r.points, input).toEqual([])
    expect(r.errors.length, input).toBe(1)
    expect(r.errors[0].message, input).toContain(reason)
    expect(r.errors[0].format).toBe('tsdb-json')
    expect(r.errors[0].field).toBe(field)
    err = r.errors[0]
  }
  return err as IngestParseError
}

const pt = (metric: string, ts: bigint | null, value: Field, tags: Array<[string, string]>): Point => ({
  measurement: metric,
  tags,
  fields: [value],
  ts,
})
const v = (type: Field['type'], value: Field['value']): Field => ({ name: TSDB_VALUE_FIELD, type, value }) as Field
const item = (fields: Record<string, unknown>): string =>
  JSON.stringify({ metric: 'sys.cpu', timestamp: 1700000000, value: 1, tags: { host: 'a' }, ...fields })

describe('OpenTsdbJsonParser.parse', () => {
  it('parses single objects and arrays', () => {
    // Single object; seconds become ms
    check(item({}), [pt('sys.cpu', 1700000000000n, v('DOUBLE', 1), [['host', 'a']])])
    // Array; 13 digits are ms; 0 is "now" (null)
    check(`[${item({ timestamp: 1700000000123 })},${item({ timestamp: 0, value: 2.5 })}]`, [
      pt('sys.cpu', 1700000000123n, v('DOUBLE', 1), [['host', 'a']]),
      pt('sys.cpu', null, v('DOUBLE', 2.5), [['host', 'a']]),
    ])
    // Empty array, empty and blank bodies: no items
    check('[]', [])
    check('', [])
    check(' \n ', [])
    // Typed timestamps
    check(item({ timestamp: { value: 5, type: 's' } }), [pt('sys.cpu', 5000n, v('DOUBLE', 1), [['host', 'a']])])
    check(item({ timestamp: { value: 5, type: 'MS' } }), [pt('sys.cpu', 5n, v('DOUBLE', 1), [['host', 'a']])])
  })

  it('types values and tags', () => {
    // Plain JSON values
    check(item({ value: 'text' }), [pt('sys.cpu', 1700000000000n, v('NCHAR', 'text'), [['host', 'a']])])
    check(item({ value: true }), [pt('sys.cpu', 1700000000000n, v('BOOL', true), [['host', 'a']])])
    // Typed values
    check(item({ value: { value: 7, type: 'tinyint' } }), [pt('sys.cpu', 1700000000000n, v('TINYINT', 7), [['host', 'a']])])
    check(item({ value: { value: -32768, type: 'SmallInt' } }), [pt('sys.cpu', 1700000000000n, v('SMALLINT', -32768), [['host', 'a']])])
    check(item({ value: { value: 2147483647, type: 'int' } }), [pt('sys.cpu', 1700000000000n, v('INT', 2147483647), [['host', 'a']])])
    check(item({ value: { value: 42, type: 'bigint' } }), [pt('sys.cpu', 1700000000000n, v('BIGINT', 42n), [['host', 'a']])])
    check(item({ value: { value: '9223372036854775807', type: 'bigint' } }), [
      pt('sys.cpu', 1700000000000n, v('BIGINT', 9223372036854775807n), [['host', 'a']]),
    ])
    check(item({ value: { value: 1.5, type: 'float' } }), [pt('sys.cpu', 1700000000000n, v('FLOAT', 1.5), [['host', 'a']])])
    check(item({ value: { value: 1.5, type: 'double' } }), [pt('sys.cpu', 1700000000000n, v('DOUBLE', 1.5), [['host', 'a']])])
    check(item({ value: { value: false, type: 'bool' } }), [pt('sys.cpu', 1700000000000n, v('BOOL', false), [['host', 'a']])])
    check(item({ value: { value: 'x', type: 'binary' } }), [pt('sys.cpu', 1700000000000n, v('VARCHAR', 'x'), [['host', 'a']])])
    check(item({ value: { value: 'x', type: 'varchar' } }), [pt('sys.cpu', 1700000000000n, v('VARCHAR', 'x'), [['host', 'a']])])
    check(item({ value: { value: 'x', type: 'nchar' } }), [pt('sys.cpu', 1700000000000n, v('NCHAR', 'x'), [['host', 'a']])])
    // Tags: strings kept, numbers and booleans as their JSON text, order kept, empty object allowed
    check(item({ tags: { b: 'x', a: 1.5, c: true, d: 10 } }), [
      pt('sys.cpu', 1700000000000n, v('DOUBLE', 1), [['b', 'x'], ['a', '1.5'], ['c', 'true'], ['d', '10']]),
    ])
    check(item({ tags: {} }), [pt('sys.cpu', 1700000000000n, v('DOUBLE', 1), [])])
  })

  it('rejects malformed items naming the index and member', () => {
    // Body level
    const e = fail('{"metric": ', 'invalid JSON')
    expect(e.line).toBe(0)
    expect(e.index).toBeUndefined()
    fail('5', 'expected an object, got number 5')
    fail('[null]', 'expected an object, got null')
    fail('[[1]]', 'expected an object, got an array')
    // metric
    fail(item({ metric: '' }), '"metric" must be a non-empty string, got string ""', 'metric')
    fail(item({ metric: 5 }), '"metric" must be a non-empty string, got number 5', 'metric')
    fail(item({ metric: undefined }), '"metric" must be a non-empty string, got nothing', 'metric')
    // timestamp
    fail(item({ timestamp: 170000000 }), '"timestamp" 170000000 must have 10 digits (seconds) or 13 digits (milliseconds), or be 0 (now)', 'timestamp')
    fail(item({ timestamp: 17000000000 }), 'must have 10 digits', 'timestamp')
    fail(item({ timestamp: '1700000000' }), '"timestamp" must be a non-negative integer, got string "1700000000"', 'timestamp')
    fail(item({ timestamp: 1700000000.5 }), 'must be a non-negative integer', 'timestamp')
    fail(item({ timestamp: -1 }), 'must be a non-negative integer', 'timestamp')
    fail(item({ timestamp: undefined }), 'must be a non-negative integer, got nothing', 'timestamp')
    fail(item({ timestamp: { value: 5, type: 'ns' } }), '"timestamp" type must be "s" or "ms", got string "ns"', 'timestamp')
    // value
    fail(item({ value: null }), '"value" must be a number, string, boolean or {value, type}, got null', 'value')
    fail(item({ value: undefined }), 'got nothing', 'value')
    fail(item({ value: [1] }), 'got an array', 'value')
    fail('{"metric":"m","timestamp":1700000000,"value":1e999,"tags":{}}', '"value" out of range: Infinity', 'value')
    fail(item({ value: { value: 128, type: 'tinyint' } }), 'tinyint out of range[-128,127]:128', 'value')
    fail(item({ value: { value: 2147483648, type: 'int' } }), 'int out of range[-2147483648,2147483647]:2147483648', 'value')
    fail(item({ value: { value: 1.5, type: 'int' } }), '"value" of type "int" must be an integer, got number 1.5', 'value')
    fail(item({ value: { value: '9223372036854775808', type: 'bigint' } }), 'bigint out of range', 'value')
    fail(item({ value: { value: 2 ** 60, type: 'bigint' } }), 'must be a safe integer or a string of digits', 'value')
    fail(item({ value: { value: 1e39, type: 'float' } }), 'float out of range', 'value')
    fail(item({ value: { value: 1, type: 'bool' } }), 'must be a boolean', 'value')
    fail(item({ value: { value: 1, type: 'nchar' } }), 'must be a string', 'value')
    fail(item({ value: { value: 1, type: 'decimal' } }), 'unknown value type "decimal"', 'value')
    // tags
    fail(item({ tags: undefined }), '"tags" must be an object, got nothing', 'tags')
    fail(item({ tags: ['a'] }), '"tags" must be an object, got an array', 'tags')
    fail(item({ tags: { a: null } }), 'tag "a" must be a string, number or boolean, got null', 'a')
    fail(item({ tags: { a: { b: 1 } } }), 'tag "a" must be a string, number or boolean, got an object', 'a')
    fail(item({ tags: { '': 'x' } }), 'empty tag key', 'tags')
  })

  it('keeps delivering good items after a bad one, with indexes in the message', () => {
    const r = run(`[${item({})},${item({ metric: '' })},${item({ value: 3 })}]`)
    expect(r.points.map((p) => p.index)).toEqual([0, 2])
    expect(r.errors.map((e) => e.index)).toEqual([1])
    expect(r.errors[0].message).toBe(
      `tsdb-json item 1: "metric" must be a non-empty string, got string "" in ${JSON.stringify(item({ metric: '' }))}`,
    )
  })

  it('works through the function form', () => {
    const stats = new OpenTsdbJsonParser().parse(`[${item({})},${item({})}]`, () => {}, () => {})
    expect(stats).toEqual({ lines: 2, points: 2, errors: 0 })
  })
})
