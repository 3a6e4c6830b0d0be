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
})
