import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { LineProtoParser } from './lineproto/parse.js'
import { TelnetParser } from './tsdbproto/telnet.js'
import { forEachLineSlice } from './slices.js'

type Parser = { parse(body: string, onPoint: (p: unknown, line: number) => void, onError: (e: { line: number; message: string }) => void, lineOffset?: number): unknown }

/** What a parser reports for a body: points (as JSON, they are reused objects) and errors, with line numbers. */
function whole(parser: Parser, body: string): string[] {
  const out: string[] = []
  parser.parse(body, (p, line) => out.push(`${line} ${JSON.stringify(p, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))}`), (e) => out.push(`${e.line} error ${e.message}`))
  return out
}

async function sliced(parser: Parser, body: string, sliceBytes: number): Promise<{ out: string[]; slices: string[] }> {
  const out: string[] = []
  const slices: string[] = []
  await forEachLineSlice(
    Buffer.from(body),
    (slice, lineOffset) => {
      slices.push(slice)
      parser.parse(slice, (p, line) => out.push(`${line} ${JSON.stringify(p, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))}`), (e) => out.push(`${e.line} error ${e.message}`), lineOffset)
    },
    sliceBytes,
  )
  return { out, slices }
}

const lpLine = fc.oneof(
  fc.constantFrom('', '# comment', 'cpu,host=a usage=1i 1000', 'mem,host=b free=2.5,used=3u 2000\r', 'bad line here', 'disk used="x y" 3000', 'cpu,host=a usage=oops'),
  fc.string({ maxLength: 30 }),
)
const telnetLine = fc.oneof(
  fc.constantFrom('', 'put sys.cpu 1700000000 1.5 host=a', 'sys.mem 1700000000000 2 host=b  dc=x\r', 'put broken', 'put m notatime 1 a=b'),
  fc.string({ maxLength: 30 }),
)

describe('forEachLineSlice', () => {
  it('cuts after newlines, numbers lines across slices and passes a one-slice body unchanged', async () => {
    const body = 'a\nbb\r\nccc\n\nd'
    const seen: [string, number][] = []
    await forEachLineSlice(Buffer.from(body), (s, off) => seen.push([s, off]), 2)
    expect(seen).toEqual([
      ['a\nbb\r\n', 0],
      ['ccc\n', 2],
      ['\nd', 3],
    ])
    const one: string[] = []
    await forEachLineSlice(Buffer.from(body), (s) => one.push(s))
    expect(one).toEqual([body])
    const none: string[] = []
    await forEachLineSlice(Buffer.alloc(0), (s) => none.push(s))
    expect(none).toEqual([])
  })

  it('lets other callbacks run between slices', async () => {
    let ticks = 0
    const timer = setInterval(() => ticks++, 0)
    const seenTicks: number[] = []
    await forEachLineSlice(Buffer.from('x\n'.repeat(50)), () => {
      const until = performance.now() + 2
      while (performance.now() < until) {
        // a slice that takes 2 ms, as a real parse does
      }
      seenTicks.push(ticks)
    }, 10)
    clearInterval(timer)
    expect(seenTicks[seenTicks.length - 1]).toBeGreaterThan(seenTicks[0])
  })

  it('line protocol and telnet: slices give the same points, errors and line numbers as one parse', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.boolean().chain((lp) => (lp ? lpLine : telnetLine)), { maxLength: 40 }),
        fc.integer({ min: 1, max: 64 }),
        fc.constantFrom('\n', '\r\n'),
        async (lines, sliceBytes, eol) => {
          const body = lines.join(eol)
          for (const make of [() => new LineProtoParser(), () => new TelnetParser()] as (() => Parser)[]) {
            const { out, slices } = await sliced(make(), body, sliceBytes)
            expect(slices.join('')).toBe(body)
            expect(out).toEqual(whole(make(), body))
          }
        },
      ),
      { numRuns: 300 },
    )
  })

  it('decodes each slice from its own bytes to exactly the whole body\'s text, multi-byte and invalid UTF-8 included', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 12 }), fc.uint8Array({ maxLength: 12 }).map((b) => Buffer.from(b).toString('latin1'))), { maxLength: 30 }),
        fc.uint8Array({ maxLength: 8 }),
        fc.integer({ min: 1, max: 40 }),
        async (texts, junk, sliceBytes) => {
          // text lines, raw bytes (invalid UTF-8 among them) and a tail without a newline
          const body = Buffer.concat([...texts.map((t, i) => Buffer.from(t + '\n', i % 2 === 0 ? 'utf8' : 'latin1')), Buffer.from(junk)])
          const slices: Array<[string, number]> = []
          await forEachLineSlice(body, (s, off) => slices.push([s, off]), sliceBytes)
          expect(slices.map(([s]) => s).join('')).toBe(body.toString('utf8'))
          let before = 0
          for (const [s, off] of slices) {
            expect(off).toBe(before)
            before += s.split('\n').length - 1
          }
        },
      ),
      { numRuns: 300 },
    )
  })
})
