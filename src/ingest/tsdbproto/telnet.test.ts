import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { IngestParseError } from '../errors.js'
import { clonePoint, type Point } from '../point.js'
import { TelnetParser, TSDB_VALUE_FIELD } from './telnet.js'

const parser = new TelnetParser()

function run(body: string): { points: Array<{ line: number; point: Point }>; errors: IngestParseError[]; lines: number } {
  const points: Array<{ line: number; point: Point }> = []
  const errors: IngestParseError[] = []
  const stats = parser.parse(
    body,
    (p, line) => points.push({ line, point: clonePoint(p) }),
    (e) => errors.push(e),
  )
  expect(parser.current).toEqual({ measurement: '', tags: [], fields: [], ts: null })
  expect(stats.points).toBe(points.length)
  expect(stats.errors).toBe(errors.length)
  return { points, errors, lines: stats.lines }
}

function check(input: string, expected: Point[]): void {
  for (let round = 0; round < 2; round++) {
    const r = run(input)
    expect(r.errors.map((e) => e.message), input).toEqual([])
    expect(r.points.map((x) => x.point), input).toEqual(expected)
  }
}

function fail(input: string, reason: string): IngestParseError {
  let err: IngestParseError | undefined
  for (let round = 0; round < 2; round++) {
    const r = run(input)
    expect(r.points, input).toEqual([])
    expect(r.errors.length, input).toBe(1)
    expect(r.errors[0].message, input).toContain(reason)
    expect(r.errors[0].format).toBe('tsdb-telnet')
    err = r.errors[0]
  }
  return err as IngestParseError
}

const pt = (metric: string, ts: bigint, value: number, tags: Array<[string, string]>): Point => ({
  measurement: metric,
  tags,
  fields: [{ name: TSDB_VALUE_FIELD, type: 'DOUBLE', value }],
  ts,
})

describe('TelnetParser.parse', () => {
  it('parses valid lines', () => {
    // With and without the put prefix
    check('put sys.cpu 1700000000 1.5 host=a', [pt('sys.cpu', 1700000000000n, 1.5, [['host', 'a']])])
    check('sys.cpu 1700000000 1.5 host=a', [pt('sys.cpu', 1700000000000n, 1.5, [['host', 'a']])])
    // Seconds (10 digits) become ms; 13 digits are ms already
    check('m 1700000000123 2 h=a', [pt('m', 1700000000123n, 2, [['h', 'a']])])
    check('m 0000000001 2 h=a', [pt('m', 1000n, 2, [['h', 'a']])])
    // Repeated spaces, tabs, CRLF, surrounding whitespace, empty lines
    check('\r\n  put   m\t1700000000   -3e2  a=1   b=2  \r\n\r\n', [pt('m', 1700000000000n, -300, [['a', '1'], ['b', '2']])])
    // Tag values may contain '=' (split at the first one); no tags at all is accepted
    check('m 1700000000 1 url=a=b', [pt('m', 1700000000000n, 1, [['url', 'a=b']])])
    check('m 1700000000 1', [pt('m', 1700000000000n, 1, [])])
    // A metric named "put" and the prefix together
    check('put put 1700000000 1 a=b', [pt('put', 1700000000000n, 1, [['a', 'b']])])
    // Decimal value forms
    check('m 1700000000 .5 a=b\nm 1700000000 7. a=b\nm 1700000000 +1E-2 a=b', [
      pt('m', 1700000000000n, 0.5, [['a', 'b']]),
      pt('m', 1700000000000n, 7, [['a', 'b']]),
      pt('m', 1700000000000n, 0.01, [['a', 'b']]),
    ])
  })

  it('rejects malformed lines', () => {
    fail('m', 'missing timestamp and value after metric "m"')
    fail('put m 1700000000', 'missing value after timestamp "1700000000"')
    // Timestamps: only 10 or 13 digits
    fail('m 170000000 1 a=b', 'invalid timestamp "170000000": expected 10 digits (seconds) or 13 digits (milliseconds)')
    fail('m 17000000000 1 a=b', 'invalid timestamp "17000000000"')
    fail('m 1700000000000000000 1 a=b', 'invalid timestamp')
    fail('m 0 1 a=b', 'invalid timestamp "0"')
    fail('m -700000000 1 a=b', 'invalid timestamp "-700000000"')
    fail('m 170000000a 1 a=b', 'invalid timestamp "170000000a"')
    // Values
    fail('m 1700000000 abc a=b', 'invalid value "abc": expected a decimal number')
    fail('m 1700000000 nan a=b', 'invalid value "nan"')
    fail('m 1700000000 0x10 a=b', 'invalid value "0x10"')
    fail('m 1700000000 1i64 a=b', 'invalid value "1i64"')
    fail('m 1700000000 1e999 a=b', 'value out of range: 1e999')
    // Tags
    fail('m 1700000000 1 host', 'invalid tag "host": expected key=value')
    fail('m 1700000000 1 =a', 'invalid tag "=a": empty key')
    fail('m 1700000000 1 host=', 'missing value for tag "host"')
    fail('m 1700000000 1 a=1 a=2', 'duplicate tag "a"')
  })

  it('hints when an HTTP request reaches the telnet parser', () => {
    const e = fail('GET / HTTP/1.1', 'invalid timestamp "/"')
    expect(e.hint).toContain('HTTP request')
    expect(fail('POST /api/put HTTP/1.0', 'invalid timestamp').hint).toContain('HTTP request')
    expect(fail('m 1700000000', 'missing value').hint).toBeUndefined()
  })

  it('reports bad lines with 1-based line numbers and keeps parsing', () => {
    const r = run('m 1700000000 1 a=b\n\nbad\r\nm 1700000000 2 a=b\nm x 1 a=b')
    expect(r.lines).toBe(5)
    expect(r.points.map((p) => p.line)).toEqual([1, 4])
    expect(r.errors.map((e) => e.line)).toEqual([3, 5])
    expect(r.errors[1].message).toBe(
      'tsdb-telnet line 5: invalid timestamp "x": expected 10 digits (seconds) or 13 digits (milliseconds) in "m x 1 a=b"',
    )
  })

  it('parses real collectd 5.12 write_tsdb traffic', () => {
    const body = readFileSync(new URL('./testdata/collectd5.12_write_tsdb.txt', import.meta.url), 'utf8')
    // An independent reading of the same text as the oracle: split on whitespace.
    const rawLines = body.split('\n').filter((l) => l.trim() !== '')
    const expected = rawLines.map((l) => {
      const [put, metric, ts, value, ...tags] = l.trim().split(/\s+/)
      expect(put).toBe('put')
      return pt(
        metric,
        BigInt(ts) * 1000n,
        Number(value),
        tags.map((t): [string, string] => [t.slice(0, t.indexOf('=')), t.slice(t.indexOf('=') + 1)]),
      )
    })
    expect(expected.length).toBeGreaterThan(50)
    check(body, expected)
    const first = run(body).points[0].point
    expect(first).toEqual(pt('memory.used.memory', 1795309644000n, 178503680, [['fqdn', 'peers-probe'], ['source', 'collectd']]))
  })

  it('works through the function form', () => {
    let n = 0
    const stats = new TelnetParser().parse('m 1700000000 1 a=b\nm 1700000000 2 a=b', () => n++, () => {})
    expect(stats).toEqual({ lines: 2, points: 2, errors: 0 })
    expect(n).toBe(2)
  })
})
