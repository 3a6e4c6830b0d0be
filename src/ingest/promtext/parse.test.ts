import { describe, expect, it } from 'vitest'
import { parsePromText, type PromFormat, type PromSample } from './parse.js'

function parse(text: string, format: PromFormat = 'text') {
  const samples: Array<{ s: PromSample; line: number }> = []
  const r = parsePromText(text, format, (s, line) => samples.push({ s, line }))
  return { r, samples: samples.map(({ s, line }) => ({ line, family: s.family.name, type: s.family.type, name: s.name, suffix: s.suffix, labels: s.labels, value: s.value, ts: s.ts })) }
}

describe('Prometheus text format', () => {
  it('reads HELP, TYPE, labels, values and millisecond timestamps', () => {
    const { r, samples } = parse(
      [
        '# HELP http_requests_total The total number of HTTP requests.',
        '# TYPE http_requests_total counter',
        'http_requests_total{method="post",code="200"} 1027 1395066363000',
        'http_requests_total{method="post",code="400"}    3 1395066363000',
        '',
        '# A comment that is not HELP or TYPE',
        'metric_without_timestamp_and_labels 12.47',
        'something_weird{problem="division by zero"} +Inf -3982045',
        '  \t',
      ].join('\n'),
    )
    expect(r).toEqual({ lines: 9, samples: 4, errorCount: 0, errors: [], eof: true })
    expect(samples[0]).toEqual({
      line: 3,
      family: 'http_requests_total',
      type: 'counter',
      name: 'http_requests_total',
      suffix: '',
      labels: [
        ['method', 'post'],
        ['code', '200'],
      ],
      value: 1027,
      ts: 1395066363000_000_000n,
    })
    expect(samples[2]).toMatchObject({ family: 'metric_without_timestamp_and_labels', type: 'untyped', labels: [], value: 12.47, ts: null })
    expect(samples[3]).toMatchObject({ value: Infinity, ts: -3982045_000_000n })
  })

  it('unescapes label values and HELP text, and keeps any UTF-8', () => {
    const { r, samples } = parse(
      ['# HELP msdos_file_access_time_seconds Back\\\\slash and new\\nline', 'msdos_file_access_time_seconds{path="C:\\\\DIR\\\\FILE.TXT",error="Cannot find file:\\n\\"FILE.TXT\\"",city="Zürich 東京"} 1.458255915e9'].join(
        '\n',
      ),
    )
    expect(r.errorCount).toBe(0)
    expect(samples[0].labels).toEqual([
      ['path', 'C:\\DIR\\FILE.TXT'],
      ['error', 'Cannot find file:\n"FILE.TXT"'],
      ['city', 'Zürich 東京'],
    ])
    expect(samples[0].value).toBe(1458255915)
  })

  it('groups histogram and summary samples under their family by suffix', () => {
    const { r, samples } = parse(
      [
        '# TYPE rpc_duration_seconds summary',
        'rpc_duration_seconds{quantile="0.01"} 3102',
        'rpc_duration_seconds{quantile="0.5"} 4773',
        'rpc_duration_seconds_sum 1.7560473e+07',
        'rpc_duration_seconds_count 2693',
        '# TYPE http_request_duration_seconds histogram',
        'http_request_duration_seconds_bucket{le="0.05"} 24054',
        'http_request_duration_seconds_bucket{le="+Inf"} 144320',
        'http_request_duration_seconds_sum 53423',
        'http_request_duration_seconds_count 144320',
        // a gauge whose name only looks like a suffix of something
        'foo_count 3',
      ].join('\n'),
    )
    expect(r.errorCount).toBe(0)
    expect(samples.map((s) => `${s.family}/${s.type}/${s.suffix}`)).toEqual([
      'rpc_duration_seconds/summary/',
      'rpc_duration_seconds/summary/',
      'rpc_duration_seconds/summary/_sum',
      'rpc_duration_seconds/summary/_count',
      'http_request_duration_seconds/histogram/_bucket',
      'http_request_duration_seconds/histogram/_bucket',
      'http_request_duration_seconds/histogram/_sum',
      'http_request_duration_seconds/histogram/_count',
      'foo_count/untyped/',
    ])
  })

  it('rejects bad lines one by one, naming the line and the problem, and reads the rest', () => {
    const { r, samples } = parse(
      [
        'good 1',
        'bad{a="x} 1',
        'bad{a="x"} one',
        'bad{a="x",a="y"} 1',
        'bad{a="\\t"} 1',
        'bad 1 12.5',
        '# TYPE good gauge',
        '# TYPE other sometype',
        'bad{a="1"} 1 2 3',
        '{a="b"} 1',
        'also_good{a="b",} 2',
      ].join('\n'),
    )
    expect(samples.map((s) => s.name)).toEqual(['good', 'also_good'])
    expect(r.errorCount).toBe(9)
    expect(r.errors.map((e) => e.line)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10])
    expect(r.errors.map((e) => e.message)).toEqual([
      'a quoted string is not closed',
      'value "one" of "bad" is not a number',
      'label "a" appears twice',
      'invalid escape "\\t" in a quoted string',
      'timestamp "12.5" of "bad" is not an integer of milliseconds',
      'TYPE for "good" after its samples',
      'unknown type "sometype" for "other" (counter, gauge, histogram, summary, untyped)',
      'unexpected "3" after the value of "bad"',
      'expected a metric name at column 8',
    ])
  })

  it('refuses a sample with more labels than a super table has tags, without reading them all', () => {
    const labels = Array.from({ length: 100_000 }, (_, i) => `l${i}="v"`).join(',')
    const { r } = parse(`wide{${labels}} 1\nok 1`)
    expect(r.samples).toBe(1)
    expect(r.errors[0]).toEqual({ line: 1, message: 'more than 127 labels (a super table has at most 128 tags, url included)' })
  })

  it('reads the quoted metric names of the newer exposition formats', () => {
    const { r, samples } = parse('{"my.dotted.metric",a="b"} 3\n')
    expect(r.errorCount).toBe(0)
    expect(samples[0]).toMatchObject({ name: 'my.dotted.metric', labels: [['a', 'b']], value: 3 })
  })

  it('takes linear time in the size of a line', () => {
    const long = 'x'.repeat(5_000_000)
    const t0 = performance.now()
    const { r } = parse(`m{a="${long}"} 1\nm{a="${'\\\\'.repeat(1_000_000)}"} 1\n`)
    expect(r.samples).toBe(2)
    // generous: a quadratic scan of 5 MB takes minutes
    expect(performance.now() - t0).toBeLessThan(5_000)
  })
})

describe('OpenMetrics', () => {
  const om = [
    '# TYPE acme_http_router_request_seconds summary',
    '# UNIT acme_http_router_request_seconds seconds',
    '# HELP acme_http_router_request_seconds Latency though all of ACME\'s HTTP request router.',
    'acme_http_router_request_seconds_sum{path="/api/v1",method="GET"} 9036.32',
    'acme_http_router_request_seconds_count{path="/api/v1",method="GET"} 807283.0',
    'acme_http_router_request_seconds_created{path="/api/v1",method="GET"} 1605281325.0',
    '# TYPE go_goroutines gauge',
    'go_goroutines 69',
    '# TYPE process_cpu_seconds counter',
    '# UNIT process_cpu_seconds seconds',
    'process_cpu_seconds_total 4.20072246e+06 1520879607.789',
    '# TYPE foo histogram',
    'foo_bucket{le="0.1"} 8 # {id="abc"} 0.054 1520879607.7',
    'foo_bucket{le="+Inf"} 17',
    'foo_count 17',
    'foo_sum 324789.3',
    '# TYPE build info',
    'build_info{version="1.2"} 1',
    '# EOF',
  ]

  it('reads families with suffixes, seconds timestamps and exemplars, up to # EOF', () => {
    const { r, samples } = parse(om.join('\n') + '\n', 'openmetrics')
    expect(r.errors).toEqual([])
    expect(r.eof).toBe(true)
    expect(samples.map((s) => `${s.family}/${s.type}/${s.name}`)).toEqual([
      'acme_http_router_request_seconds/summary/acme_http_router_request_seconds_sum',
      'acme_http_router_request_seconds/summary/acme_http_router_request_seconds_count',
      'acme_http_router_request_seconds/summary/acme_http_router_request_seconds_created',
      'go_goroutines/gauge/go_goroutines',
      'process_cpu_seconds/counter/process_cpu_seconds_total',
      'foo/histogram/foo_bucket',
      'foo/histogram/foo_bucket',
      'foo/histogram/foo_count',
      'foo/histogram/foo_sum',
      'build/info/build_info',
    ])
    // seconds with a fraction, exactly in nanoseconds
    expect(samples[4].ts).toBe(1520879607_789_000_000n)
    expect(samples[5]).toMatchObject({ value: 8, ts: null })
  })

  it('says when # EOF is missing (a cut body) and refuses text after it', () => {
    expect(parse(om.slice(0, -1).join('\n'), 'openmetrics').r.eof).toBe(false)
    const after = parse([...om, 'late 1'].join('\n'), 'openmetrics')
    expect(after.r.eof).toBe(true)
    expect(after.r.errors).toEqual([{ line: om.length + 1, message: 'text after "# EOF"' }])
    expect(after.samples.map((s) => s.name)).not.toContain('late')
  })

  it('knows the OpenMetrics types and refuses the text format only ones', () => {
    const { r, samples } = parse('# TYPE a untyped\n# TYPE b stateset\nb{b="x"} 1\n# EOF\n', 'openmetrics')
    expect(r.errors.map((e) => e.message)).toEqual(['unknown type "untyped" for "a" (counter, gauge, histogram, gaugehistogram, summary, info, stateset, unknown)'])
    expect(samples[0]).toMatchObject({ type: 'stateset', value: 1 })
  })
})
