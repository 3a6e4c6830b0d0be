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
import { endianness } from 'node:os'
import { ownedString } from '../../owned-string.js'
import { lineSlices } from '../slices.js'
import { fastDecimal, parseTimestamp, sameText, seriesTextHash, smallInteger, type LineProtoParser } from './parse.js'

/** Dictionary entries after which a worker restarts its dictionaries, at the next slice (bounded memory). */
const MAX_DICTIONARY_ENTRIES = 100_000

/**
 * A body is encoded in slices of about this many bytes (by a worker, or by the main thread for its
 * share): ~1000 gen_lp-sized lines, a few messages per 5000-line body, each well under a
 * millisecond of work on either side
 */
const WORKER_SLICE_BYTES = 64 * 1024

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
  /**
   * values of BIGINT and BIGINT UNSIGNED fields as 64-bit patterns, in point and field order (an
   * unsigned value from 2^63 up reads negative here: its field's type says how to read it). A
   * typed array, not bigints: a TSBS body's 50,000 integer values took ~7 ms to post as an array
   * of bigints and ~0.5 ms as this
   */
  bigs: BigInt64Array
  /** values of VARCHAR and NCHAR fields */
  strs: string[]
  errors: Rejection[]
  /** set when the worker failed on this job (not a bad line: a bug or a crash) */
  failure?: string
}

/** Which 32-bit half of a 64-bit integer comes first in memory on this machine */
const LOW = endianness() === 'LE' ? 0 : 1
const HIGH = 1 - LOW

/** A 64-bit integer array's memory as 32-bit halves. */
export function halvesOf(a: BigInt64Array | BigUint64Array): Int32Array {
  return new Int32Array(a.buffer, a.byteOffset, a.length * 2)
}

/** Writes integer `v` (|v| <= 2^53) as element k of the 64-bit array whose halves are `halves`. */
export function setInt64(halves: Int32Array, k: number, v: number): void {
  const high = Math.floor(v / 4294967296)
  // (Int32Array stores take the low 32 bits of each half)
  halves[2 * k + LOW] = v - high * 4294967296
  halves[2 * k + HIGH] = high
}

/**
 * Encodes a body (or a part of one, `lineOffset` lines into the body) slice by slice, as the
 * messages to hand on: about WORKER_SLICE_BYTES each, the last one done; an empty body is one
 * empty, done slice. A slice is encoded only when the next one is asked for, so the caller may
 * give the event loop a turn in between.
 */
export function* encodeSlices(
  body: Uint8Array,
  lineOffset: number,
  parser: LineProtoParser,
  encoder: SliceEncoder,
  job: number,
): Generator<{ message: SliceMessage; transfer: ArrayBuffer[] }> {
  if (body.length === 0) {
    yield encoder.take(job, true)
    return
  }
  for (const { slice, lineOffset: at, last } of lineSlices(body, WORKER_SLICE_BYTES)) {
    encoder.encode(slice, parser, lineOffset + at)
    yield encoder.take(job, last)
  }
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
  /** per field FAST_DOUBLE or FAST_BIGINT when encode() can read this shape's lines itself, else undefined */
  fast: Uint8Array | undefined
}

const FAST_DOUBLE = 0
const FAST_BIGINT = 1

/** A series the encoder has an id for, as encode() finds it: by seriesTextHash of its raw text. */
interface FastSeries {
  raw: string
  sid: number
  /** the field shape of the series' latest point */
  shape: Shape
  /** the series of the plain line that came after this one's last time */
  next: FastSeries | undefined
}

/** encode() reads a shape's lines itself when all its fields are DOUBLE or BIGINT and its names read the same escaped or not. */
function fastKinds(names: string[], types: FieldType[]): Uint8Array | undefined {
  const kinds = new Uint8Array(types.length)
  for (let i = 0; i < types.length; i++) {
    if (types[i] !== 'DOUBLE' && types[i] !== 'BIGINT') {
      return undefined
    }
    if (/[\\ ,=]/.test(names[i])) {
      return undefined
    }
    kinds[i] = types[i] === 'DOUBLE' ? FAST_DOUBLE : FAST_BIGINT
  }
  return kinds
}

const SPACE = 32
const COMMA = 44
const EQUALS = 61
const BACKSLASH = 92

/** Worker side: collects the points of one slice and the dictionary entries they need. */
export class SliceEncoder {
  /** `maxEntries`: dictionary size that restarts the dictionaries (small in tests) */
  constructor(private readonly maxEntries = MAX_DICTIONARY_ENTRIES) {}

  private readonly seriesIds = new Map<string, number>()
  private readonly shapeIds = new Map<string, Shape>()
  /** the series of seriesIds by seriesTextHash of their raw text (a colliding second one is left out), and by id */
  private readonly fastSeries = new Map<number, FastSeries>()
  private fastBySid: Array<FastSeries | undefined> = []
  /** the series of the last line plainLine read, whose `next` predicts the next line's */
  private lastPlain: FastSeries | undefined
  /** one line's values, kept until the whole line has been read (encode) */
  private lineNums = new Float64Array(16)
  private lastShape: Shape | undefined
  private entries = 0
  private reset = false
  private newSeries: SliceMessage['newSeries'] = []
  private newShapes: SliceMessage['newShapes'] = []
  private count = 0
  private points = pointArrays(256)
  private nums = new Float64Array(256)
  private numCount = 0
  private bigs = new BigInt64Array(256)
  /** the same memory as 32-bit halves (pushSafeInteger) */
  private bigHalves = halvesOf(this.bigs)
  private bigCount = 0
  private strs: string[] = []
  private errors: Rejection[] = []

  /** Adds a parsed point; `seriesText` is the raw measurement and tag set (LineProtoParser.seriesText). */
  add(p: Point, line: number, seriesText: string): void {
    let sid = this.seriesIds.get(seriesText)
    const fields = p.fields
    const shape = this.shapeOf(fields)
    if (sid === undefined) {
      sid = this.seriesIds.size
      const raw = ownedString(seriesText)
      this.seriesIds.set(raw, sid)
      this.entries++
      this.newSeries.push([sid, p.measurement, p.tags.map(([k, v]): [string, string] => [k, v])])
      const h = seriesTextHash(raw, 0, raw.length)
      if (!this.fastSeries.has(h)) {
        const entry: FastSeries = { raw, sid, shape, next: undefined }
        this.fastSeries.set(h, entry)
        this.fastBySid[sid] = entry
      }
    } else {
      const entry = this.fastBySid[sid]
      if (entry !== undefined) {
        entry.shape = shape
      }
    }
    const n = this.row(sid, shape.id, line)
    this.setTs(n, p.ts)
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i]
      const v = f.value
      if (typeof v === 'number') {
        this.pushNum(v)
      } else if (typeof v === 'boolean') {
        this.pushNum(v ? 1 : 0)
      } else if (typeof v === 'bigint') {
        this.pushBig(v)
      } else {
        this.strs.push(v)
      }
    }
    this.count = n + 1
  }

  /**
   * Parses the lines of `body` (a slice of a request body, `lineOffset` lines into it) into this
   * slice: what `parser.parse` with `add` would, faster. Agents send the same series with the same
   * fields body after body; a line whose series text this encoder already has an id for, whose
   * fields are that series' last shape (DOUBLE and BIGINT fields only), written plainly (one space
   * between sections, decimals without exponent, `i` integers of up to 15 digits), is read here
   * straight into the slice, without a point, tag list or series key. Any other line, blank lines,
   * comments and bad lines included, goes to `parser` as before. Measured on gen_lp bodies in one
   * thread: 0.28-0.29 instead of 0.48-0.60 us a line. Returns the number of lines in `body`.
   */
  encode(body: string, parser: LineProtoParser, lineOffset: number): number {
    const onPoint = (p: Point, line: number): void => this.add(p, line, parser.seriesText())
    const onError = (e: Rejection): void => this.addError(e)
    const len = body.length
    let pos = 0
    let line = lineOffset
    while (pos < len) {
      let nl = body.indexOf('\n', pos)
      if (nl < 0) {
        nl = len
      }
      line++
      if (!this.plainLine(body, pos, nl, line)) {
        parser.parseSome(body, pos, nl, onPoint, onError, line - 1)
      }
      pos = nl + 1
    }
    parser.reset()
    return line - lineOffset
  }

  /** Adds body[pos, nl) when it is a plain line of a known series and shape (see encode); else false, having added nothing. */
  private plainLine(s: string, pos: number, nl: number, line: number): boolean {
    const sp = s.indexOf(' ', pos)
    if (sp <= pos || sp >= nl) {
      return false
    }
    // Agents send their series in the same order body after body, so the series that followed
    // the last line's the last time is tried first: a match needs no hash and no lookup (in one
    // thread, gen_lp lines 0.24-0.27 instead of 0.29-0.33 us, TSBS lines with 190 characters of
    // tags 1.6-1.8 instead of 2.1-2.2 us). A prediction is a series a plain line matched, so
    // its text has no backslash, and neither has a line that matches it.
    let entry = this.lastPlain?.next
    if (entry === undefined || !sameText(entry.raw, s, pos, sp)) {
      entry = this.hashedSeries(s, pos, sp)
      if (entry === undefined) {
        return false
      }
    }
    const kinds = entry.shape.fast
    if (kinds === undefined) {
      return false
    }
    const names = entry.shape.names
    const nf = names.length
    if (this.lineNums.length < nf) {
      this.lineNums = new Float64Array(nf * 2)
    }
    let i = sp + 1
    let c = -1
    for (let f = 0; f < nf; f++) {
      const name = names[f]
      const nameEnd = i + name.length
      if (nameEnd >= nl) {
        return false
      }
      for (let q = 0; q < name.length; q++) {
        if (name.charCodeAt(q) !== s.charCodeAt(i + q)) {
          return false
        }
      }
      if (s.charCodeAt(nameEnd) !== EQUALS) {
        return false
      }
      const v = nameEnd + 1
      i = v
      c = i < nl ? s.charCodeAt(i) : -1
      if (c === 45 || c === 43) {
        i++
      }
      let digits = 0
      let dot = false
      while (i < nl) {
        c = s.charCodeAt(i)
        if (c >= 48 && c <= 57) {
          digits++
        } else if (c === 46 && !dot) {
          dot = true
        } else {
          break
        }
        i++
      }
      if (digits === 0 || digits > 15) {
        return false
      }
      if (kinds[f] === FAST_BIGINT) {
        if (dot || i >= nl || s.charCodeAt(i) !== 105 /* i */) {
          return false
        }
        // at most 15 digits: exact as a number, written as its 64 bits without a bigint
        this.lineNums[f] = smallInteger(s, v, i)
        i++
      } else {
        if (i - v > 16) {
          return false
        }
        this.lineNums[f] = fastDecimal(s, v, i, true) as number
      }
      c = i < nl ? s.charCodeAt(i) : -1
      if (f < nf - 1 ? c !== COMMA : c !== SPACE && c !== -1) {
        return false
      }
      i++
    }
    // the timestamp, after one space, or none (null); a number when it has at most 15 digits
    let ts: bigint | number | null = null
    if (c === SPACE) {
      let k = i
      const neg = k < nl && s.charCodeAt(k) === 45
      if (neg) {
        k++
      }
      const first = k
      let acc = 0
      for (; k < nl; k++) {
        const d = s.charCodeAt(k)
        if (d < 48 || d > 57) {
          return false
        }
        acc = acc * 10 + (d - 48)
      }
      const digits = k - first
      if (digits === 0 || digits > 19) {
        return false
      }
      if (digits <= 15) {
        ts = neg && acc !== 0 ? -acc : acc
      } else {
        try {
          ts = parseTimestamp(s, i, nl)
        } catch {
          return false // out of range: the parser says so
        }
      }
    }
    if (this.lastPlain !== undefined) {
      this.lastPlain.next = entry
    }
    this.lastPlain = entry
    const n = this.row(entry.sid, entry.shape.id, line)
    this.setTs(n, ts)
    for (let f = 0; f < nf; f++) {
      if (kinds[f] === FAST_BIGINT) {
        this.pushSafeInteger(this.lineNums[f])
      } else {
        this.pushNum(this.lineNums[f])
      }
    }
    this.count = n + 1
    return true
  }

  /** The series whose raw text is s[pos, sp), found by its hash; undefined when none or when a backslash may escape the space at sp. */
  private hashedSeries(s: string, pos: number, sp: number): FastSeries | undefined {
    // seriesTextHash(s, pos, sp), computed in the same pass that looks for a backslash: 0.29
    // instead of 0.32 us a gen_lp line as two calls
    let h = sp - pos
    for (let k = pos; k < sp; k++) {
      const c = s.charCodeAt(k)
      if (c === BACKSLASH) {
        return undefined
      }
      h = (Math.imul(h, 31) + c) | 0
    }
    const entry = this.fastSeries.get(h)
    return entry !== undefined && sameText(entry.raw, s, pos, sp) ? entry : undefined
  }

  /** Starts row `count` (growing the arrays when full): its series, shape and line; returns its index. */
  private row(sid: number, shape: number, line: number): number {
    const n = this.count
    if (n === this.points.series.length) {
      this.grow()
    }
    const a = this.points
    a.series[n] = sid
    a.shapes[n] = shape
    a.lines[n] = line
    return n
  }

  /** Row n's timestamp: none, a safe integer as a number (as given, or from the bigint), else the bigint. */
  private setTs(n: number, ts: bigint | number | null): void {
    const a = this.points
    if (ts === null) {
      a.tsKind[n] = TS_NONE
      return
    }
    const t = typeof ts === 'number' ? ts : Number(ts)
    if (Number.isSafeInteger(t)) {
      a.tsKind[n] = TS_NUMBER
      a.tsNum[n] = t
    } else {
      a.tsKind[n] = TS_BIGINT
      a.tsBig[n] = BigInt(ts)
    }
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
      this.fastSeries.clear()
      this.fastBySid = []
      this.lastPlain = undefined
      this.lastShape = undefined
      this.entries = 0
    }
    this.newSeries = []
    this.newShapes = []
    this.count = 0
    this.points = pointArrays(cap)
    this.nums = new Float64Array(Math.max(256, this.numCount))
    this.numCount = 0
    this.bigs = new BigInt64Array(Math.max(256, this.bigCount))
    this.bigHalves = halvesOf(this.bigs)
    this.bigCount = 0
    this.strs = []
    this.errors = []
    const transfer = [message.series, message.shapes, message.lines, message.tsKind, message.tsNum, message.tsBig, message.nums, message.bigs].map(
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
      const names = fields.map((f) => f.name)
      const types = fields.map((f) => f.type)
      shape = { id: this.shapeIds.size, names, types, fast: fastKinds(names, types) }
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

  /** Stores a BIGINT or BIGINT UNSIGNED value's 64 bits (the typed array wraps an unsigned one from 2^63 up). */
  private pushBig(v: bigint): void {
    this.roomForBig()
    this.bigs[this.bigCount++] = v
  }

  /** Stores an integer of at most 2^53 in magnitude as 64 bits, in two 32-bit halves: no bigint is made. */
  private pushSafeInteger(v: number): void {
    this.roomForBig()
    setInt64(this.bigHalves, this.bigCount++, v)
  }

  private roomForBig(): void {
    if (this.bigCount === this.bigs.length) {
      const next = new BigInt64Array(this.bigs.length * 2)
      next.set(this.bigs)
      this.bigs = next
      this.bigHalves = halvesOf(next)
    }
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
      const slot = slots[f] as { value: unknown; type: FieldType }
      switch (kinds[f]) {
        case KIND_NUM:
          slot.value = m.nums[num++]
          break
        case KIND_BOOL:
          slot.value = m.nums[num++] !== 0
          break
        case KIND_BIG:
          slot.value = slot.type === 'BIGINT UNSIGNED' ? BigInt.asUintN(64, m.bigs[big++]) : m.bigs[big++]
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
