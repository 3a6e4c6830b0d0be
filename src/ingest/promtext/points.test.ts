import { describe, expect, it } from 'vitest'
import { goFloatText, scrapeToPoints, scrapeToPointsAsync } from './points.js'

const URL_TAG = 'http://localhost:9100'
const NOW = 1_700_000_000_000_000_000n

function points(text: string, format: 'text' | 'openmetrics' = 'text') {
  const m = scrapeToPoints(text, format, URL_TAG, NOW)
  return { ...m, rows: m.points.map((p) => ({ m: p.measurement, tags: Object.fromEntries(p.tags), fields: Object.fromEntries(p.fields.map((f) => [f.name, f.value])), ts: p.ts })) }
}

describe('scraped samples as points', () => {
  it('counter, gauge and untyped: one point each, field named by the type, url tag, sample or scrape time', () => {
    const { rows } = points(
      [
        '# TYPE node_cpu_seconds_total counter',
        'node_cpu_seconds_total{cpu="0",mode="idle"} 1234.5',
        '# TYPE node_load1 gauge',
        'node_load1 0.25 1700000001000',
        'untyped_thing{a=""} 7',
      ].join('\n'),
    )
    expect(rows).toEqual([
      { m: 'node_cpu_seconds_total', tags: { cpu: '0', mode: 'idle', url: URL_TAG }, fields: { counter: 1234.5 }, ts: NOW },
      { m: 'node_load1', tags: { url: URL_TAG }, fields: { gauge: 0.25 }, ts: 1_700_000_001_000_000_000n },
      // an empty label is an absent one
      { m: 'untyped_thing', tags: { url: URL_TAG }, fields: { value: 7 }, ts: NOW },
    ])
  })

  it('summary: one point per label set, a field per quantile named as Go prints it, count and sum', () => {
    const { rows } = points(
      [
        '# TYPE go_gc_duration_seconds summary',
        'go_gc_duration_seconds{quantile="0"} 1e-05',
        'go_gc_duration_seconds{quantile="0.25"} 2e-05',
        'go_gc_duration_seconds{quantile="1"} 0.001',
        'go_gc_duration_seconds_sum 0.5',
        'go_gc_duration_seconds_count 40',
        '# TYPE rpc summary',
        'rpc{svc="a",quantile="0.99"} 3',
        'rpc{quantile="0.99",svc="b"} NaN',
        'rpc_count{svc="b"} 0',
        'rpc_sum{svc="b"} 0',
        'rpc_count{svc="a"} 5',
      ].join('\n'),
    )
    expect(rows).toEqual([
      { m: 'go_gc_duration_seconds', tags: { url: URL_TAG }, fields: { '0': 1e-5, '0.25': 2e-5, '1': 0.001, sum: 0.5, count: 40 }, ts: NOW },
      { m: 'rpc', tags: { svc: 'a', url: URL_TAG }, fields: { '0.99': 3, count: 5 }, ts: NOW },
      // NaN quantiles (no observations) are left out
      { m: 'rpc', tags: { svc: 'b', url: URL_TAG }, fields: { count: 0, sum: 0 }, ts: NOW },
    ])
  })

  it('histogram: a field per bucket bound holding the cumulative count, count and sum; OpenMetrics the same', () => {
    const text = [
      '# TYPE req_seconds histogram',
      'req_seconds_bucket{path="/",le="0.005"} 1',
      'req_seconds_bucket{path="/",le="1e+06"} 2',
      'req_seconds_bucket{path="/",le="+Inf"} 3',
      'req_seconds_sum{path="/"} 4.5',
      'req_seconds_count{path="/"} 3',
    ]
    const expected = [{ m: 'req_seconds', tags: { path: '/', url: URL_TAG }, fields: { '0.005': 1, '1e+06': 2, '+Inf': 3, sum: 4.5, count: 3 }, ts: NOW }]
    expect(points(text.join('\n')).rows).toEqual(expected)
    // OpenMetrics writes bounds as floats (`1000000.0`); the field names are the same numbers
    const om = text.map((l) => l.replace('le="1e+06"', 'le="1000000.0"')).concat(['req_seconds_created{path="/"} 1700000000.0', '# EOF'])
    const r = points(om.join('\n'), 'openmetrics')
    expect(r.rows).toEqual(expected)
    expect(r.skipped).toBe(1)
  })

  it('an OpenMetrics counter is stored under its sample name, as the text format names it', () => {
    const { rows } = points('# TYPE process_cpu_seconds counter\nprocess_cpu_seconds_total 4.5\n# TYPE x info\nx_info{v="1"} 1\n# EOF\n', 'openmetrics')
    expect(rows.map((r) => [r.m, r.fields])).toEqual([
      ['process_cpu_seconds_total', { counter: 4.5 }],
      ['x_info', { gauge: 1 }],
    ])
  })

  it('a label named url steps aside as exported_url; NaN and Inf samples are left out', () => {
    const { rows, skipped } = points('probe{url="http://x"} 1\nbad NaN\nworse -Inf\n')
    expect(rows).toEqual([{ m: 'probe', tags: { exported_url: 'http://x', url: URL_TAG }, fields: { value: 1 }, ts: NOW }])
    expect(skipped).toBe(2)
  })

  it('rejects a bucket without le or with a bad one, naming the family', () => {
    const r = points('# TYPE h histogram\nh_bucket 1\nh_bucket{le="x"} 2\nh_count 2\n')
    expect(r.rejected).toEqual([
      { line: 2, message: 'histogram "h": sample "h_bucket" has no "le" label' },
      { line: 3, message: 'histogram "h": le="x" is not a number' },
    ])
    expect(r.rows).toEqual([{ m: 'h', tags: { url: URL_TAG }, fields: { count: 2 }, ts: NOW }])
  })
})

describe('scrapeToPointsAsync', () => {
  it('reads a large body in slices with the same result, families and groups spanning slices', async () => {
    const lines = ['# TYPE h histogram']
    for (let i = 0; i < 20_000; i++) {
      lines.push(`h_bucket{series="${i % 7}",le="${i}"} ${i}`, `g{i="${i}"} ${i}`)
    }
    lines.push('bad{ 1', 'h_count{series="0"} 3')
    const text = lines.join('\n')
    expect(text.length).toBeGreaterThan(3 * 256 * 1024)
    const sync = scrapeToPoints(text, 'text', URL_TAG, NOW)
    const sliced = await scrapeToPointsAsync(text, 'text', URL_TAG, NOW)
    expect(sliced).toEqual(sync)
    expect(sync.points.length).toBe(20_000 + 7)
    expect(sync.parse.errors).toEqual([{ line: 40_002, message: 'expected a label name at column 6' }])
  })
})

describe('goFloatText (Go fmt %v)', () => {
  it.each([
    [0, '0'],
    [1, '1'],
    [0.5, '0.5'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [100000, '100000'],
    [1000000, '1e+06'],
    [123456789, '1.23456789e+08'],
    [-2.5e-7, '-2.5e-07'],
    [1e100, '1e+100'],
    [Infinity, '+Inf'],
    [-Infinity, '-Inf'],
  ])('%s -> %s', (v, s) => {
    expect(goFloatText(v)).toBe(s)
  })
})
