import { describe, expect, it } from 'vitest'
import { IngestParseError, MAX_QUOTE_BYTES } from '../errors.js'
import { clonePoint, seriesKeyOf, type Field, type Point } from '../point.js'
import { LineProtoParser } from './parse.js'

const parser = new LineProtoParser()

interface Run {
  points: Array<{ line: number; point: Point }>
  errors: IngestParseError[]
  stats: { lines: number; points: number; errors: number }
}

function run(body: string): Run {
  const points: Run['points'] = []
  const errors: IngestParseError[] = []
  const stats = parser.parse(
    body,
    (p, line) => points.push({ line, point: clonePoint(p) }),
    (e) => errors.push(e),
  )
  // reset() must leave the reused context empty after every parse.
  expect(parser.current).toEqual({ measurement: '', tags: [], fields: [], ts: null })
  return { points, errors, stats }
}

/** Parses twice on the same context (catches reuse bugs) and compares the points. */
function check(input: string, expected: Point[]): void {
  for (let round = 0; round < 2; round++) {
    const r = run(input)
    expect(r.errors.map((e) => e.message), input).toEqual([])
    expect(r.points.map((x) => x.point), input).toEqual(expected)
  }
}

/** One bad line: parsed twice, no point, one IngestParseError whose message contains `reason`. */
function fail(input: string, reason: string): void {
  for (let round = 0; round < 2; round++) {
    const r = run(input)
    expect(r.points, input).toEqual([])
    expect(r.errors.length, input).toBe(1)
    expect(r.errors[0]).toBeInstanceOf(IngestParseError)
    expect(r.errors[0].message, input).toContain(reason)
    expect(r.errors[0].format).toBe('lineproto')
    expect(r.errors[0].line).toBe(1)
  }
}

const pt = (measurement: string, tags: Array<[string, string]>, fields: Field[], ts: bigint | null = null): Point => ({
  measurement,
  tags,
  fields,
  ts,
})
const dbl = (name: string, value: number): Field => ({ name, type: 'DOUBLE', value })
const big = (name: string, value: bigint): Field => ({ name, type: 'BIGINT', value })
const str = (name: string, value: string): Field => ({ name, type: 'VARCHAR', value })
const bool = (name: string, value: boolean): Field => ({ name, type: 'BOOL', value })

describe('LineProtoParser.parse: valid lines', () => {
  it('parses shapes, whitespace and line endings', () => {
    // Minimal line, no tags, no timestamp
    check('m f=1', [pt('m', [], [dbl('f', 1)])])
    // Tags, several fields, timestamp
    check('cpu,host=a,region=eu usage=1.5,idle=98 1700000000000', [
      pt('cpu', [['host', 'a'], ['region', 'eu']], [dbl('usage', 1.5), dbl('idle', 98)], 1700000000000n),
    ])
    // Negative and 19-digit (nanosecond) timestamps
    check('m f=1 -5', [pt('m', [], [dbl('f', 1)], -5n)])
    check('m f=1 1700000000123456789', [pt('m', [], [dbl('f', 1)], 1700000000123456789n)])
    check('m f=1 9223372036854775807', [pt('m', [], [dbl('f', 1)], 9223372036854775807n)])
    // Runs of spaces between sections, leading/trailing spaces and tabs
    check('  m,t=1   f=1    7  \t', [pt('m', [['t', '1']], [dbl('f', 1)], 7n)])
    // CRLF, blank lines and comments skipped
    check('# comment\r\n\r\nm f=1\r\n  # indented comment\n\nm f=2\r\n', [
      pt('m', [], [dbl('f', 1)]),
      pt('m', [], [dbl('f', 2)]),
    ])
    // No final newline
    check('m f=1\nm f=2', [pt('m', [], [dbl('f', 1)]), pt('m', [], [dbl('f', 2)])])
    // Empty body and only whitespace
    check('', [])
    check('\n\r\n  \n', [])
    // Unicode names and values
    check('天气,城市=北京 温度=1,说明="晴 朗"', [pt('天气', [['城市', '北京']], [dbl('温度', 1), str('说明', '晴 朗')])])
    // '=' inside a measurement needs no escape; '#' after the start is not a comment
    check('a=b f=1', [pt('a=b', [], [dbl('f', 1)])])
    check('m#1 f=1', [pt('m#1', [], [dbl('f', 1)])])
  })

  it('applies every escaping rule', () => {
    // Measurement: comma and space
    check('a\\,b\\ c f=1', [pt('a,b c', [], [dbl('f', 1)])])
    // Measurement: `\=` is not an escape there, the backslash stays
    check('a\\=b f=1', [pt('a\\=b', [], [dbl('f', 1)])])
    // Tag keys and values: comma, equals, space
    check('m,k\\,1\\=2\\ 3=v\\,1\\=2\\ 3 f=1', [pt('m', [['k,1=2 3', 'v,1=2 3']], [dbl('f', 1)])])
    // Field keys: comma, equals, space
    check('m f\\,1\\=2\\ 3=1', [pt('m', [], [dbl('f,1=2 3', 1)])])
    // String field values: double quote and backslash
    check('m s="say \\"hi\\""', [pt('m', [], [str('s', 'say "hi"')])])
    check('m s="back\\\\slash"', [pt('m', [], [str('s', 'back\\slash')])])
    check('m s="ends with \\\\"', [pt('m', [], [str('s', 'ends with \\')])])
    // A backslash before any other character is literal (names and string values)
    check('m,p=C:\\temp f="C:\\temp"', [pt('m', [['p', 'C:\\temp']], [str('f', 'C:\\temp')])])
    check('c:\\x f=1', [pt('c:\\x', [], [dbl('f', 1)])])
    // Escaped backslash in names, also right before a delimiter
    check('m\\\\,t=a\\\\ f=1', [pt('m\\', [['t', 'a\\']], [dbl('f', 1)])])
    // Delimiters inside quoted strings need no escape
    check('m s="a,b c=d",g=2', [pt('m', [], [str('s', 'a,b c=d'), dbl('g', 2)])])
    // Empty string value
    check('m s=""', [pt('m', [], [str('s', '')])])
    // Unquoted values keep backslashes literally
    check('m,t=x f="a" 1', [pt('m', [['t', 'x']], [str('f', 'a')], 1n)])
  })

  it('types field values by suffix', () => {
    // DOUBLE: no suffix or f64, decimal forms
    check('m a=1,b=-1.5,c=1.,d=.5,e=1e3,f=-2.5E-3,g=+2,h=1f64,i=7F64,j=0', [
      pt('m', [], [
        dbl('a', 1),
        dbl('b', -1.5),
        dbl('c', 1),
        dbl('d', 0.5),
        dbl('e', 1000),
        dbl('f', -0.0025),
        dbl('g', 2),
        dbl('h', 1),
        dbl('i', 7),
        dbl('j', 0),
      ]),
    ])
    // The fast decimal path agrees with Number() on tricky roundings
    check('m a=0.1,b=123456789012345,c=0.000000000000001,d=9007199254740993', [
      pt('m', [], [dbl('a', 0.1), dbl('b', 123456789012345), dbl('c', 1e-15), dbl('d', Number('9007199254740993'))]),
    ])
    // FLOAT
    check('m a=1.5f32,b=-3.4e38F32', [
      pt('m', [], [
        { name: 'a', type: 'FLOAT', value: 1.5 },
        { name: 'b', type: 'FLOAT', value: -3.4e38 },
      ]),
    ])
    // Narrow integers with inclusive bounds
    check('m a=-128i8,b=127i8,c=-32768i16,d=32767I16,e=-2147483648i32,f=2147483647i32', [
      pt('m', [], [
        { name: 'a', type: 'TINYINT', value: -128 },
        { name: 'b', type: 'TINYINT', value: 127 },
        { name: 'c', type: 'SMALLINT', value: -32768 },
        { name: 'd', type: 'SMALLINT', value: 32767 },
        { name: 'e', type: 'INT', value: -2147483648 },
        { name: 'f', type: 'INT', value: 2147483647 },
      ]),
    ])
    check('m a=0u8,b=255u8,c=65535U16,d=4294967295u32,e=-0i8', [
      pt('m', [], [
        { name: 'a', type: 'TINYINT UNSIGNED', value: 0 },
        { name: 'b', type: 'TINYINT UNSIGNED', value: 255 },
        { name: 'c', type: 'SMALLINT UNSIGNED', value: 65535 },
        { name: 'd', type: 'INT UNSIGNED', value: 4294967295 },
        { name: 'e', type: 'TINYINT', value: 0 },
      ]),
    ])
    // BIGINT (i, i64) and BIGINT UNSIGNED (u, u64) as exact bigints, bounds included
    check('m a=1i,b=-9223372036854775808i,c=9223372036854775807I64,d=1024i,e=123456789012345i', [
      pt('m', [], [
        big('a', 1n),
        big('b', -9223372036854775808n),
        big('c', 9223372036854775807n),
        big('d', 1024n),
        big('e', 123456789012345n),
      ]),
    ])
    check('m a=0u,b=18446744073709551615u64,c=7U', [
      pt('m', [], [
        { name: 'a', type: 'BIGINT UNSIGNED', value: 0n },
        { name: 'b', type: 'BIGINT UNSIGNED', value: 18446744073709551615n },
        { name: 'c', type: 'BIGINT UNSIGNED', value: 7n },
      ]),
    ])
    // BOOL: the nine accepted spellings
    check('m a=t,b=T,c=true,d=True,e=TRUE,f=f,g=F,h=false,i=False,j=FALSE', [
      pt('m', [], [
        bool('a', true),
        bool('b', true),
        bool('c', true),
        bool('d', true),
        bool('e', true),
        bool('f', false),
        bool('g', false),
        bool('h', false),
        bool('i', false),
        bool('j', false),
      ]),
    ])
    // VARCHAR and NCHAR
    check('m a="x",b=L"y",c=L""', [
      pt('m', [], [str('a', 'x'), { name: 'b', type: 'NCHAR', value: 'y' }, { name: 'c', type: 'NCHAR', value: '' }]),
    ])
  })
})

describe('LineProtoParser.parse: failures', () => {
  it('rejects malformed lines with a reason', () => {
    // Missing parts
    fail('m', 'missing fields')
    fail('m,t=1', 'missing fields')
    fail('m,t=1 ', 'missing fields')
    fail(',t=1 f=1', 'missing measurement')
    fail(' f=1', 'missing fields') // leading space is trimmed: measurement "f=1", no fields
    // Tags
    fail('m,=1 f=1', 'missing tag key')
    fail('m, f=1', 'missing tag key')
    fail('m,t f=1', 'missing tag value for "t"')
    fail('m,t= f=1', 'missing tag value for "t"')
    fail('m,t=a=b f=1', 'unescaped "=" in tag value for "t"')
    fail('m,t=1,t=2 f=1', 'duplicate tag "t"')
    // Field keys
    fail('m f', 'missing field value for "f"')
    fail('m f=', 'missing field value for "f"')
    fail('m f= 1', 'missing field value for "f"')
    fail('m =1', 'missing field key')
    fail('m f=1,', 'missing field key')
    fail('m f=1,f=2', 'duplicate field "f"')
    fail('m f=1,f="x"', 'duplicate field "f"')
    fail('m f=,g=1', 'missing field value for "f"')
    // A lone backslash at the end of a line is literal: still no fields
    fail('m,t=a\\', 'missing fields')
    // Numbers
    fail('m f=abc', 'cannot parse field value for "f": invalid value "abc"')
    fail('m f=1.2.3', 'cannot parse field value for "f": invalid value "1.2.3"')
    fail('m f=-', 'invalid value "-"')
    fail('m f=.', 'invalid value "."')
    fail('m f=1e', 'invalid value "1e"')
    fail('m f=0x10', 'unknown type suffix "x10"')
    fail('m f=Infinity', 'invalid value "Infinity"')
    fail('m f=NaN', 'invalid value "NaN"')
    fail('m f=1x', 'unknown type suffix "x"')
    fail('m f=1i7', 'unknown type suffix "i7"')
    fail('m f=1f16', 'unknown type suffix "f16"')
    fail('m f=1f', 'unknown type suffix "f"')
    fail('m f=1i644', 'unknown type suffix "i644"')
    fail('m f=1.5i', 'not an integer: "1.5i"')
    fail('m f=1e3i32', 'not an integer')
    // Booleans
    fail('m f=tru', 'invalid value "tru"')
    fail('m f=tRUE', 'invalid value "tRUE"')
    fail('m f=yes', 'invalid value "yes"')
    // Integer ranges, with TDengine's messages
    fail('m f=128i8', 'tinyint out of range[-128,127]:128')
    fail('m f=-129i8', 'tinyint out of range[-128,127]:-129')
    fail('m f=32768i16', 'smallint out of range[-32768,32767]:32768')
    fail('m f=2147483648i32', 'int out of range[-2147483648,2147483647]:2147483648')
    fail('m f=99999999999999999999i32', 'int out of range[-2147483648,2147483647]:99999999999999999999')
    fail('m f=256u8', 'tinyint unsigned out of range[0,255]:256')
    fail('m f=-1u8', 'tinyint unsigned out of range[0,255]:-1')
    fail('m f=65536u16', 'smallint unsigned out of range[0,65535]:65536')
    fail('m f=4294967296u32', 'int unsigned out of range[0,4294967295]:4294967296')
    fail('m f=9223372036854775808i', 'bigint out of range[-9223372036854775808,9223372036854775807]:9223372036854775808')
    fail('m f=-9223372036854775809i64', 'bigint out of range')
    fail('m f=-1u', 'bigint unsigned out of range[0,18446744073709551615]:-1')
    fail('m f=18446744073709551616u', 'bigint unsigned out of range[0,18446744073709551615]:18446744073709551616')
    fail('m f=1e39f32', 'float out of range[-3.402823466e+38,3.402823466e+38]:1e39')
    fail('m f=1e400', 'double out of range:1e400')
    // Strings
    fail('m f="abc', 'missing closing quote')
    fail('m f="abc\\"', 'missing closing quote')
    fail('m f="a"b', 'unexpected "b" after the closing quote')
    fail('m f=L"a', 'missing closing quote')
    fail('m f=G"POINT(1 2)"', 'GEOMETRY values (G"...") are not supported')
    fail('m f=B"\\x98"', 'VARBINARY values (B"...") are not supported')
    // Timestamps
    fail('m f=1 12a', 'invalid timestamp "12a"')
    fail('m f=1 1 2', 'invalid timestamp "1 2"')
    fail('m f=1 -', 'invalid timestamp "-"')
    fail('m f=1 1.5', 'invalid timestamp "1.5"')
    fail('m f=1 9223372036854775808', 'timestamp out of range: 9223372036854775808')
  })

  it('finds duplicates in lines that follow lines with the same names (name caches)', () => {
    const lines = (body: string): number[] => run(body).errors.map((e) => e.line)
    expect(lines('m,a=1,b=2 f=1\nm,a=1,a=2 f=1\nm,a=1,b=2 f=1')).toEqual([2])
    expect(lines('m,a=1,a=2 f=1\nm,a=1,a=2 f=1')).toEqual([1, 2])
    expect(lines('m,a=1,b=2,c=3 f=1\nm,a=1,b=2,b=3 f=1\nm,a=1,b=2,c=3 f=1')).toEqual([2])
    expect(lines('m f=1,g=2\nm f=1,f=2\nm f=1,g=2')).toEqual([2])
    expect(lines('m f=1,f=2\nm f=1,f=2')).toEqual([1, 2])
    // Different raw text, same unescaped name
    expect(lines('m,a\\\\x=1,b=2 f=1\nm,a\\x=1,a\\\\x=2 f=1')).toEqual([2])
    expect(run('m,a\\\\x=1,a\\x=2 f=1').errors[0].message).toContain('duplicate tag "a\\\\x"')
  })

  it('formats the error with format, line, reason and a quote of the line', () => {
    const r = run('cpu,host=a usage=1\ncpu,host=a usage=1.2.3 17\n')
    expect(r.errors.length).toBe(1)
    const e = r.errors[0]
    expect(e.message).toBe(
      'lineproto line 2: cannot parse field value for "usage": invalid value "1.2.3" in "cpu,host=a usage=1.2.3 17"',
    )
    expect(e.line).toBe(2)
    expect(e.field).toBe('usage')
    expect(e.quote).toBe('cpu,host=a usage=1.2.3 17')
    expect(e.hint).toBeUndefined()
  })

  it('hints at a raw newline inside a quoted string', () => {
    const r = run('m s="first\nsecond" 5\n')
    expect(r.errors.map((e) => e.line)).toEqual([1, 2])
    expect(r.errors[0].hint).toContain('raw newline')
    expect(r.errors[0].message).toContain('(hint: a quoted string field value cannot span lines')
    // The last line of a body gets no newline hint: nothing follows it.
    expect(run('m s="open').errors[0].hint).toBeUndefined()
  })

  it('truncates long quotes to 256 UTF-8 bytes without splitting characters', () => {
    const long = 'm,t=' + 'é'.repeat(400) + ' f=x'
    const e = run(long).errors[0]
    expect(Buffer.byteLength(e.quote)).toBeLessThanOrEqual(MAX_QUOTE_BYTES)
    expect(e.quote.endsWith('…')).toBe(true)
    expect(e.quote.startsWith('m,t=éé')).toBe(true)
    expect(e.quote).not.toContain('\uFFFD')
  })
})

describe('LineProtoParser.parse: mixed bodies', () => {
  it('reports bad lines and keeps parsing, with 1-based physical line numbers', () => {
    const body = [
      '# header', // 1
      'm f=1 1', // 2
      'bad', // 3
      '', // 4
      'm f=2 2', // 5
      'm f=x 3', // 6
      'm,t=1 f=3i 4', // 7
    ].join('\r\n')
    const r = run(body)
    expect(r.stats).toEqual({ lines: 7, points: 3, errors: 2 })
    expect(r.points.map((p) => p.line)).toEqual([2, 5, 7])
    expect(r.errors.map((e) => e.line)).toEqual([3, 6])
    expect(r.points[2].point).toEqual(pt('m', [['t', '1']], [big('f', 3n)], 4n))
  })

  it('reuses one point object between lines (callers must copy)', () => {
    const seen: Point[] = []
    const copies: Point[] = []
    new LineProtoParser().parse(
      'a,t=1 f=1\nb,t=2 f=2',
      (p) => {
        seen.push(p)
        copies.push(clonePoint(p))
      },
      (e) => {
        throw e
      },
    )
    expect(seen[0]).toBe(seen[1])
    expect(copies.map((p) => p.measurement)).toEqual(['a', 'b'])
    expect(copies[0].tags).toEqual([['t', '1']])
  })

  it('gives the same result on a fresh parser and on one reused across bodies', () => {
    const bodies = ['m,a=1,b=2 x=1,y="s" 5', 'm,a=1 x=2', 'n,b=\\ x x\\ y=3i', 'm,a=1,b=2 x=1,y="s" 5']
    const fresh = bodies.map((b) => {
      const out: Point[] = []
      new LineProtoParser().parse(b, (p) => out.push(clonePoint(p)), () => {})
      return out
    })
    const reused = bodies.map((b) => run(b).points.map((x) => x.point))
    expect(reused).toEqual(fresh)
  })

  it('lets an exception thrown by a callback propagate', () => {
    expect(() =>
      new LineProtoParser().parse(
        'm f=1',
        () => {
          throw new RangeError('sink full')
        },
        () => {},
      ),
    ).toThrow('sink full')
  })
})

describe('LineProtoParser.seriesKey', () => {
  it('is seriesKeyOf the point\'s tags, for every line of every body, escapes and repeats included', () => {
    const parser = new LineProtoParser()
    const bodies = [
      'm,a=1,b=2 v=1 1\nm,a=1,b=2 v=2 2\nm,b=2,a=1 v=3 3\nm v=4 4\nm,a=x\\,y v=5 5',
      // the same series texts again (served from the cache), and new ones with escaped spaces and equals signs
      'm,a=1,b=2 v=6 6\nm,a=x\\,y v=7 7\nm,a\\ b=c\\=d v=8 8\nn,a=1,b=2 v=9 9',
    ]
    const seen: Array<[string, string]> = []
    for (const body of bodies) {
      parser.parse(body, (p) => {
        seen.push([parser.seriesKey(), seriesKeyOf(p.tags)])
      }, (e) => {
        throw e
      })
    }
    expect(seen).toHaveLength(9)
    for (const [got, want] of seen) {
      expect(got).toBe(want)
    }
    // the key depends on the tags as sent, not on the measurement: m and n with a=1,b=2 share one
    expect(seen[0][0]).toBe(seen[8][0])
    expect(seen[0][0]).not.toBe(seen[2][0])
  })
})

describe('LineProtoParser: series already parsed', () => {
  /** points and errors of `bodies` parsed one after another by one parser, with each point's seriesText and seriesKey */
  function parseAll(parser: LineProtoParser, bodies: string[], lineOffset = 0): unknown[] {
    const out: unknown[] = []
    for (const body of bodies) {
      parser.parse(
        body,
        (p, line) => out.push({ line, point: clonePoint(p), text: parser.seriesText(), key: parser.seriesKey() }),
        (e) => out.push({ line: e.line, error: e.message }),
        lineOffset,
      )
    }
    return out
  }

  it('gives every line what a fresh parser gives it: repeats, collisions, failures after a known series', () => {
    const bodies = [
      'cpu,host=h1,region=r1 v=1 1\ncpu,host=h2,region=r2 v=2 2\ncpu,host=h1,region=r1 v=3 3',
      // "Aa" and "BB" have the same hash: each must keep its own measurement
      'Aa v=1 1\nBB v=2 2\nAa v=3 3\nBB,t=1 v=4 4',
      // a known series with a bad field set, then with none, then fine again
      'cpu,host=h1,region=r1 v=oops 4\ncpu,host=h1,region=r1\ncpu,host=h1,region=r1  v=5   5\r',
      // a series that failed is not known: the same text fails again
      'cpu,host v=1 1\ncpu,host v=1 1\ncpu,host=,x=1 v=1\ncpu,a=1,a=2 v=1\ncpu,a=1,a=2 v=1',
      // a body with escapes takes the full path; the same texts afterwards still parse alike
      'cpu,host=h\\ 1 v=1 1\ncpu,host=h1,region=r1 v=6 6',
      'cpu,host=h1,region=r1 v=7 7\nm\\,x,a=b v=1 1',
    ]
    const reused = parseAll(new LineProtoParser(), bodies)
    const fresh = bodies.flatMap((b) => parseAll(new LineProtoParser(), [b]))
    expect(reused).toEqual(fresh)
    // and line by line, each with a parser that has never seen the series
    const oneByOne = bodies.flatMap((b) => {
      const lines = b.split('\n')
      return lines.flatMap((l, i) => parseAll(new LineProtoParser(), [l], i))
    })
    expect(reused).toEqual(oneByOne)
    expect(reused.filter((x) => 'error' in (x as object))).toHaveLength(7)
  })
})
