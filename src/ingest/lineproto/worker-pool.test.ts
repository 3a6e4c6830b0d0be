/**
 * The parse workers on real worker threads: a body parsed there reaches the schemaless core as
 * it would parsed here (points, line numbers across slices, rejections), can be replayed, and
 * closing the pool fails what is still pending instead of leaving a write hanging.
 */
import pino from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { clonePoint, type Point } from '../point.js'
import type { PointSource, Rejection } from '../types.js'
import { forEachLineSlice } from '../slices.js'
import { LineProtoParser } from './parse.js'
import { decodeSlice } from './slice-decoder.js'
import { BodyPool } from '../body-pool.js'
import { MIN_PART_BYTES, createLineProtoWorkers, parseWorkerCount, splitBody, type LineProtoWorkers } from './worker-pool.js'

const logger = pino({ level: 'silent' })
let pool: LineProtoWorkers | undefined

afterEach(async () => {
  await pool?.close()
  pool = undefined
})

async function collect(source: PointSource): Promise<{ points: Array<[string, Point]>; errors: Rejection[] }> {
  const points: Array<[string, Point]> = []
  const errors: Rejection[] = []
  await source(
    (p, line) => {
      const { seriesKey: _, ...rest } = clonePoint(p)
      points.push([`line ${line}`, rest])
    },
    (e) => errors.push({ line: e.line, message: e.message }),
  )
  errors.sort((a, b) => a.line - b.line)
  return { points, errors }
}

/** ~40,000 lines (several worker slices): series repeat, some lines are bad, one has no timestamp. */
function bigBody(): string {
  const lines: string[] = []
  for (let i = 0; i < 40_000; i++) {
    if (i === 0 || i === 17_001 || i === 39_999) {
      lines.push(`broken line ${i}`)
    } else if (i === 25_000) {
      lines.push(`cpu,host=h${i % 50} usage=${i}`)
    } else {
      lines.push(`cpu,host=h${i % 50},region=r${i % 3} usage=${i / 10},n=${i}i,s="v${i % 7}" ${1_700_000_000_000 + i}`)
    }
  }
  return lines.join('\r\n') + '\n'
}

describe('line-protocol parse workers', () => {
  it('deliver what parsing on the main thread delivers, and replay it', async () => {
    const body = bigBody()
    const parser = new LineProtoParser()
    const want = await collect((onPoint, onError) =>
      forEachLineSlice(Buffer.from(body), (slice, offset) => {
        parser.parse(slice, onPoint, onError, offset)
      }),
    )
    pool = createLineProtoWorkers(2, logger)
    const parsed = pool.parse(Buffer.from(body))
    const source = parsed.source()
    const got = await collect(source)
    expect(got.points.length).toBe(39_997)
    expect(got.errors.map((e) => e.line)).toEqual([1, 17_002, 40_000])
    expect(got).toEqual(want)
    // the workers did parse it (a pool falling back to the main thread would deliver the same points)
    expect(parsed.workerSlices).toBeGreaterThan(1)
    // a schema change under pass 1 runs the source again
    expect(await collect(source)).toEqual(want)
  })

  it('with the slices share, encode the first part here beside the worker, as slices the lane takes', async () => {
    const body = bigBody()
    const want = await collect((onPoint, onError) => {
      new LineProtoParser().parse(body, onPoint, onError)
    })
    const slabs = new BodyPool(4 * 1024 * 1024, 4)
    const lease = slabs.lease(Buffer.byteLength(body))
    lease.bytes.write(body)
    pool = createLineProtoWorkers(1, logger)
    const parsed = pool.parse(lease.bytes, 'slices', lease)
    const slices = await parsed.allSlices()
    // two parts, each with the dictionary of whoever encoded it: this thread and the worker
    expect(new Set(slices?.map((s) => s.series)).size).toBe(2)
    const decoded = await collect((onPoint, onError) => {
      for (const s of slices ?? []) {
        decodeSlice(s, onPoint, onError)
      }
    })
    expect(decoded).toEqual(want)
    expect(await collect(parsed.source())).toEqual(want)
    // this thread and the worker let go of the body; the request holds the last lease
    lease.release()
    expect(slabs.idleSlabs).toBe(1)
  })

  it('spread concurrent bodies over the workers and keep them apart', async () => {
    pool = createLineProtoWorkers(2, logger)
    const bodies = Array.from({ length: 6 }, (_, k) => Array.from({ length: 3000 }, (_, i) => `m${k},t=${i % 9} v=${k * 10_000 + i} ${i}`).join('\n'))
    const parsed = bodies.map((b) => pool!.parse(Buffer.from(b)))
    const results = await Promise.all(parsed.map((p) => collect(p.source())))
    expect(parsed.every((p) => p.workerSlices > 0)).toBe(true)
    results.forEach((r, k) => {
      expect(r.points.length).toBe(3000)
      expect(r.points.every(([, p]) => p.measurement === `m${k}`)).toBe(true)
      expect(r.points[2999][1].fields[0].value).toBe(k * 10_000 + 2999)
    })
  })

  it('an empty body is no points', async () => {
    pool = createLineProtoWorkers(1, logger)
    expect(await collect(pool.parse(Buffer.alloc(0)).source())).toEqual({ points: [], errors: [] })
  })

  it('closing fails pending bodies and refuses new ones', async () => {
    pool = createLineProtoWorkers(1, logger)
    const pending = expect(collect(pool.parse(Buffer.from(bigBody() + bigBody())).source())).rejects.toThrow(/closed/)
    await pool.close()
    await pending
    expect(() => pool!.parse(Buffer.from('m v=1'))).toThrow(/closed/)
  })

  it('workers that cannot start cost no write: their bodies are parsed here, and every later one', async () => {
    const logged: string[] = []
    const spy = pino({ level: 'error' }, { write: (line: string) => void logged.push(line) })
    pool = createLineProtoWorkers(1, spy, { workerSource: 'throw new Error("no worker here")' })
    const body = bigBody()
    const want = await collect((onPoint, onError) => {
      new LineProtoParser().parse(body, onPoint, onError)
    })
    expect(await collect(pool.parse(Buffer.from(body)).source())).toEqual(want)
    const here = pool.parse(Buffer.from(body), 'points')
    expect(await collect(here.source())).toEqual(want)
    expect(here.workerSlices).toBe(0)
    expect(logged.filter((l) => l.includes('cannot start'))).toHaveLength(1)
  })

  it('read a body in shared memory where it is, and let go of its lease when they are done', async () => {
    const text = bigBody()
    const want = await collect((onPoint, onError) => {
      new LineProtoParser().parse(text, onPoint, onError)
    })
    const slabs = new BodyPool(4 * 1024 * 1024, 4)
    pool = createLineProtoWorkers(2, logger)
    for (let round = 0; round < 3; round++) {
      const lease = slabs.lease(Buffer.byteLength(text))
      lease.bytes.write(text)
      const parsed = pool.parse(lease.bytes, 'none', lease)
      expect(await collect(parsed.source())).toEqual(want)
      expect(parsed.workerSlices).toBeGreaterThan(1)
      // the workers released their holds with their last slices; the request holds the last one
      expect(slabs.idleSlabs).toBe(0)
      lease.release()
      // the same slab serves every round
      expect(slabs.idleSlabs).toBe(1)
      // and is overwritten by the next body: what was parsed from it must not change
      lease.bytes.fill(0x20)
      expect(await collect(parsed.source())).toEqual(want)
    }
  })

  it('a worker that cannot start lets go of the shared body, which is parsed here from the same memory', async () => {
    const slabs = new BodyPool()
    pool = createLineProtoWorkers(1, logger, { workerSource: 'throw new Error("no worker here")' })
    const text = 'm v=1 1\nm v=2 2'
    const lease = slabs.lease(text.length)
    lease.bytes.write(text)
    const got = await collect(pool.parse(lease.bytes, 'none', lease).source())
    expect(got.points.map(([, p]) => p.fields[0].value)).toEqual([1, 2])
    lease.release()
    expect(slabs.idleSlabs).toBe(1)
  })

  it('lineproto.parseWorkers: -1 is one per extra core, at most 4', () => {
    expect(parseWorkerCount(-1, 1)).toBe(0)
    expect(parseWorkerCount(-1, 2)).toBe(1)
    expect(parseWorkerCount(-1, 64)).toBe(4)
    expect(parseWorkerCount(0, 64)).toBe(0)
    expect(parseWorkerCount(3, 1)).toBe(3)
  })
})

describe('splitBody', () => {
  it('cuts after newlines into parts of at least MIN_PART_BYTES and counts the lines before each', () => {
    const body = Buffer.from(Array.from({ length: 10_000 }, (_, i) => `m v=${i} ${i}`).join('\n'))
    const parts = splitBody(body, 3)
    expect(parts.length).toBe(Math.min(3, Math.floor(body.length / MIN_PART_BYTES)))
    expect(parts[0].start).toBe(0)
    expect(parts[parts.length - 1].end).toBe(body.length)
    for (let k = 1; k < parts.length; k++) {
      expect(parts[k].start).toBe(parts[k - 1].end)
      expect(body[parts[k].start - 1]).toBe(10)
      const before = body.subarray(0, parts[k].start).toString().split('\n').length - 1
      expect(parts[k].lineOffset).toBe(before)
    }
    expect(splitBody(Buffer.from('m v=1\nm v=2'), 4)).toEqual([{ start: 0, end: 11, lineOffset: 0 }])
    expect(splitBody(Buffer.alloc(0), 2)).toEqual([{ start: 0, end: 0, lineOffset: 0 }])
  })
})
