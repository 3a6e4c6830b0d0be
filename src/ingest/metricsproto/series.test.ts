import { describe, expect, it } from 'vitest'
import { MatchType, RemoteDecodeError } from './proto.js'
import { compileMatchers, labelsObject, seriesKey, seriesTableName, sortLabels } from './series.js'

describe('series naming', () => {
  it('sorts labels by name, keys them as name=value pairs and names the child t_ + md5', () => {
    const sorted = sortLabels([
      { name: 'job', value: 'node' },
      { name: '__name__', value: 'up' },
      { name: 'instance', value: 'a:9100' },
    ])
    expect(sorted.map((l) => l.name)).toEqual(['__name__', 'instance', 'job'])
    const key = seriesKey(sorted)
    expect(key).toBe('__name__=up,instance=a:9100,job=node')
    // `printf '%s' '__name__=up,instance=a:9100,job=node' | md5sum`
    expect(seriesTableName(key)).toBe('t_ad4d107211f50064ba493131d45d18e3')
    expect(JSON.stringify(labelsObject(sorted))).toBe('{"__name__":"up","instance":"a:9100","job":"node"}')
  })

  it('sorts by bytes, not case-insensitively (Z before a)', () => {
    expect(sortLabels([{ name: 'a', value: '' }, { name: 'Z', value: '' }]).map((l) => l.name)).toEqual(['Z', 'a'])
  })
})

describe('compileMatchers (Prometheus semantics)', () => {
  const series = { __name__: 'http_requests_total', method: 'GET', code: '200' }
  const m = (type: MatchType, name: string, value: string) => compileMatchers([{ type, name, value }])

  it('EQ and NEQ compare the value; a missing label is the empty string', () => {
    expect(m(MatchType.EQ, 'method', 'GET')(series)).toBe(true)
    expect(m(MatchType.EQ, 'method', 'POST')(series)).toBe(false)
    expect(m(MatchType.NEQ, 'method', 'POST')(series)).toBe(true)
    expect(m(MatchType.EQ, 'handler', '')(series)).toBe(true)
    expect(m(MatchType.NEQ, 'handler', '')(series)).toBe(false)
    expect(m(MatchType.NEQ, 'method', '')(series)).toBe(true)
  })

  it('RE and NRE are anchored at both ends', () => {
    expect(m(MatchType.RE, 'code', '2..')(series)).toBe(true)
    expect(m(MatchType.RE, 'code', '2')(series)).toBe(false)
    expect(m(MatchType.RE, 'code', '0')(series)).toBe(false)
    expect(m(MatchType.RE, 'method', 'GET|POST')(series)).toBe(true)
    expect(m(MatchType.RE, 'handler', '')(series)).toBe(true)
    expect(m(MatchType.RE, 'handler', '.+')(series)).toBe(false)
    expect(m(MatchType.NRE, 'code', '5..')(series)).toBe(true)
    expect(m(MatchType.NRE, 'code', '2.*')(series)).toBe(false)
    expect(m(MatchType.NRE, 'method', 'G')(series)).toBe(true)
  })

  it('all matchers must hold; no matchers select everything', () => {
    const both = compileMatchers([
      { type: MatchType.EQ, name: '__name__', value: 'http_requests_total' },
      { type: MatchType.RE, name: 'code', value: '5..' },
    ])
    expect(both(series)).toBe(false)
    expect(compileMatchers([])(series)).toBe(true)
  })

  it('an invalid regular expression is the client error, naming the matcher', () => {
    expect(() => m(MatchType.RE, 'code', '(')).toThrow(RemoteDecodeError)
    expect(() => m(MatchType.NRE, 'code', '[')).toThrow(/code!~"\["/)
  })

  it('regexes are RE2: a leading (?i) as Grafana sends it', () => {
    expect(m(MatchType.RE, '__name__', '(?i)HTTP_requests_.*')(series)).toBe(true)
    expect(m(MatchType.RE, 'method', '(?i)get|put')(series)).toBe(true)
    expect(m(MatchType.RE, 'method', '(?i)ge')(series)).toBe(false)
    expect(m(MatchType.NRE, 'method', '(?i)get')(series)).toBe(false)
    expect(m(MatchType.RE, 'method', 'GET')({ method: 'get' })).toBe(false)
  })

  it('(?i:...) groups make only their part case-insensitive', () => {
    expect(m(MatchType.RE, '__name__', 'http_(?i:REQUESTS)_total')(series)).toBe(true)
    expect(m(MatchType.RE, '__name__', 'HTTP_(?i:requests)_total')(series)).toBe(false)
    expect(m(MatchType.RE, 'method', '(?i:g)ET')(series)).toBe(true)
    expect(m(MatchType.RE, 'method', '(?i:g)et')(series)).toBe(false)
  })

  it('\\z, \\A and $ end and start the text (no newline before the end)', () => {
    expect(m(MatchType.RE, 'code', '200\\z')(series)).toBe(true)
    expect(m(MatchType.RE, 'code', '\\A2.*')(series)).toBe(true)
    expect(m(MatchType.RE, 'code', '200\\z')({ code: '200\n' })).toBe(false)
    expect(m(MatchType.RE, 'code', '200$')({ code: '200\n' })).toBe(false)
  })

  it('POSIX classes inside brackets', () => {
    expect(m(MatchType.RE, 'code', '[[:digit:]]+')(series)).toBe(true)
    expect(m(MatchType.RE, 'method', '[[:alpha:]]+')(series)).toBe(true)
    expect(m(MatchType.RE, 'method', '[[:lower:]]+')(series)).toBe(false)
    expect(m(MatchType.RE, 'method', '[[:upper:][:digit:]]{3}')(series)).toBe(true)
    expect(m(MatchType.RE, 'code', '[[:^digit:]]+')(series)).toBe(false)
    expect(m(MatchType.RE, 'instance', '[[:alnum:].-]+:[[:digit:]]+')({ instance: 'node-1.example:9100' })).toBe(true)
    expect(m(MatchType.RE, 'x', '[[:space:]]')({ x: '\u00a0' })).toBe(false)
  })

  it('RE2 escapes that JS would refuse (\\-, \\:, \\Q..\\E, \\x{..}) and . that stops only at \\n', () => {
    expect(m(MatchType.RE, 'instance', 'a\\-b\\:9100')({ instance: 'a-b:9100' })).toBe(true)
    expect(m(MatchType.RE, 'path', '\\Q/api/v1/*\\E')({ path: '/api/v1/*' })).toBe(true)
    expect(m(MatchType.RE, 'path', '\\Q/api/v1/*\\E')({ path: '/api/v1/x' })).toBe(false)
    expect(m(MatchType.RE, 'x', '\\x{41}')({ x: 'A' })).toBe(true)
    expect(m(MatchType.RE, 'x', 'a.b')({ x: 'a\rb' })).toBe(true)
    expect(m(MatchType.RE, 'x', 'a.b')({ x: 'a\nb' })).toBe(false)
  })

  it('what RE2 does not support is a clear client error naming the matcher', () => {
    const unsupported: [string, RegExp][] = [
      ['(?=x)', /matcher code=~"\(\?=x\)": invalid regular expression \(RE2 syntax\): .*invalid or unsupported Perl syntax: `\(\?=`/],
      ['(a)\\1', /matcher code=~"\(a\)\\\\1": .*invalid escape sequence: `\\1`/],
      ['[[:alfa:]]', /matcher code=~"\[\[:alfa:\]\]": .*\[:alfa:\]/],
      ['\\p{Klingon}', /\\p\{Klingon\}/],
      ['a{2000}', /invalid repeat count/],
    ]
    for (const [re, message] of unsupported) {
      expect(() => m(MatchType.RE, 'code', re)).toThrow(RemoteDecodeError)
      expect(() => m(MatchType.RE, 'code', re)).toThrow(message)
    }
    expect(() => m(MatchType.NRE, 'job', '(?<!x)y')).toThrow(/matcher job!~"\(\?<!x\)y"/)
  })
})
