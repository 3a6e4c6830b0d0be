/**
 * Parsed line protocol in a form that crosses threads cheaply: the parse workers
 * (parse-worker.ts) encode it here, the main thread turns it back into points for the schemaless
 * core (slice-decoder.ts) or hands it to the columnar lane. The format: SliceMessage in ../types.ts.
 *
 * Structured cloning a million small point objects would cost the main thread more than parsing
 * them, so a slice of parsed lines is a few typed arrays (transferred, not copied) plus the
 * strings no typed array can hold. Series (measurement + tag set) and field shapes (names and
 * types) repeat from line to line and from body to body, so each side keeps a dictionary and
 * a slice carries only the ids and the entries the receiver has not seen yet.
 */
import type { Field, Point } from '../point.js'
import type { Rejection, SliceMessage } from '../types.js'
import { ownedString } from '../../owned-string.js'
import { lineSlices } from '../slices.js'
import type { LineProtoParser } from './parse.js'
import { PlainLineReader, fastKinds, type Shape } from './plain-line.js'
import { SliceBuilder } from './slice-builder.js'

/** Dictionary entries after which a worker restarts its dictionaries, at the next slice (bounded memory). */
const MAX_DICTIONARY_ENTRIES = 100_000

/**
 * A body is encoded in slices of about this many bytes (by a worker, or by the main thread for its
 * share): ~1000 gen_lp-sized lines, a few messages per 5000-line body, each well under a
 * millisecond of work on either side
 */
const WORKER_SLICE_BYTES = 64 * 1024

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

/** Worker side: collects the points of one slice and the dictionary entries they need. */
export class SliceEncoder extends SliceBuilder {
  /** `maxEntries`: dictionary size that restarts the dictionaries (small in tests) */
  constructor(private readonly maxEntries = MAX_DICTIONARY_ENTRIES) {
    super()
  }

  private readonly seriesIds = new Map<string, number>()
  private readonly shapeIds = new Map<string, Shape>()
  private readonly plain = new PlainLineReader()
  private lastShape: Shape | undefined
  private entries = 0
  private reset = false

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
      this.plain.learn(raw, sid, shape)
    } else {
      const entry = this.plain.bySid[sid]
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
   * comments and bad lines included, goes to `parser` as before (plain-line.ts). Returns the
   * number of lines in `body`.
   */
  encode(body: string, parser: LineProtoParser, lineOffset: number): number {
    const onPoint = (p: Point, line: number): void => this.add(p, line, parser.seriesText())
    const onError = (e: Rejection): void => this.addError(e)
    const plain = this.plain
    const len = body.length
    let pos = 0
    let line = lineOffset
    while (pos < len) {
      let nl = body.indexOf('\n', pos)
      if (nl < 0) {
        nl = len
      }
      line++
      if (!plain.read(body, pos, nl, line, this)) {
        parser.parseSome(body, pos, nl, onPoint, onError, line - 1)
      }
      pos = nl + 1
    }
    parser.reset()
    return line - lineOffset
  }

  /** The slice so far (its buffers go in `transfer`), and a fresh one started. */
  take(job: number, done: boolean): { message: SliceMessage; transfer: ArrayBuffer[] } {
    const taken = this.takeSlice(job, done, this.reset)
    // only between slices: the points of a slice refer to the generation its entries belong to
    this.reset = this.entries >= this.maxEntries
    if (this.reset) {
      this.seriesIds.clear()
      this.shapeIds.clear()
      this.plain.clear()
      this.lastShape = undefined
      this.entries = 0
    }
    return taken
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
}
