/**
 * @module
 * A remote-write WriteRequest read straight off its bytes for the write path: per series with
 * samples, where the raw bytes of its labels lie and a 32-bit hash of them (a series seen before
 * needs no label decoding, sorting or string key) and its samples in flat typed arrays, with no
 * object per label or sample.
 * Labels are decoded (`labelsOf`) only for series the caller does not know yet. Pure.
 *
 * The wire format is prompb's (remote-proto.ts): WriteRequest{timeseries=1, metadata=3},
 * TimeSeries{labels=1, samples=2, exemplars=3, histograms=4}, Label{name=1, value=2},
 * Sample{value=1 double, timestamp=2 int64}. Exemplars, histograms and metadata are stepped over.
 * A known field with another wire type, a truncated field or a varint of more than ten bytes is
 * a RemoteDecodeError naming it (as Prometheus' own gogoproto decoder refuses them).
 */
import type { Label } from './proto.js'
import { RemoteDecodeError } from './proto.js'

const WIRE_VARINT = 0
const WIRE_FIXED64 = 1
const WIRE_LEN = 2
const WIRE_START_GROUP = 3
const WIRE_END_GROUP = 4
const WIRE_FIXED32 = 5

/** What the write path needs of a WriteRequest: its series that carry samples, column-wise. */
export interface ScannedWrite {
  /** series with at least one sample (the others are not stored, so not resolved either) */
  count: number
  /**
   * per series: its key, the bytes of its label fields, at [keyFrom, keyTo) of `bytes` (equal
   * bytes, equal key), or of `joined` when its labels are not side by side (never so from
   * Prometheus); `hashes` their hash (keyHash)
   */
  keyFrom: Int32Array
  keyTo: Int32Array
  hashes: Int32Array
  joined: Map<number, Buffer> | undefined
  /** per series: where its TimeSeries message lies in `bytes` (for labelsOf) */
  starts: Int32Array
  ends: Int32Array
  /** per series: the end of its samples in `values` / `timestamps` (series i: [sampleEnds[i-1], sampleEnds[i])) */
  sampleEnds: Int32Array
  samples: number
  values: Float64Array
  /** ms since the epoch, as a number (int64 beyond 2^53 rounded, as the decoder always did) */
  timestamps: Float64Array
  metadataCount: number
  /** the decoded message */
  bytes: Buffer
}

/** A reader over one message's bytes; every read checks the bounds it was given. */
class Cursor {
  pos = 0
  end = 0

  constructor(readonly buf: Buffer) {}

  fail(what: string): never {
    throw new RemoteDecodeError(`remote write: not a valid protobuf WriteRequest (${what} at byte ${this.pos})`)
  }

  /** an unsigned varint of up to 49 bits as a number; longer ones (int64 beyond that, negatives) via bigint */
  varint(): number {
    const buf = this.buf
    let p = this.pos
    let v = 0
    let scale = 1
    for (let i = 0; i < 7; i++) {
      if (p >= this.end) {
        this.fail('truncated varint')
      }
      const b = buf[p++]
      v += (b & 0x7f) * scale
      if (b < 0x80) {
        this.pos = p
        return v
      }
      scale *= 128
    }
    return this.bigVarint()
  }

  /** a varint as int64 (two's complement), then a number: what protobufjs' Long and Number() gave */
  private bigVarint(): number {
    let p = this.pos
    let v = 0n
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (p >= this.end) {
        this.fail('truncated varint')
      }
      const b = this.buf[p++]
      v |= BigInt(b & 0x7f) << shift
      if (b < 0x80) {
        this.pos = p
        return Number(BigInt.asIntN(64, v))
      }
    }
    this.pos = p
    return this.fail('varint longer than 10 bytes')
  }

  /** a field's tag: field number << 3 | wire type */
  tag(): number {
    const t = this.varint()
    if (t > 0xffffffff || t < 0) {
      this.fail(`tag ${t}`)
    }
    return t
  }

  /** a length prefix, checked against what is left */
  length(): number {
    const n = this.varint()
    if (n > this.end - this.pos) {
      this.fail(`length ${n} past the end of its message`)
    }
    return n
  }

  /** steps over a field of an unknown number (its tag already read) */
  skip(wire: number, field: number): void {
    switch (wire) {
      case WIRE_VARINT:
        this.varint()
        return
      case WIRE_FIXED64:
        this.advance(8)
        return
      case WIRE_LEN:
        this.advance(this.length())
        return
      case WIRE_FIXED32:
        this.advance(4)
        return
      case WIRE_START_GROUP:
        for (;;) {
          const tag = this.tag()
          if ((tag & 7) === WIRE_END_GROUP) {
            if (tag >>> 3 !== field) {
              this.fail(`group ${field} ended as ${tag >>> 3}`)
            }
            return
          }
          this.skip(tag & 7, tag >>> 3)
        }
      default:
        this.fail(`wire type ${wire} of field ${field}`)
    }
  }

  advance(n: number): void {
    if (n > this.end - this.pos) {
      this.fail('truncated field')
    }
    this.pos += n
  }

  expect(wire: number, want: number, field: string): void {
    if (wire !== want) {
      this.fail(`${field} has wire type ${wire}, not ${want}`)
    }
  }
}

/** Grows a typed array to at least `need` items, keeping `used` of them. */
function grow<T extends Float64Array | Int32Array>(a: T, need: number, used: number): T {
  if (need <= a.length) {
    return a
  }
  const b = new (a.constructor as new (n: number) => T)(Math.max(need, a.length * 2))
  b.set(a.subarray(0, used))
  return b
}

/**
 * A 32-bit hash of buf[from, to), a series' key, computed in place with no string made: four
 * bytes a step (multiply and shift, as MurmurHash2 mixes), then the odd bytes, then a final mix.
 */
export function keyHash(buf: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5 ^ (to - from)
  let p = from
  for (; p + 4 <= to; p += 4) {
    h = Math.imul(h ^ (buf[p] | (buf[p + 1] << 8) | (buf[p + 2] << 16) | (buf[p + 3] << 24)), 0x5bd1e995)
    h ^= h >>> 15
  }
  for (; p < to; p++) {
    h = Math.imul(h ^ buf[p], 0x01000193)
  }
  h ^= h >>> 13
  h = Math.imul(h, 0x5bd1e995)
  return (h ^ (h >>> 15)) | 0
}

/** The bytes of series i's key (see ScannedWrite.keyFrom). */
export function keyBytes(scan: ScannedWrite, i: number): Buffer {
  return scan.joined?.get(i) ?? scan.bytes.subarray(scan.keyFrom[i], scan.keyTo[i])
}

/** The series and samples of a decoded (inflated) WriteRequest; RemoteDecodeError when it is not one. */
export function scanWriteRequest(bytes: Buffer): ScannedWrite {
  const c = new Cursor(bytes)
  c.end = bytes.length
  let joined: Map<number, Buffer> | undefined
  let keyFrom = new Int32Array(256)
  let keyTo = new Int32Array(256)
  let hashes = new Int32Array(256)
  let starts = new Int32Array(256)
  let ends = new Int32Array(256)
  let sampleEnds = new Int32Array(256)
  let values = new Float64Array(1024)
  let timestamps = new Float64Array(1024)
  let count = 0
  let samples = 0
  let metadataCount = 0
  while (c.pos < c.end) {
    const tag = c.tag()
    const field = tag >>> 3
    const wire = tag & 7
    if (field === 1) {
      c.expect(wire, WIRE_LEN, 'WriteRequest.timeseries')
      const len = c.length()
      const start = c.pos
      const end = start + len
      // one TimeSeries: the label fields' extent, then its samples
      const outer = c.end
      c.end = end
      let labelsFrom = -1
      let labelsTo = -1
      let split: Buffer[] | undefined
      const first = samples
      while (c.pos < end) {
        const at = c.pos
        const t = c.tag()
        const f = t >>> 3
        const w = t & 7
        if (f === 1) {
          c.expect(w, WIRE_LEN, 'TimeSeries.labels')
          c.advance(c.length())
          if (labelsFrom < 0) {
            labelsFrom = at
          } else if (labelsTo !== at || split !== undefined) {
            // labels not side by side (never so from Prometheus): the key is their bytes joined
            split ??= [bytes.subarray(labelsFrom, labelsTo)]
            split.push(bytes.subarray(at, c.pos))
          }
          labelsTo = c.pos
        } else if (f === 2) {
          c.expect(w, WIRE_LEN, 'TimeSeries.samples')
          const sEnd = c.length() + c.pos
          let value = 0
          let ts = 0
          const seriesEnd = c.end
          c.end = sEnd
          while (c.pos < sEnd) {
            const st = c.tag()
            if (st === 0x09) {
              c.advance(8)
              value = bytes.readDoubleLE(c.pos - 8)
            } else if (st === 0x10) {
              ts = c.varint()
            } else if (st >>> 3 === 1 || st >>> 3 === 2) {
              c.fail(`Sample.${st >>> 3 === 1 ? 'value' : 'timestamp'} has wire type ${st & 7}`)
            } else {
              c.skip(st & 7, st >>> 3)
            }
          }
          c.end = seriesEnd
          if (samples === values.length) {
            values = grow(values, samples + 1, samples)
            timestamps = grow(timestamps, samples + 1, samples)
          }
          values[samples] = value
          timestamps[samples] = ts
          samples++
        } else {
          c.skip(w, f)
        }
      }
      c.end = outer
      if (samples > first) {
        if (count === starts.length) {
          starts = grow(starts, count + 1, count)
          ends = grow(ends, count + 1, count)
          sampleEnds = grow(sampleEnds, count + 1, count)
          keyFrom = grow(keyFrom, count + 1, count)
          keyTo = grow(keyTo, count + 1, count)
          hashes = grow(hashes, count + 1, count)
        }
        if (split !== undefined) {
          const key = Buffer.concat(split)
          joined ??= new Map()
          joined.set(count, key)
          hashes[count] = keyHash(key, 0, key.length)
        } else if (labelsFrom >= 0) {
          keyFrom[count] = labelsFrom
          keyTo[count] = labelsTo
          hashes[count] = keyHash(bytes, labelsFrom, labelsTo)
        } else {
          keyFrom[count] = keyTo[count] = 0
          hashes[count] = keyHash(bytes, 0, 0)
        }
        starts[count] = start
        ends[count] = end
        sampleEnds[count] = samples
        count++
      }
    } else if (field === 3) {
      c.expect(wire, WIRE_LEN, 'WriteRequest.metadata')
      c.advance(c.length())
      metadataCount++
    } else {
      c.skip(wire, field)
    }
  }
  return { count, keyFrom, keyTo, hashes, joined, starts, ends, sampleEnds, samples, values, timestamps, metadataCount, bytes }
}

/** The labels of series `i` in wire order, decoded (names and values as UTF-8, missing ones ''). */
export function labelsOf(scan: ScannedWrite, i: number): Label[] {
  const c = new Cursor(scan.bytes)
  c.pos = scan.starts[i]
  c.end = scan.ends[i]
  const end = c.end
  const labels: Label[] = []
  while (c.pos < end) {
    const t = c.tag()
    if (t >>> 3 !== 1) {
      c.skip(t & 7, t >>> 3)
      continue
    }
    const lEnd = c.length() + c.pos
    c.end = lEnd
    let name = ''
    let value = ''
    while (c.pos < lEnd) {
      const lt = c.tag()
      const f = lt >>> 3
      if (f === 1 || f === 2) {
        c.expect(lt & 7, WIRE_LEN, f === 1 ? 'Label.name' : 'Label.value')
        const n = c.length()
        const s = scan.bytes.toString('utf8', c.pos, c.pos + n)
        c.pos += n
        if (f === 1) {
          name = s
        } else {
          value = s
        }
      } else {
        c.skip(lt & 7, f)
      }
    }
    c.end = end
    labels.push({ name, value })
  }
  return labels
}
