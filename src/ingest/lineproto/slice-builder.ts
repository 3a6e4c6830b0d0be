/**
 * The slice a SliceEncoder is filling (slice-encoder.ts; plain-line.ts writes into it too): the
 * per-point typed arrays, the value streams and the dictionary entries it carries, grown as
 * needed and handed over, transferable, by takeSlice.
 */
import type { Rejection, SliceMessage } from '../types.js'
import { TS_BIGINT, TS_NONE, TS_NUMBER, halvesOf, setInt64 } from './slice-format.js'

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

export class SliceBuilder {
  protected newSeries: SliceMessage['newSeries'] = []
  protected newShapes: SliceMessage['newShapes'] = []
  /** complete rows so far */
  count = 0
  private points = pointArrays(256)
  private nums = new Float64Array(256)
  private numCount = 0
  private bigs = new BigInt64Array(256)
  /** the same memory as 32-bit halves (pushSafeInteger) */
  private bigHalves = halvesOf(this.bigs)
  private bigCount = 0
  protected strs: string[] = []
  private errors: Rejection[] = []

  /** Starts row `count` (growing the arrays when full): its series, shape and line; returns its index. */
  row(sid: number, shape: number, line: number): number {
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
  setTs(n: number, ts: bigint | number | null): void {
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

  /** The slice so far (its buffers go in `transfer`), and a fresh one started; `reset` as SliceMessage.reset. */
  protected takeSlice(job: number, done: boolean, reset: boolean): { message: SliceMessage; transfer: ArrayBuffer[] } {
    const message: SliceMessage = {
      job,
      done,
      reset,
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

  pushNum(v: number): void {
    if (this.numCount === this.nums.length) {
      const next = new Float64Array(this.nums.length * 2)
      next.set(this.nums)
      this.nums = next
    }
    this.nums[this.numCount++] = v
  }

  /** Stores a BIGINT or BIGINT UNSIGNED value's 64 bits (the typed array wraps an unsigned one from 2^63 up). */
  pushBig(v: bigint): void {
    this.roomForBig()
    this.bigs[this.bigCount++] = v
  }

  /** Stores an integer of at most 2^53 in magnitude as 64 bits, in two 32-bit halves: no bigint is made. */
  pushSafeInteger(v: number): void {
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
