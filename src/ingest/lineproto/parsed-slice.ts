/**
 * Parsed line protocol in a form that crosses threads cheaply: the parse workers
 * (parse-worker.ts) send it, the main thread turns it back into points for the schemaless core.
 *
 * Structured cloning a million small point objects would cost the main thread more than parsing
 * them, so a slice of parsed lines is a few typed arrays (transferred, not copied) plus the
 * strings no typed array can hold. Series (measurement + tag set) and field shapes (names and
 * types) repeat from line to line and from body to body, so each side keeps a dictionary and
 * a slice carries only the ids and the entries the receiver has not seen yet.
 */
import type { Rejection } from '../schemaless/schemaless.js'
import { seriesKeyOf, type Field, type FieldType, type Point } from '../point.js'
import { ownedString } from '../../owned-string.js'

/** Dictionary entries after which a worker restarts its dictionaries, at the next slice (bounded memory). */
const MAX_DICTIONARY_ENTRIES = 100_000

export const TS_NONE = 0
export const TS_NUMBER = 1
export const TS_BIGINT = 2

/** One parsed slice of a body, as posted by a worker. */
export interface SliceMessage {
  job: number
  /** the last slice of the job */
  done: boolean
  /** the worker's dictionaries were emptied before this slice's new entries */
  reset: boolean
  /** new series: id, measurement, tags in the order sent */
  newSeries: Array<[number, string, Array<[string, string]>]>
  /** new field shapes: id, names, types */
  newShapes: Array<[number, string[], FieldType[]]>
  /** points in this slice */
  count: number
  series: Int32Array
  shapes: Int32Array
  lines: Int32Array
  /** TS_NONE | TS_NUMBER (value in tsNum) | TS_BIGINT (value in tsBig: beyond 2^53, e.g. ns) */
  tsKind: Uint8Array
  tsNum: Float64Array
  tsBig: BigInt64Array
  /** values of number and BOOL fields (1/0), in point and field order */
  nums: Float64Array
  /** values of BIGINT and BIGINT UNSIGNED fields */
  bigs: bigint[]
  /** values of VARCHAR and NCHAR fields */
  strs: string[]
  errors: Rejection[]
  /** set when the worker failed on this job (not a bad line: a bug or a crash) */
  failure?: string
}

/** The per-point arrays of a slice, `cap` points long. */
function pointArrays(cap: number): Pick<SliceMessage, 'series' | 'shapes' | 'lines' | 'tsKind' | 'tsNum' | 'tsBig'> {
  return {
    series: new Int32Array(cap),
    shapes: new Int32Array(cap),
    lines: new Int32Array(cap),
    tsKind: new Uint8Array(cap),
    tsNum: new Float64Array(cap),
    tsBig: new BigInt64Array(cap),
  }
}

interface Shape {
  id: number
  names: string[]
  types: FieldType[]
}

/** Worker side: collects the points of one slice and the dictionary entries they need. */
export class SliceEncoder {
  /** `maxEntries`: dictionary size that restarts the dictionaries (small in tests) */
  constructor(private readonly maxEntries = MAX_DICTIONARY_ENTRIES) {}

  private readonly seriesIds = new Map<string, number>()
  private readonly shapeIds = new Map<string, Shape>()
  private lastShape: Shape | undefined
  private entries = 0
  private reset = false
  private newSeries: SliceMessage['newSeries'] = []
  private newShapes: SliceMessage['newShapes'] = []
  private count = 0
  private points = pointArrays(256)
  private nums = new Float64Array(256)
  private numCount = 0
  private bigs: bigint[] = []
  private strs: string[] = []
  private errors: Rejection[] = []

  /** Adds a parsed point; `seriesText` is the raw measurement and tag set (LineProtoParser.seriesText). */
  add(p: Point, line: number, seriesText: string): void {
    const n = this.count
    if (n === this.points.series.length) {
      this.grow()
    }
    const a = this.points
    let sid = this.seriesIds.get(seriesText)
    if (sid === undefined) {
      sid = this.seriesIds.size
      this.seriesIds.set(ownedString(seriesText), sid)
      this.entries++
      this.newSeries.push([sid, p.measurement, p.tags.map(([k, v]): [string, string] => [k, v])])
    }
    a.series[n] = sid
    const fields = p.fields
    a.shapes[n] = this.shapeOf(fields).id
    a.lines[n] = line
    const ts = p.ts
    if (ts === null) {
      a.tsKind[n] = TS_NONE
    } else {
      const t = Number(ts)
      if (Number.isSafeInteger(t)) {
        a.tsKind[n] = TS_NUMBER
        a.tsNum[n] = t
      } else {
        a.tsKind[n] = TS_BIGINT
        a.tsBig[n] = ts
      }
    }
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i]
      const v = f.value
      if (typeof v === 'number') {
        this.pushNum(v)
      } else if (typeof v === 'boolean') {
        this.pushNum(v ? 1 : 0)
      } else if (typeof v === 'bigint') {
        this.bigs.push(v)
      } else {
        this.strs.push(v)
      }
    }
    this.count = n + 1
  }

  addError(e: Rejection): void {
    this.errors.push({ line: e.line, message: e.message })
  }

  /** The slice so far (its buffers go in `transfer`), and a fresh one started. */
  take(job: number, done: boolean): { message: SliceMessage; transfer: ArrayBuffer[] } {
    const message: SliceMessage = {
      job,
      done,
      reset: this.reset,
      newSeries: this.newSeries,
      newShapes: this.newShapes,
      count: this.count,
      ...this.points,
      nums: this.nums,
      bigs: this.bigs,
      strs: this.strs,
      errors: this.errors,
    }
    const cap = Math.max(256, this.count)
    // only between slices: the points of a slice refer to the generation its entries belong to
    this.reset = this.entries >= this.maxEntries
    if (this.reset) {
      this.seriesIds.clear()
      this.shapeIds.clear()
      this.lastShape = undefined
      this.entries = 0
    }
    this.newSeries = []
    this.newShapes = []
    this.count = 0
    this.points = pointArrays(cap)
    this.nums = new Float64Array(Math.max(256, this.numCount))
    this.numCount = 0
    this.bigs = []
    this.strs = []
    this.errors = []
    const transfer = [message.series, message.shapes, message.lines, message.tsKind, message.tsNum, message.tsBig, message.nums].map(
      (a) => a.buffer as ArrayBuffer,
    )
    return { message, transfer }
  }

  private shapeOf(fields: Field[]): Shape {
    const last = this.lastShape
    if (last !== undefined && last.names.length === fields.length) {
      let same = true
      for (let i = 0; i < fields.length; i++) {
        if (last.names[i] !== fields[i].name || last.types[i] !== fields[i].type) {
          same = false
          break
        }
      }
      if (same) {
        return last
      }
    }
    let key = ''
    for (const f of fields) {
      key += `${f.name.length}:${f.name}${f.type};`
    }
    let shape = this.shapeIds.get(key)
    if (shape === undefined) {
      shape = { id: this.shapeIds.size, names: fields.map((f) => f.name), types: fields.map((f) => f.type) }
      this.shapeIds.set(key, shape)
      this.entries++
      this.newShapes.push([shape.id, shape.names, shape.types])
    }
    this.lastShape = shape
    return shape
  }

  private pushNum(v: number): void {
    if (this.numCount === this.nums.length) {
      const next = new Float64Array(this.nums.length * 2)
      next.set(this.nums)
      this.nums = next
    }
    this.nums[this.numCount++] = v
  }

  private grow(): void {
    const old = this.points
    const next = pointArrays(old.series.length * 2)
    next.series.set(old.series)
    next.shapes.set(old.shapes)
    next.lines.set(old.lines)
    next.tsKind.set(old.tsKind)
    next.tsNum.set(old.tsNum)
    next.tsBig.set(old.tsBig)
    this.points = next
  }
}

export interface SeriesDef {
  measurement: string
  tags: Array<[string, string]>
  key: string
}

export interface ShapeDef {
  /** reused field objects, filled for each point */
  slots: Field[]
  kinds: Uint8Array
}

export const KIND_NUM = 0
export const KIND_BOOL = 1
export const KIND_BIG = 2
const KIND_STR = 3
/** a value of each kind's type, for field slots before their first point */
const KIND_INITIAL = [0, false, 0n, '']

/** Which value stream a field type's values travel in. */
function kindOf(type: FieldType): number {
  switch (type) {
    case 'BOOL':
      return KIND_BOOL
    case 'BIGINT':
    case 'BIGINT UNSIGNED':
      return KIND_BIG
    case 'VARCHAR':
    case 'NCHAR':
      return KIND_STR
    default:
      return KIND_NUM
  }
}

/** A slice with the dictionaries its ids refer to (captured when it arrived). */
export interface ReceivedSlice {
  message: SliceMessage
  series: SeriesDef[]
  shapes: ShapeDef[]
}

/**
 * Main-thread side of one worker's dictionaries. `receive` must see that worker's messages in the
 * order they were posted (as a worker port delivers them); decoding may happen later, and more
 * than once, because each slice keeps the dictionary generation it was sent in.
 */
export class SliceDictionary {
  private series: SeriesDef[] = []
  private shapes: ShapeDef[] = []

  receive(message: SliceMessage): ReceivedSlice {
    if (message.reset) {
      // earlier slices keep the arrays they captured
      this.series = []
      this.shapes = []
    }
    for (const [id, measurement, tags] of message.newSeries) {
      this.series[id] = { measurement, tags, key: seriesKeyOf(tags) }
    }
    for (const [id, names, types] of message.newShapes) {
      const kinds = new Uint8Array(types.length)
      const slots = names.map((name, i) => {
        const type = types[i]
        kinds[i] = kindOf(type)
        return { name, type, value: KIND_INITIAL[kinds[i]] } as Field
      })
      this.shapes[id] = { slots, kinds }
    }
    return { message, series: this.series, shapes: this.shapes }
  }
}

/**
 * Hands a received slice's points and rejections to the schemaless core's callbacks, as the
 * parser itself would. The point is reused from one call to the next (the parsers' contract).
 */
export function decodeSlice(
  slice: ReceivedSlice,
  onPoint: (p: Point, line: number) => void,
  onError: (e: Rejection) => void,
): void {
  const m = slice.message
  for (const e of m.errors) {
    onError(e)
  }
  const p: Point = { measurement: '', tags: [], fields: [], ts: null, seriesKey: undefined }
  let num = 0
  let big = 0
  let str = 0
  let lastTsNum = NaN
  let lastTs = 0n
  for (let i = 0; i < m.count; i++) {
    const def = slice.series[m.series[i]]
    const shape = slice.shapes[m.shapes[i]]
    p.measurement = def.measurement
    p.tags = def.tags
    p.seriesKey = def.key
    const slots = shape.slots
    const kinds = shape.kinds
    for (let f = 0; f < slots.length; f++) {
      const slot = slots[f] as { value: unknown }
      switch (kinds[f]) {
        case KIND_NUM:
          slot.value = m.nums[num++]
          break
        case KIND_BOOL:
          slot.value = m.nums[num++] !== 0
          break
        case KIND_BIG:
          slot.value = m.bigs[big++]
          break
        default:
          slot.value = m.strs[str++]
      }
    }
    p.fields = slots
    const kind = m.tsKind[i]
    if (kind === TS_NONE) {
      p.ts = null
    } else if (kind === TS_NUMBER) {
      const t = m.tsNum[i]
      // time-major bodies repeat one timestamp for many series: one bigint for all of them
      if (t !== lastTsNum) {
        lastTsNum = t
        lastTs = BigInt(t)
      }
      p.ts = lastTs
    } else {
      p.ts = m.tsBig[i]
    }
    onPoint(p, m.lines[i])
  }
}
