/**
 * Main-thread side of parsed slices (slice-encoder.ts): each worker's dictionaries, and a slice's
 * points handed to the schemaless core as the parser itself would hand them.
 */
import { seriesKeyOf, type Field, type FieldType, type Point } from '../point.js'
import type { ReceivedSlice, Rejection, SeriesDef, ShapeDef, SliceMessage } from '../types.js'
import { KIND_BIG, KIND_BOOL, KIND_NUM, TS_NONE, TS_NUMBER, kindOf } from './slice-format.js'

/** a value of each kind's type, for field slots before their first point */
const KIND_INITIAL = [0, false, 0n, '']

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
