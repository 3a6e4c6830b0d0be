/**
 * Property tests for both OpenTSDB formats: arbitrary input only yields points or
 * IngestParseErrors through the callbacks, and generated points round-trip.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { IngestParseError } from '../errors.js'
import { clonePoint, type Point } from '../point.js'
import { OpenTsdbJsonParser } from './json.js'
import { TelnetParser, TSDB_VALUE_FIELD } from './telnet.js'

const telnet = new TelnetParser()
const json = new OpenTsdbJsonParser()

function parseWith(p: TelnetParser | OpenTsdbJsonParser, body: string): { points: Point[]; errors: unknown[] } {
  const points: Point[] = []
  const errors: unknown[] = []
  const stats = p.parse(
    body,
    (pt) => points.push(clonePoint(pt)),
    (e) => errors.push(e),
  )
  expect(stats.points).toBe(points.length)
  expect(stats.errors).toBe(errors.length)
  for (const e of errors) {
    expect(e).toBeInstanceOf(IngestParseError)
  }
  for (const pt of points) {
    expect(pt.fields.map((f) => f.name)).toEqual([TSDB_VALUE_FIELD])
  }
  return { points, errors }
}

const syntaxChar = fc.constantFrom(...'put 1700000000123 .e-=\t\r\n{}[]":,0123456789abcnulltruefalse'.split(''))
const syntaxText = fc.array(fc.oneof(syntaxChar, fc.string({ maxLength: 3 })), { maxLength: 80 }).map((a) => a.join(''))

const TELNET_BODY = 'put sys.cpu 1700000000 1.5 host=a  dc=x\r\nm 1700000000123 -2e3 k=v=w\n\n'
const JSON_BODY = JSON.stringify([
  { metric: 'a', timestamp: 1700000000, value: 1.5, tags: { h: 'x', n: 2 } },
  { metric: 'b', timestamp: { value: 1700000000123, type: 'ms' }, value: { value: 7, type: 'int' }, tags: {} },
])

function mutate(body: string): fc.Arbitrary<string> {
  const mutation = fc.record({
    at: fc.nat({ max: body.length }),
    del: fc.nat({ max: 4 }),
    insert: fc.array(syntaxChar, { maxLength: 4 }).map((a) => a.join('')),
  })
  return fc.array(mutation, { minLength: 1, maxLength: 6 }).map((muts) => {
    let b = body
    for (const m of muts) {
      const at = Math.min(m.at, b.length)
      b = b.slice(0, at) + m.insert + b.slice(at + m.del)
    }
    return b
  })
}

describe('OpenTSDB fuzzing', () => {
  for (const [name, parser, valid] of [
    ['telnet', telnet, TELNET_BODY],
    ['json', json, JSON_BODY],
  ] as const) {
    it(`${name}: random bytes, grammar-heavy text and mutated bodies never throw`, () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
          parseWith(parser, Buffer.from(bytes).toString('utf8'))
        }),
        { numRuns: 800 },
      )
      fc.assert(
        fc.property(syntaxText, (body) => {
          parseWith(parser, body)
        }),
        { numRuns: 1500 },
      )
      fc.assert(
        fc.property(mutate(valid), (body) => {
          parseWith(parser, body)
        }),
        { numRuns: 1500 },
      )
    })
  }
})

// Tokens: no whitespace; tag keys without '='.
const token = fc.string({ minLength: 1, maxLength: 10, unit: 'grapheme-ascii' }).filter((s) => !/\s/.test(s))
const tagKey = token.filter((s) => !s.includes('='))
const metric = token.filter((s) => s !== 'put')
const tsSeconds = fc.integer({ min: 1_000_000_000, max: 9_999_999_999 })
const tsMillis = fc.integer({ min: 1_000_000_000_000, max: 9_999_999_999_999 })
const value = fc.double({ noNaN: true, noDefaultInfinity: true }).map((v) => (Object.is(v, -0) ? 0 : v))
const tags = fc.uniqueArray(fc.tuple(tagKey, token), { maxLength: 5, selector: (t) => t[0] })

describe('OpenTSDB round trip', () => {
  it('telnet: serialize -> parse gives the points back', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ metric, secs: fc.boolean(), s: tsSeconds, ms: tsMillis, value, tags, put: fc.boolean() }), {
          maxLength: 5,
        }),
        (pts) => {
          const body = pts
            .map((p) => `${p.put ? 'put ' : ''}${p.metric} ${p.secs ? p.s : p.ms} ${p.value} ${p.tags.map(([k, v]) => `${k}=${v}`).join('  ')}`)
            .join('\r\n')
          const r = parseWith(telnet, body)
          expect(r.errors.map((e) => (e as Error).message)).toEqual([])
          expect(r.points).toEqual(
            pts.map((p) => ({
              measurement: p.metric,
              tags: p.tags,
              fields: [{ name: TSDB_VALUE_FIELD, type: 'DOUBLE', value: p.value }],
              ts: p.secs ? BigInt(p.s) * 1000n : BigInt(p.ms),
            })),
          )
        },
      ),
      { numRuns: 800 },
    )
  })

  it('json: serialize -> parse gives the points back', () => {
    const anyText = fc.string({ minLength: 1, maxLength: 10 })
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            metric: anyText,
            ts: fc.oneof(tsSeconds, tsMillis, fc.constant(0)),
            value,
            tags: fc.uniqueArray(fc.tuple(anyText, anyText), { maxLength: 5, selector: (t) => t[0] }),
          }),
          { maxLength: 5 },
        ),
        (pts) => {
          // Object.fromEntries would reorder integer-like keys; compare against the JS key order.
          const items = pts.map((p) => ({ metric: p.metric, timestamp: p.ts, value: p.value, tags: Object.fromEntries(p.tags) }))
          const r = parseWith(json, JSON.stringify(items))
          expect(r.errors.map((e) => (e as Error).message)).toEqual([])
          expect(r.points).toEqual(
            items.map((it) => ({
              measurement: it.metric,
              tags: Object.entries(it.tags),
              fields: [{ name: TSDB_VALUE_FIELD, type: 'DOUBLE', value: it.value }],
              ts: it.timestamp === 0 ? null : String(it.timestamp).length === 10 ? BigInt(it.timestamp) * 1000n : BigInt(it.timestamp),
            })),
          )
        },
      ),
      { numRuns: 800 },
    )
  })
})
