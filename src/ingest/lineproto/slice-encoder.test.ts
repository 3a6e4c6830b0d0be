/**
 * The worker's slice encoding must hand the schemaless core exactly what parsing on the main
 * thread hands it: the same points (measurement, tags, typed fields, timestamp, line number) and
 * the same rejections, in the same order, across slices, dictionary restarts and replays.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { clonePoint, seriesKeyOf, type Point } from '../point.js'
import type { ReceivedSlice, Rejection, SliceMessage } from '../types.js'
import { LineProtoParser } from './parse.js'
import { SliceDictionary, decodeSlice } from './slice-decoder.js'
import { SliceEncoder } from './slice-encoder.js'

type Seen = Array<{ point: Point; line: number } | { error: Rejection }>

function direct(slices: string[]): Seen {
  const parser = new LineProtoParser()
  const out: Seen = []
  let offset = 0
  for (const body of slices) {
    const stats = parser.parse(
      body,
      (p, line) => out.push({ point: clonePoint(p), line }),
      (e) => out.push({ error: { line: e.line, message: e.message } }),
      offset,
    )
    offset += stats.lines
  }
  return out
}

/** Encodes as the worker does (SliceEncoder.encode, its own reading of plain lines included), sends through structured clone with transfer, decodes. */
function viaSlices(slices: string[], maxEntries?: number): { seen: Seen; received: ReceivedSlice[] } {
  const parser = new LineProtoParser()
  const encoder = new SliceEncoder(maxEntries)
  const dictionary = new SliceDictionary()
  const received: ReceivedSlice[] = []
  let offset = 0
  slices.forEach((body, i) => {
    offset += encoder.encode(body, parser, offset)
    const { message, transfer } = encoder.take(7, i === slices.length - 1)
    const copy = structuredClone(message, { transfer }) as SliceMessage
    for (const buf of transfer) {
      expect(buf.byteLength).toBe(0) // transferred, not copied
    }
    received.push(dictionary.receive(copy))
  })
  return { seen: decodeAll(received), received }
}

/** A parser that counts the lines handed to it (parseSome) since the count was last read. */
function countingParser(): { parser: LineProtoParser; handed: () => number } {
  const parser = new LineProtoParser()
  let n = 0
  const parseSome = parser.parseSome.bind(parser)
  parser.parseSome = (...args) => {
    n++
    return parseSome(...args)
  }
  return {
    parser,
    handed: () => {
      const read = n
      n = 0
      return read
    },
  }
}

/** Errors come first per slice in decoding; compare per kind, in order. */
function decodeAll(received: ReceivedSlice[]): Seen {
  const out: Seen = []
  for (const r of received) {
    decodeSlice(
      r,
      (p, line) => {
        expect(p.seriesKey).toBe(seriesKeyOf(p.tags))
        const { seriesKey: _, ...rest } = clonePoint(p)
        out.push({ point: rest, line })
      },
      (e) => out.push({ error: e }),
    )
  }
  return out
}

function split(seen: Seen): { points: unknown[]; errors: unknown[] } {
  return {
    points: seen.filter((s) => 'point' in s).map((s) => {
      const { point, line } = s as { point: Point; line: number }
      const { seriesKey: _, ...rest } = point
      return { point: rest, line }
    }),
    errors: seen.filter((s) => 'error' in s),
  }
}

const BODY = [
  'cpu,host=a,region=eu usage=1.5,idle=98i,ok=t,msg="a \\"b\\" c",n=L"x" 1700000000000',
  'cpu,host=b,region=eu usage=2.5,idle=97i,ok=f,msg="d",n=L"y" 1700000000000',
  'a\\,b\\ c,k\\=1=v\\ 2 f\\ 1=1u8 5',
  '# comment',
  'bad line without fields',
  'm s="C:\\\\temp",x=-3.5e-2 -7',
  'm big=18446744073709551615u,neg=-9223372036854775808i 9223372036854775807',
  'm tiny=-0,f32=1.5f32 -9223372036854775808',
  'cpu,host=a,region=eu usage=3 ',
  'cpu,host=a,region=eu usage="now a string" 1700000001000',
  'x,t=1 v=1i8,w=65535u16,z=-2147483648i32',
].join('\n')

describe('parsed slices', () => {
  it('decode to the points and rejections the parser produces, in order', () => {
    const slices = [BODY.slice(0, BODY.indexOf('# comment')), BODY.slice(BODY.indexOf('# comment'))]
    const want = direct(slices)
    const { seen } = viaSlices(slices)
    expect(split(seen)).toEqual(split(want))
    expect(split(want).points.length).toBe(9)
    expect(split(want).errors.length).toBe(1)
  })

  it('keep timestamps beyond 2^53 and 64-bit values exact', () => {
    const { seen } = viaSlices(['m big=18446744073709551615u,neg=-9223372036854775808i 9223372036854775807\nm v=1 -9007199254740993\nm v=2'])
    const points = split(seen).points as Array<{ point: Point }>
    expect(points.map((p) => p.point.ts)).toEqual([9223372036854775807n, -9007199254740993n, null])
    expect(points[0].point.fields.map((f) => f.value)).toEqual([18446744073709551615n, -9223372036854775808n])
  })

  it('keep integers read on the plain-line path exact: signs, zero and both 32-bit halves', () => {
    const values = ['0', '-0', '-7', '7', '4294967295', '4294967296', '-4294967296', '-4294967297', '999999999999999', '-999999999999999', '2147483648', '-2147483649']
    // the first line of a series and shape goes through the parser; the rest are plain lines
    const body = ['m,t=a v=1i,w=1i 1', ...values.map((v, k) => `m,t=a v=${v}i,w=${k}i ${k + 2}`)].join('\n')
    const want = direct([body])
    const { seen } = viaSlices([body])
    expect(split(seen)).toEqual(split(want))
    const points = split(seen).points as Array<{ point: Point }>
    expect(points.slice(1).map((p) => p.point.fields[0].value)).toEqual(values.map((v) => BigInt(v)))
  })

  it('send a series and a field shape once; later slices carry only ids', () => {
    const line = (i: number): string => `cpu,host=h${i % 3} usage=${i} ${1000 + i}`
    const slices = [0, 1, 2].map((k) => Array.from({ length: 6 }, (_, i) => line(k * 6 + i)).join('\n') + '\n')
    const { received } = viaSlices(slices)
    expect(received.map((r) => r.message.newSeries.length)).toEqual([3, 0, 0])
    expect(received.map((r) => r.message.newShapes.length)).toEqual([1, 0, 0])
    expect(received.map((r) => r.message.count)).toEqual([6, 6, 6])
  })

  it('restart the dictionaries past their bound; earlier slices still decode (and replay) right', () => {
    const slices = [0, 1, 2, 3].map((k) => Array.from({ length: 5 }, (_, i) => `m${k},t=${i} v=${k}.${i},s="${i}" ${k * 10 + i}`).join('\n') + '\n')
    const want = split(direct(slices))
    const { received } = viaSlices(slices, 4)
    expect(received.some((r) => r.message.reset)).toBe(true)
    // decoding after every slice arrived: each keeps the dictionary generation it was sent in
    expect(split(decodeAll(received))).toEqual(want)
    expect(split(decodeAll(received))).toEqual(want)
  })

  it('match the parser on arbitrary bodies cut into arbitrary slices', () => {
    const char = fc.constantFrom(...'\\ ,="\n\t#LtfiuU0123456789.-eE_xé'.split(''))
    const text = fc.array(fc.oneof(char, fc.constantFrom('cpu', 'host=a', ' v=1', ' s="x"', ' 17', 'i', 'u', '\n')), { maxLength: 120 }).map((a) => a.join(''))
    fc.assert(
      fc.property(text, fc.array(fc.nat(), { maxLength: 3 }), fc.integer({ min: 1, max: 8 }), (body, cuts, maxEntries) => {
        // cut after newlines, as the worker does
        const slices: string[] = []
        let start = 0
        for (const c of [...cuts].sort((a, b) => a - b)) {
          const nl = body.indexOf('\n', Math.max(start, c % (body.length + 1)))
          if (nl < 0) {
            break
          }
          slices.push(body.slice(start, nl + 1))
          start = nl + 1
        }
        slices.push(body.slice(start))
        expect(split(viaSlices(slices, maxEntries).seen)).toEqual(split(direct(slices)))
      }),
      { numRuns: 1500 },
    )
  })

  it('match the parser on bodies that repeat series and fields, written plainly or not', () => {
    // Repeated series and field shapes take SliceEncoder.encode's own reading: every near miss of
    // its plain form must still come out as the parser reads it.
    const series = fc.constantFrom('cpu,host=a', 'cpu,host=b,dc=x', 'mem', 'cpu,host=a\\ b', 'c\\,pu,h=1', 'cpu,host="q"')
    const name = fc.constantFrom('v', 'w', 'usage_user', 'a\\ b', 'x\\=y', 'v')
    const value = fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
      fc.integer().map(String),
      fc.integer().map((n) => `${n}i`),
      fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }).map((n) => `${n}i`),
      fc.constantFrom('1.5', '-0', '+.5', '5.', '.', '-', '1.2.3', '1e3', '1.5i', '7I', '3u', '2f32', 't', '"s"', '0012', '1234567890123456', '12345678901234.5', '123456789012345i', '1234567890123456i'),
    )
    const ts = fc.oneof(
      fc.constant(''),
      fc.integer({ min: -1e15, max: 1e15 }).map((n) => ` ${n}`),
      fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }).map((n) => ` ${n}`),
      fc.constantFrom(' ', '  17', ' 17 ', ' -0', ' 1.5', ' 17\r', ' 99999999999999999999'),
    )
    const field = fc.tuple(name, value).map(([n, v]) => `${n}=${v}`)
    // lines that keep each series' fields and mostly write plain values, so the encoder's own
    // reading is taken often (and sometimes almost)
    const kept: Array<[string, Array<[string, 'd' | 'i']>]> = [
      ['cpu,host=a', [['v', 'd']]],
      ['cpu,host=b,dc=x', [['usage_user', 'd'], ['n', 'i'], ['w', 'd']]],
      ['mem', [['n', 'i']]],
      ['cpu,host=a\\ b', [['v', 'd'], ['a\\ b', 'd']]],
    ]
    const plain = (kind: 'd' | 'i'): fc.Arbitrary<string> =>
      fc.oneof(
        { weight: 6, arbitrary: kind === 'd' ? fc.integer({ min: -1e9, max: 1e9 }).map((n) => String(n / 1000)) : fc.integer({ min: -1e15, max: 1e15 }).map((n) => `${n}i`) },
        { weight: 1, arbitrary: value },
      )
    const keptLine = fc
      .nat(kept.length - 1)
      .chain((k) => fc.tuple(fc.constant(kept[k]), fc.tuple(...kept[k][1].map(([, kind]) => plain(kind))), ts))
      .map(([[s, fields], values, t]) => `${s} ${fields.map(([n], i) => `${n}=${values[i]}`).join(',')}${t}`)
    const lineArb = fc.oneof(
      { weight: 6, arbitrary: keptLine },
      { weight: 3, arbitrary: fc.tuple(series, fc.array(field, { minLength: 1, maxLength: 3 }), ts).map(([s, f, t]) => `${s} ${f.join(',')}${t}`) },
      { weight: 1, arbitrary: fc.constantFrom('', '# comment', '  cpu,host=a v=1 5', 'cpu,host=a  v=1 5', 'cpu,host=a v=1 5\r', 'cpu,host=a', '\tcpu,host=a v=1 5') },
    )
    fc.assert(
      fc.property(fc.array(lineArb, { maxLength: 40 }), fc.integer({ min: 1, max: 40 }), fc.oneof(fc.constant(100_000), fc.integer({ min: 2, max: 20 })), (lines, cut, maxEntries) => {
        // the first lines twice: their series and shapes are known when the second copy comes
        const all = [...lines.slice(0, 10), ...lines]
        const k = Math.min(cut, all.length)
        const slices = [all.slice(0, k).join('\n') + '\n', all.slice(k).join('\n')]
        expect(split(viaSlices(slices, maxEntries).seen)).toEqual(split(direct(slices)))
      }),
      { numRuns: 1500 },
    )
  })

  it('read plain lines of known series without the parser, and hand it the others', () => {
    const { parser, handed } = countingParser()
    const encoder = new SliceEncoder()
    const lines = ['cpu,host=a v=1.5,n=2i 100', 'cpu,host=b v=2.5,n=3i 100']
    encoder.encode(lines.join('\n') + '\n', parser, 0)
    expect(handed()).toBe(2) // new series
    const again = ['cpu,host=a v=3.5,n=4i 200', 'cpu,host=b v=-4,n=-5i 200', 'cpu,host=a v=1e3,n=4i 300', 'cpu,host=a v=1,n=4i 1234567890123456789']
    expect(encoder.encode(again.join('\n'), parser, 2)).toBe(4)
    expect(handed()).toBe(1) // the exponent
    const dictionary = new SliceDictionary()
    const seen = decodeAll([dictionary.receive(encoder.take(1, true).message)])
    expect(seen.map((s) => ('point' in s ? [s.line, s.point.ts, s.point.fields.map((f) => f.value)] : s))).toEqual([
      [1, 100n, [1.5, 2n]],
      [2, 100n, [2.5, 3n]],
      [3, 200n, [3.5, 4n]],
      [4, 200n, [-4, -5n]],
      [5, 300n, [1000, 4n]],
      [6, 1234567890123456789n, [1, 4n]],
    ])
  })

  it('read a plain line as the series that followed the last one, or as any known series, or hand it on', () => {
    const { parser, handed } = countingParser()
    const encoder = new SliceEncoder()
    // host=a is a prefix of host=ab's text; a backslash keeps escaped text on the parser's path
    const series = ['cpu,host=a', 'cpu,host=ab', 'cpu,host=b', 'cpu,host=c\\ d']
    const body = (order: number[], t: number, field = 'v'): string => order.map((k) => `${series[k]} ${field}=${t}.5 ${t}`).join('\n') + '\n'
    const bodies = [
      body([0, 1, 2, 3], 1),
      // the same order: every series as predicted (the escaped one still goes to the parser)
      body([0, 1, 2, 3], 2),
      // another order and a series left out: found by their hash
      body([2, 0, 1], 3),
      body([1, 0, 2], 4),
      // the predicted series with other fields: the parser reads it, as before
      body([0, 1], 5, 'w'),
    ]
    const counts: number[] = []
    const dictionary = new SliceDictionary()
    const received: ReceivedSlice[] = []
    let offset = 0
    for (const b of bodies) {
      offset += encoder.encode(b, parser, offset)
      received.push(dictionary.receive(encoder.take(1, false).message))
      counts.push(handed())
    }
    expect(counts).toEqual([4, 1, 0, 0, 2])
    expect(split(decodeAll(received))).toEqual(split(direct(bodies)))
    // past the dictionaries' bound they restart, and nothing predicted from before is used
    const small = viaSlices([...bodies, ...bodies], 3)
    expect(small.received.some((r) => r.message.reset)).toBe(true)
    expect(split(small.seen)).toEqual(split(direct([...bodies, ...bodies])))
  })
})
