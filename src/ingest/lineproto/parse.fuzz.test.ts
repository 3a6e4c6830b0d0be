/**
 * Property tests: arbitrary input may only ever produce points or IngestParseErrors through the
 * callbacks (never a throw, never a hang), and serialize -> parse round-trips generated points.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { IngestParseError } from '../errors.js'
import { clonePoint, type Field, type Point } from '../point.js'
import { LineProtoParser } from './parse.js'

const parser = new LineProtoParser()

function parseAll(body: string): { points: Point[]; errors: unknown[]; stats: { lines: number; points: number; errors: number } } {
  const points: Point[] = []
  const errors: unknown[] = []
  const stats = parser.parse(
    body,
    (p) => points.push(clonePoint(p)),
    (e) => errors.push(e),
  )
  return { points, errors, stats }
}

function assertWellBehaved(body: string): void {
  const r = parseAll(body) // a throw here fails the property
  for (const e of r.errors) {
    expect(e).toBeInstanceOf(IngestParseError)
    const pe = e as IngestParseError
    expect(pe.line).toBeGreaterThanOrEqual(1)
    expect(pe.line).toBeLessThanOrEqual(r.stats.lines)
    expect(Buffer.byteLength(pe.quote)).toBeLessThanOrEqual(256)
  }
  expect(r.stats.points).toBe(r.points.length)
  expect(r.stats.errors).toBe(r.errors.length)
  expect(r.stats.points + r.stats.errors).toBeLessThanOrEqual(r.stats.lines)
  for (const p of r.points) {
    expect(p.measurement.length).toBeGreaterThan(0)
    expect(p.fields.length).toBeGreaterThan(0)
  }
}

// Characters that matter to the grammar, so random text hits the interesting branches often.
const syntaxChar = fc.constantFrom(...'\\ ,="\n\r\t#LGBtfTFiuIU0123456789.-+eE_xé城'.split(''))
const syntaxText = fc.array(fc.oneof(syntaxChar, fc.string({ maxLength: 3 })), { maxLength: 80 }).map((a) => a.join(''))

const VALID_BODY = [
  'cpu,host=a,region=eu usage=1.5,idle=98i,ok=t,msg="a \\"b\\" c",n=L"x" 1700000000000',
  'a\\,b\\ c,k\\=1=v\\ 2 f\\ 1=1u8 5',
  '# comment',
  '',
  'm s="C:\\\\temp",x=-3.5e-2 -7',
].join('\n')

describe('line protocol fuzzing', () => {
  it('random bytes only produce points or IngestParseErrors', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        assertWellBehaved(Buffer.from(bytes).toString('utf8'))
      }),
      { numRuns: 1500 },
    )
  })

  it('random grammar-heavy text only produces points or IngestParseErrors', () => {
    fc.assert(
      fc.property(syntaxText, (body) => {
        assertWellBehaved(body)
      }),
      { numRuns: 3000 },
    )
  })

  it('mutated valid bodies only produce points or IngestParseErrors', () => {
    const mutation = fc.record({
      at: fc.nat({ max: VALID_BODY.length }),
      del: fc.nat({ max: 4 }),
      insert: fc.array(syntaxChar, { maxLength: 4 }).map((a) => a.join('')),
    })
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 6 }), (muts) => {
        let body = VALID_BODY
        for (const m of muts) {
          const at = Math.min(m.at, body.length)
          body = body.slice(0, at) + m.insert + body.slice(at + m.del)
        }
        assertWellBehaved(body)
      }),
      { numRuns: 3000 },
    )
  })
})

// ---- serialize -> parse round trip ----

const escapeMeasurement = (s: string): string => s.replace(/[\\, ]/g, (c) => '\\' + c)
const escapeKey = (s: string): string => s.replace(/[\\,= ]/g, (c) => '\\' + c)
const escapeString = (s: string): string => s.replace(/[\\"]/g, (c) => '\\' + c)

// Names: any text without line breaks (no escape exists for them), non-empty.
const nameText = fc.string({ minLength: 1, maxLength: 12, unit: 'grapheme' }).filter((s) => !/[\r\n]/.test(s))
// A measurement cannot start with '#' (comment) or whitespace (trimmed before parsing).
const measurement = nameText.filter((s) => !/^[#\t ]/.test(s))
const stringValue = fc.string({ maxLength: 20, unit: 'grapheme' }).filter((s) => !/[\r\n]/.test(s))

const I64_MIN = -(2n ** 63n)
const I64_MAX = 2n ** 63n - 1n

type GenField = { field: Field; text: string }
const BOOL_FORMS: Record<string, boolean> = {
  t: true,
  T: true,
  true: true,
  True: true,
  TRUE: true,
  f: false,
  F: false,
  false: false,
  False: false,
  FALSE: false,
}

function fieldValue(name: string): fc.Arbitrary<GenField> {
  const intOf = (type: Field['type'], min: number, max: number, suffix: string): fc.Arbitrary<GenField> =>
    fc.integer({ min, max }).map((v) => ({ field: { name, type, value: v } as Field, text: `${v}${suffix}` }))
  return fc.oneof(
    fc
      .double({ noNaN: true, noDefaultInfinity: true })
      .map((v) => (Object.is(v, -0) ? 0 : v))
      .map((v) => ({ field: { name, type: 'DOUBLE', value: v } as Field, text: String(v) })),
    fc
      .float({ noNaN: true, noDefaultInfinity: true })
      .map((v) => (Object.is(v, -0) ? 0 : v))
      .map((v) => ({ field: { name, type: 'FLOAT', value: v } as Field, text: `${v}f32` })),
    intOf('TINYINT', -128, 127, 'i8'),
    intOf('SMALLINT', -32768, 32767, 'i16'),
    intOf('INT', -2147483648, 2147483647, 'i32'),
    intOf('TINYINT UNSIGNED', 0, 255, 'u8'),
    intOf('SMALLINT UNSIGNED', 0, 65535, 'u16'),
    intOf('INT UNSIGNED', 0, 4294967295, 'u32'),
    fc
      .bigInt({ min: I64_MIN, max: I64_MAX })
      .map((v) => ({ field: { name, type: 'BIGINT', value: v } as Field, text: `${v}i` })),
    fc
      .bigInt({ min: 0n, max: 2n ** 64n - 1n })
      .map((v) => ({ field: { name, type: 'BIGINT UNSIGNED', value: v } as Field, text: `${v}u64` })),
    fc
      .constantFrom(...Object.keys(BOOL_FORMS))
      .map((w) => ({ field: { name, type: 'BOOL', value: BOOL_FORMS[w] } as Field, text: w })),
    stringValue.map((v) => ({ field: { name, type: 'VARCHAR', value: v } as Field, text: `"${escapeString(v)}"` })),
    stringValue.map((v) => ({ field: { name, type: 'NCHAR', value: v } as Field, text: `L"${escapeString(v)}"` })),
  )
}

const genPoint = fc
  .record({
    measurement,
    tags: fc.uniqueArray(fc.tuple(nameText, nameText), { maxLength: 5, selector: (t) => t[0] }),
    fieldNames: fc.uniqueArray(nameText, { minLength: 1, maxLength: 6 }),
    ts: fc.option(fc.bigInt({ min: I64_MIN, max: I64_MAX }), { nil: null }),
  })
  .chain((r) =>
    fc.tuple(...r.fieldNames.map((n) => fieldValue(n))).map((fields) => ({
      point: { measurement: r.measurement, tags: r.tags, fields: fields.map((f) => f.field), ts: r.ts } as Point,
      line:
        escapeMeasurement(r.measurement) +
        r.tags.map(([k, v]) => `,${escapeKey(k)}=${escapeKey(v)}`).join('') +
        ' ' +
        fields.map((f, i) => `${escapeKey(r.fieldNames[i])}=${f.text}`).join(',') +
        (r.ts === null ? '' : ` ${r.ts}`),
    })),
  )

describe('line protocol round trip', () => {
  it('serialize -> parse gives the points back', () => {
    fc.assert(
      fc.property(fc.array(genPoint, { minLength: 1, maxLength: 5 }), fc.boolean(), (pts, crlf) => {
        const body = pts.map((p) => p.line).join(crlf ? '\r\n' : '\n')
        const r = parseAll(body)
        expect(r.errors.map((e) => (e as Error).message)).toEqual([])
        expect(r.points).toEqual(pts.map((p) => p.point))
      }),
      { numRuns: 1500 },
    )
  })
})
