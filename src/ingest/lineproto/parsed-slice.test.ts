/**
 * The worker's slice encoding must hand the schemaless core exactly what parsing on the main
 * thread hands it: the same points (measurement, tags, typed fields, timestamp, line number) and
 * the same rejections, in the same order, across slices, dictionary restarts and replays.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { clonePoint, seriesKeyOf, type Point } from '../point.js'
import type { Rejection } from '../schemaless/schemaless.js'
import { LineProtoParser } from './parse.js'
import { SliceDictionary, SliceEncoder, decodeSlice, type ReceivedSlice, type SliceMessage } from './parsed-slice.js'

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

/** Encodes as the worker does, sends through structured clone with transfer, decodes. */
function viaSlices(slices: string[], maxEntries?: number): { seen: Seen; received: ReceivedSlice[] } {
  const parser = new LineProtoParser()
  const encoder = new SliceEncoder(maxEntries)
  const dictionary = new SliceDictionary()
  const received: ReceivedSlice[] = []
  let offset = 0
  slices.forEach((body, i) => {
    const stats = parser.parse(
      body,
      (p, line) => encoder.add(p, line, parser.seriesText()),
      (e) => encoder.addError(e),
      offset,
    )
    offset += stats.lines
    const { message, transfer } = encoder.take(7, i === slices.length - 1)
    const copy = structuredClone(message, { transfer }) as SliceMessage
    for (const buf of transfer) {
      expect(buf.byteLength).toBe(0) // transferred, not copied
    }
    received.push(dictionary.receive(copy))
  })
  return { seen: decodeAll(received), received }
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
})
