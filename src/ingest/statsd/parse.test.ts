import { describe, expect, it } from 'vitest'
import type { IngestParseError } from '../errors.js'
import { MAX_TAGS } from '../limits.js'
import { parseDecimal, parseStatsdLine, parseStatsdText, type StatsdSample } from './parse.js'

/** the reason a line is refused with ('' when it is read) */
function refusal(line: string): string {
  const { errors } = parseAll(line)
  return errors[0]?.reason ?? ''
}

function parseAll(text: string): { samples: StatsdSample[]; errors: IngestParseError[] } {
  const samples: StatsdSample[] = []
  const errors: IngestParseError[] = []
  parseStatsdText(text, (s) => samples.push(s), (e) => errors.push(e))
  return { samples, errors }
}

describe('StatsD line parser', () => {
  it('reads each type with its value', () => {
    const { samples, errors } = parseAll('a.b:3|c\ng:1.5|g\nu:alice|s\nt:320|ms\nh:7.25|h\nd:1|d\n')
    expect(errors).toEqual([])
    expect(samples.map((s) => [s.name, s.type, s.value, s.member])).toEqual([
      ['a_b', 'c', 3, ''],
      ['g', 'g', 1.5, ''],
      ['u', 's', 0, 'alice'],
      ['t', 'ms', 320, ''],
      ['h', 'h', 7.25, ''],
      ['d', 'd', 1, ''],
    ])
  })

  it('takes several values of one bucket on a line', () => {
    const s = parseStatsdLine('req.time:10|ms:20|ms|@0.5:3|c')
    expect(s.map((x) => [x.name, x.type, x.value, x.rate])).toEqual([
      ['req_time', 'ms', 10, 1],
      ['req_time', 'ms', 20, 0.5],
      ['req_time', 'c', 3, 1],
    ])
  })

  it('divides counters by the sample rate and truncates, as the original', () => {
    expect(parseStatsdLine('c:1|c|@0.1')[0].value).toBe(10)
    expect(parseStatsdLine('c:1|c|@0.3')[0].value).toBe(3)
    expect(parseStatsdLine('c:2.9|c')[0].value).toBe(2)
    expect(parseStatsdLine('c:-4|c')[0].value).toBe(-4)
    expect(parseStatsdLine('c:+4|c')[0].value).toBe(4)
  })

  it('keeps counters beyond 2^53 exact and refuses ones beyond int64', () => {
    expect(parseStatsdLine('c:9007199254740993|c')[0].big).toBe(9007199254740993n)
    expect(refusal('c:9223372036854775808|c')).toMatch(/64-bit/)
  })

  it('marks +/- gauges as deltas and refuses signs on other types', () => {
    expect(parseStatsdLine('g:+2|g')[0]).toMatchObject({ additive: true, value: 2 })
    expect(parseStatsdLine('g:-2|g')[0]).toMatchObject({ additive: true, value: -2 })
    expect(parseStatsdLine('g:2|g')[0]).toMatchObject({ additive: false, value: 2 })
    expect(refusal('t:-2|ms')).toMatch(/only allowed for gauges and counters/)
  })

  it('splits inline tags off the bucket, sorted, last duplicate winning, odd parts ignored as the original', () => {
    const [s] = parseStatsdLine('page.views,zone=b,host=a,host=c,bare,x=,=y,a=b=c,metric_type=z:1|c')
    expect(s.name).toBe('page_views')
    expect(s.tags).toEqual([
      ['host', 'c'],
      ['zone', 'b'],
    ])
  })

  it('ignores DataDog segments after the type (extensions are off in the original)', () => {
    expect(parseStatsdLine('a:1|c|#env')[0]).toMatchObject({ value: 1, rate: 1 })
    expect(parseStatsdLine('a:1|c|@0.5|#env')[0]).toMatchObject({ value: 2, rate: 0.5 })
  })

  it('names the line and the reason of each refused line and keeps the good ones', () => {
    const { samples, errors } = parseAll(
      ['ok:1|c', 'nocolon', 'x:1', 'x:1|q', 'x:abc|g', 'x:1|c|@0', 'x:1|c|@2', 'x:1|c|@zz', ':1|c', 'x:NaN|g', 'x:1|c:2', '  ok2:2|c  '].join('\n'),
    )
    expect(samples.map((s) => s.name)).toEqual(['ok', 'ok2'])
    expect(errors.map((e) => [e.line, e.message])).toEqual([
      [2, 'statsd line 2: no ":" after the bucket name (expected bucket:value|type) in "nocolon"'],
      [3, 'statsd line 3: no "|type" after the value "1" in "x:1"'],
      [4, 'statsd line 4: unknown metric type "q" (expected c, g, s, ms, h or d) in "x:1|q"'],
      [5, 'statsd line 5: value "abc" is not a finite number in "x:abc|g"'],
      [6, 'statsd line 6: sample rate "@0" is not a number in (0, 1] in "x:1|c|@0"'],
      [7, 'statsd line 7: sample rate "@2" is not a number in (0, 1] in "x:1|c|@2"'],
      [8, 'statsd line 8: sample rate "@zz" is not a number in (0, 1] in "x:1|c|@zz"'],
      [9, 'statsd line 9: empty bucket name in ":1|c"'],
      [10, 'statsd line 10: value "NaN" is not a finite number in "x:NaN|g"'],
      [11, 'statsd line 11: no "|type" after the value "2" in "x:1|c:2"'],
    ])
  })

  it('refuses a whole line when one of its values is bad', () => {
    const { samples, errors } = parseAll('a:1|c:x|c:3|c')
    expect(samples).toEqual([])
    expect(errors).toHaveLength(1)
  })

  it('skips empty and blank lines, CRLF included', () => {
    const { samples, errors } = parseAll('\r\n  \na:1|c\r\n\r\nb:2|c')
    expect(errors).toEqual([])
    expect(samples.map((s) => s.name)).toEqual(['a', 'b'])
  })

  it(`refuses more than ${MAX_TAGS - 1} tags before reading the rest of the bucket`, () => {
    const ok = Array.from({ length: MAX_TAGS - 1 }, (_, i) => `k${i}=v`).join(',')
    expect(parseStatsdLine(`m,${ok}:1|c`)[0].tags).toHaveLength(MAX_TAGS - 1)
    expect(refusal(`m,${ok},one=more:1|c`)).toMatch(/more than 128 tags/)
  })

  it('reads a very wide line in linear time', () => {
    // 100,000 tags and a 1 MB digit run: each refused quickly (a quadratic scan would take seconds)
    const tags = Array.from({ length: 100_000 }, (_, i) => `k${i}=v`).join(',')
    const digits = '1'.repeat(1_000_000) + 'x'
    const t0 = performance.now()
    const { errors } = parseAll(`m,${tags}:1|c\nm:${digits}|g\nm:${'1|c:'.repeat(100_000)}1|c`)
    expect(errors.map((e) => e.line)).toEqual([1, 2])
    expect(performance.now() - t0).toBeLessThan(2000)
  })
})

describe('parseDecimal', () => {
  it.each([
    ['1', 1],
    ['-1.5', -1.5],
    ['+.5', 0.5],
    ['5.', 5],
    ['1e3', 1000],
    ['1E-2', 0.01],
  ])('%s -> %d', (s, v) => {
    expect(parseDecimal(s)).toBe(v)
  })

  it.each(['', '-', '.', 'e3', '1e', '0x10', ' 1', '1 ', 'Infinity', '1e999', '1_000'])('%j is not a number', (s) => {
    expect(parseDecimal(s)).toBeUndefined()
  })
})
