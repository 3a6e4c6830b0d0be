/**
 * Fuzz over TCP: the OpenTSDB telnet receiver of a real adapter gets some 3,000 chunks from a
 * fixed seed (test/lib/fuzz.ts: FUZZ_SEED, FUZZ_RUNS) of mutated and generated `put` lines, lines
 * past the 64 KiB limit and random bytes, split at random places into writes, over one long-lived
 * connection and over many short ones (some ending without a newline, some reset mid-line),
 * while another connection streams a line of 192 KiB without a newline. The HTTP telnet fuzz
 * (test/ingest/tsdbproto.fuzz.test.ts) covers the parser; this one covers the listener: line
 * splitting, the line limit, batching per connection and the connections' life.
 *
 * Checked: every complete line is counted (accepted or malformed, an over-long one as malformed),
 * no line or point is dropped, connections are counted and none refused, /-/ping never waits 1 s,
 * rows written before the fuzzing are unchanged, and a valid put afterwards is stored, on a new
 * connection and on the long-lived one.
 */
import { connect, type Socket } from 'node:net'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningAdapter } from '../../src/lifecycle.js'
import { TELNET_MAX_LINE_BYTES } from '../../src/receivers/tsdbproto-telnet.js'
import { sqlRows, startIngestServer } from '../ingest/server.js'
import { HOSTILE_NAMES, fuzzParams, mutatedText, pollUntil, receiverCounters, repeated, watchStalls } from '../lib/fuzz.js'

const RECEIVER = 'tsdbproto_telnet'
const DB = 'fztcp'
let adapter: RunningAdapter
let port: number
let stalls: { stop(): Promise<number> }
let baseline: unknown[][]
/** lines the receiver must have counted so far, and connections opened */
let lines = 0
let connections = 0
let long: Socket
/** a connection that sent the start of a line and never its end */
let hog: Socket

function open(): Promise<Socket> {
  connections++
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => resolve(s))
    s.once('error', reject)
  })
}
function write(s: Socket, data: string | Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => s.write(data, (err) => (err ? reject(err) : resolve())))
}
/** ends the connection and resolves once the adapter has closed its side */
function end(s: Socket): Promise<void> {
  return new Promise((resolve) => {
    s.once('close', () => resolve())
    s.on('error', () => {})
    // `version` answers must be read, or the adapter's end of stream never shows
    s.resume()
    s.end()
  })
}

/**
 * The lines the receiver counts from `bytes` (complete lines only, unless `final`): split at
 * `\n`, a trailing `\r` removed, empty, blank and `version` lines not counted; an over-long line
 * counts once (as malformed).
 */
function countLines(bytes: Buffer, final: boolean): number {
  return splitLines(bytes, final).filter((l) => l !== 'version').length
}

/** the `version` lines in `bytes` (each answered with one byte) */
function versions(bytes: Buffer): number {
  return splitLines(bytes, false).filter((l) => l === 'version').length
}

/** the lines as the listener and the receiver see them: trimmed, blank ones left out, an over-long one as '' + its length */
function splitLines(bytes: Buffer, final: boolean): string[] {
  const n: string[] = []
  let start = 0
  for (;;) {
    const nl = bytes.indexOf(10, start)
    if (nl < 0 && !final) {
      return n
    }
    const stop = nl < 0 ? bytes.length : nl
    if (stop - start > TELNET_MAX_LINE_BYTES) {
      n.push(`overlong ${stop - start}`)
    } else {
      let e = stop
      if (e > start && bytes[e - 1] === 13) {
        e--
      }
      const line = bytes.toString('utf8', start, e).trim()
      if (line !== '') {
        n.push(line)
      }
    }
    if (nl < 0) {
      return n
    }
    start = nl + 1
  }
}

// ---- lines ----

const SEEDS = [
  'put sys.cpu.user 1700000000 42.5 host=web01 cpu=0',
  'sys.cpu.user 1700000000000 -1e3 host=web01',
  'put  m.x   1700000001   7   a=b   c=d  \r\nput m.x 1700000002 8 a=b c=d\r',
  'put m.s 1700000000 1 t=\u00e9\u00e8 u=\ud83d\ude00',
  'put m.big 1700000000 1.7976931348623157e308 h=a\nput m.small 1700000000 5e-324 h=a',
  'version\nput m.v 1700000000 1 h=a\n\n',
]
const SPECIAL = [' ', '=', '\n', '\r', '\r\n', '\t', '.', '-', '+', 'e', '0', '9', 'put ', '"', '\\', '\u0000', '\ud800', '\ud83d\ude00', 'NaN', 'inf', 'version']

const tok = (s: string): string => s.replace(/[\s=]/g, '') || 'x'
const name = fc.oneof(fc.constantFrom(...HOSTILE_NAMES).map(tok), fc.stringMatching(/^[a-z][a-z0-9_.]{0,15}$/), fc.constantFrom('tbname', '_tid', 'ts', 'x'.repeat(300)))
const generatedLine = fc
  .tuple(
    name,
    fc.oneof(fc.integer({ min: 1_000_000_000, max: 2_000_000_000 }).map(String), fc.constantFrom('0', '-1', '1700000000123', '99999999999999999999', 'now')),
    fc.oneof(fc.double().map(String), fc.integer().map(String), fc.constantFrom('NaN', '-inf', 'true', '')),
    fc.array(fc.tuple(name, name).map(([k, v]) => `${k}=${v}`), { maxLength: 5 }),
  )
  .map(([m, ts, v, kv]) => ['put', m, ts, v, ...kv].join(' '))

const text = fc.oneof(
  { arbitrary: mutatedText(SEEDS, SPECIAL), weight: 4 },
  { arbitrary: fc.array(generatedLine, { minLength: 1, maxLength: 30 }).map((l) => l.join('\n')), weight: 4 },
  // past the line limit, followed by a good line
  { arbitrary: fc.integer({ min: TELNET_MAX_LINE_BYTES - 8, max: TELNET_MAX_LINE_BYTES + 5000 }).map((k) => `put long 1700000000 1 t=${'v'.repeat(k)}\nput after.long 1700000000 1 h=a`), weight: 1 },
  { arbitrary: repeated(['put m 1700000000 1 a=b\n', '\n', '\r\n', 'x '], 3000), weight: 1 },
  { arbitrary: fc.uint8Array({ maxLength: 2000 }).map((b) => Buffer.from(b).toString('latin1')), weight: 1 },
)
/** a chunk: always ending with a newline (the next one starts a new line), cut into 1-4 writes */
const chunk = fc.tuple(text, fc.array(fc.nat(), { maxLength: 3 })).map(([t, cuts]) => {
  const bytes = Buffer.from(`${t}\n`)
  const at = [...new Set(cuts.map((c) => c % bytes.length))].sort((a, b) => a - b)
  const pieces: Buffer[] = []
  let from = 0
  for (const c of [...at, bytes.length]) {
    if (c > from) {
      pieces.push(bytes.subarray(from, c))
      from = c
    }
  }
  return { bytes, pieces }
})

/** `p`, or a failure naming `what` after 15 s */
async function within<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no ${what} within 15 s`)), 15_000)
  })
  try {
    return await Promise.race([p, late])
  } finally {
    clearTimeout(timer)
  }
}

const seen = (c: Record<string, number>): number => c['packets.accepted'] + c['packets.malformed'] + c['packets.dropped']

async function waitCounted(what: string): Promise<Record<string, number>> {
  const c = await pollUntil(
    () => receiverCounters(adapter.url, RECEIVER),
    (v) => seen(v) >= lines,
    20_000,
  )
  expect(seen(c), `lines counted: ${what}`).toBe(lines)
  expect(c['packets.dropped'] + c['points.dropped'], JSON.stringify(c)).toBe(0)
  return c
}

beforeAll(async () => {
  adapter = await startIngestServer((c) => {
    c.tsdbproto_telnet.enable = true
    c.tsdbproto_telnet.ports = [0]
    c.tsdbproto_telnet.dbs = [DB]
  })
  port = adapter.receivers[0].port
  const s = await open()
  await write(s, 'put keep.before 1700000000 1.5 h=a\nput keep.before 1700000001 2.5 h=b\n')
  await end(s)
  lines = 2
  baseline = await pollUntil(
    () => sqlRows(adapter.url, `select * from ${DB}.keep_before order by h`).catch(() => []),
    // the rows as written, once stored (a read racing a new table's first write once saw wrong _ts values: src/storage/duckdb/read-snapshot.test.ts)
    (rows) => rows.length === 2 && rows.every((r) => String(r[0]) > '2020'),
  )
  expect(baseline).toHaveLength(2)
  // a client that streams without newlines: skipped past the line limit (one malformed line), never kept
  hog = await open()
  hog.resume()
  await write(hog, `put never.ends 1700000000 1 h=${'x'.repeat(3 * TELNET_MAX_LINE_BYTES)}`)
  lines++
  long = await open()
  long.resume()
  stalls = await watchStalls(adapter.url)
})

afterAll(async () => {
  // a failed test leaves the watch running: stopped before the adapter goes
  await stalls?.stop()
  long?.destroy()
  hog?.destroy()
  await adapter?.stop()
})

describe('telnet receiver fuzz over TCP', () => {
  it('one long-lived connection: every line is counted, none dropped', async () => {
    await fc.assert(
      fc.asyncProperty(chunk, async ({ bytes, pieces }) => {
        for (const p of pieces) {
          await write(long, p)
        }
        lines += countLines(bytes, false)
        await waitCounted(JSON.stringify(bytes.toString('utf8').slice(0, 300)))
      }),
      fuzzParams(1000),
    )
  }, 180_000)

  it('many short connections, some ending mid-line or reset: lines counted, none dropped', async () => {
    await fc.assert(
      fc.asyncProperty(chunk, fc.constantFrom('end', 'end', 'fragment', 'reset'), async ({ bytes, pieces }, how) => {
        const s = await open()
        for (const p of pieces) {
          await write(s, p)
        }
        if (how === 'reset') {
          // a `version` last: its answer says every line before it was read; then a line cut off by a reset
          let answers = 0
          const allRead = new Promise<void>((resolve) => {
            s.on('data', (d: Buffer) => {
              answers += d.length
              if (answers > versions(bytes)) {
                resolve()
              }
            })
          })
          await write(s, 'version\nput cut.off 1700000000 1 h=')
          await within(allRead, `the version answer after ${JSON.stringify(bytes.toString('utf8').slice(0, 300))}`)
          await new Promise<void>((resolve) => {
            s.once('close', () => resolve())
            s.on('error', () => {})
            s.resetAndDestroy()
          })
          lines += countLines(bytes, false)
          await waitCounted(`reset: ${JSON.stringify(bytes.toString('utf8').slice(0, 300))}`)
          return
        }
        if (how === 'fragment') {
          // a last line without its newline: delivered when the client closes
          await write(s, 'put fragment.last 1700000000 1 h=a')
          lines++
        }
        await within(end(s), `the close after ${JSON.stringify(bytes.toString('utf8').slice(0, 300))}`)
        lines += countLines(bytes, false)
        await waitCounted(`${how}: ${JSON.stringify(bytes.toString('utf8').slice(0, 300))}`)
      }),
      fuzzParams(800),
    )
  }, 180_000)

  it('after the fuzzing: old rows unchanged, connections counted, and a valid put is stored on a new and the old connection', async () => {
    expect(await stalls.stop(), '/-/ping waited 1 s or more during the fuzzing').toBeLessThan(1000)
    expect(await sqlRows(adapter.url, `select * from ${DB}.keep_before order by h`)).toEqual(baseline)
    const s = await open()
    await write(s, 'put after.fuzz 1700000000 7 h=new\n')
    await end(s)
    await write(long, 'put after.fuzz 1700000000 8 h=long\n')
    // the streaming client's next line after its newline is taken again
    await write(hog, `${'y'.repeat(1000)}\nput after.fuzz 1700000000 9 h=hog\n`)
    const rows = await pollUntil(
      () => sqlRows(adapter.url, `select _value, h from ${DB}.after_fuzz order by h`).catch(() => []),
      (r) => r.length === 3,
    )
    expect(rows).toEqual([
      [9, 'hog'],
      [8, 'long'],
      [7, 'new'],
    ])
    lines += 3
    await waitCounted('the last puts')
    const c = await receiverCounters(adapter.url, RECEIVER)
    expect(c['connections.accepted']).toBe(connections)
    expect(c['connections.refused']).toBe(0)
    expect(c['packets.malformed']).toBeGreaterThan(0)
    expect(c['points.written']).toBeGreaterThan(0)
    expect(c['points.dropped'], JSON.stringify(c)).toBe(0)
  }, 60_000)
})
