/**
 * @module
 * A remote-read answer (SAMPLES response type) built as snappy-compressed pieces while the rows
 * stream in. Prometheus needs the whole ReadResponse as ONE snappy block, and protobuf puts each
 * message's length before it, so nothing can be sent before the last row is read; what is held
 * meanwhile is the compressed answer (about 9 bytes a float sample) plus one 64 KiB staging
 * buffer, never the uncompressed message, a copy of it, or an object per sample.
 *
 * How: a snappy block is a varint of the decoded length followed by elements whose back
 * references stay within what the compressor saw, so blocks compressed separately concatenate
 * into one valid block once their own length prefixes are dropped and the total is put in front.
 * The few bytes whose values come last (a series' or a query's length prefix) are kept aside as
 * placeholders and written as literal elements at the end.
 *
 * Layout: ReadResponse.results(1) -> QueryResult.timeseries(1) -> TimeSeries{labels(1),
 * samples(2)}, Label{name(1), value(2)}, Sample{value(1) double, timestamp(2) int64}.
 */
import { compressSync } from 'snappy'
import type { Label } from './proto.js'

const STAGE = 64 * 1024
/** a sample: its key and length (2), the double (9), the timestamp's key and varint (at most 11) */
const MAX_SAMPLE = 22

/** The answer would decode past `limit` bytes: refused (HTTP 400), never sent cut short. */
export class ReadTooLarge extends Error {
  constructor(
    readonly limit: number,
    readonly samples: number,
  ) {
    super(`remote read: the answer passes ${limit} bytes (http.maxBodySize) after ${samples} samples; Prometheus needs it as one snappy block: narrow the time range or the matchers`)
    this.name = 'ReadTooLarge'
  }
}

/** a length prefix whose value is known only once what it measures is complete */
interface Placeholder {
  /** the bytes before the length (a field key) */
  key: number
  /** bytes after the length, already known (a series' labels) */
  after: Buffer | undefined
  /** the length; undefined until known */
  length: number | undefined
}

function varintSize(n: number): number {
  let size = 1
  while (n >= 0x80) {
    n = Math.floor(n / 0x80)
    size++
  }
  return size
}

/** `n` as an unsigned varint into `buf` at `at`; negatives as int64's 10-byte two's complement. Returns the next offset. */
function putVarint(buf: Buffer, at: number, n: number): number {
  if (n < 0) {
    let v = BigInt.asUintN(64, BigInt(n))
    while (v >= 0x80n) {
      buf[at++] = Number(v & 0x7fn) | 0x80
      v >>= 7n
    }
    buf[at++] = Number(v)
    return at
  }
  while (n >= 0x80) {
    buf[at++] = (n % 0x80) | 0x80
    n = Math.floor(n / 0x80)
  }
  buf[at++] = n
  return at
}

/** `bytes` compressed, without the block's own length prefix (its elements only). */
function elements(bytes: Buffer): Buffer {
  const block = compressSync(bytes) as Buffer
  let i = 0
  while (block[i] & 0x80) {
    i++
  }
  return block.subarray(i + 1)
}

/** `bytes` as one snappy literal element (tag and length, then the bytes). */
function literal(bytes: Buffer): Buffer {
  const n = bytes.length - 1
  const extra = n < 60 ? 0 : n < 0x100 ? 1 : n < 0x10000 ? 2 : n < 0x1000000 ? 3 : 4
  const out = Buffer.allocUnsafe(1 + extra + bytes.length)
  out[0] = (extra === 0 ? n : 59 + extra) << 2
  for (let k = 0; k < extra; k++) {
    out[1 + k] = (n >>> (8 * k)) & 0xff
  }
  bytes.copy(out, 1 + extra)
  return out
}

function encodeLabels(labels: readonly Label[]): Buffer {
  const parts: Buffer[] = []
  for (const l of labels) {
    const name = Buffer.from(l.name, 'utf8')
    const value = Buffer.from(l.value, 'utf8')
    const body = 2 + varintSize(name.length) + name.length + varintSize(value.length) + value.length
    const b = Buffer.allocUnsafe(1 + varintSize(body) + body)
    let at = 0
    b[at++] = 0x0a
    at = putVarint(b, at, body)
    b[at++] = 0x0a
    at = putVarint(b, at, name.length)
    at += name.copy(b, at)
    b[at++] = 0x12
    at = putVarint(b, at, value.length)
    value.copy(b, at)
    parts.push(b)
  }
  return Buffer.concat(parts)
}

/**
 * Builds one ReadResponse series by series from streamed rows. A series without samples is left
 * out; every query gets its QueryResult, empty or not. Past `limit` decoded bytes (0: none) it
 * throws ReadTooLarge.
 */
export class SnappyReadResponse {
  /** compressed elements and placeholders, in order */
  private readonly pieces: (Buffer | Placeholder)[] = []
  /** known bytes not compressed yet */
  private readonly stage = Buffer.allocUnsafe(STAGE)
  private staged = 0
  /** the current series' samples not compressed yet */
  private readonly series = Buffer.allocUnsafe(STAGE)
  private seriesStaged = 0
  private seriesBytes = 0
  private seriesSamples = 0
  private labels: Buffer = Buffer.alloc(0)
  /** the current series' length prefix once it outgrew `series` */
  private long: Placeholder | undefined
  private query: Placeholder | undefined
  private queryStart = 0
  /** decoded bytes so far (the limit's measure) */
  private total = 0
  private samples = 0

  constructor(private readonly limit = 0) {}

  /** the decoded size so far, in bytes */
  get decodedBytes(): number {
    return this.total
  }

  beginSeries(labels: readonly Label[]): void {
    this.openQuery()
    this.labels = encodeLabels(labels)
    this.seriesStaged = 0
    this.seriesBytes = 0
    this.seriesSamples = 0
    this.long = undefined
  }

  sample(value: number, timestampMs: number): void {
    if (this.seriesStaged + MAX_SAMPLE > STAGE) {
      this.spillSeries()
    }
    const b = this.series
    const from = this.seriesStaged
    let at = from
    b[at++] = 0x12
    at++ // the Sample's length, below
    b[at++] = 0x09
    b.writeDoubleLE(value, at)
    at += 8
    b[at++] = 0x10
    at = putVarint(b, at, timestampMs)
    b[from + 1] = at - from - 2
    this.seriesStaged = at
    this.seriesBytes += at - from
    this.seriesSamples++
    this.samples++
    this.grow(at - from)
  }

  endSeries(): void {
    if (this.seriesSamples === 0) {
      return
    }
    const length = this.labels.length + this.seriesBytes
    if (this.long !== undefined) {
      this.pieces.push(elements(this.series.subarray(0, this.seriesStaged)))
      this.long.length = length
      this.grow(1 + varintSize(length) + this.labels.length)
      this.long = undefined
      return
    }
    const head = Buffer.allocUnsafe(11)
    head[0] = 0x0a
    const n = putVarint(head, 1, length)
    this.put(head.subarray(0, n))
    this.put(this.labels)
    this.put(this.series.subarray(0, this.seriesStaged))
    this.grow(n + this.labels.length)
  }

  endQuery(): void {
    this.openQuery()
    this.flush()
    const q = this.query as Placeholder
    q.length = this.total - this.queryStart
    this.grow(1 + varintSize(q.length))
    this.query = undefined
  }

  /** The response body: one snappy block of the ReadResponse, in pieces to send in order. */
  finish(): Buffer[] {
    this.flush()
    const preamble = Buffer.allocUnsafe(10)
    const out: Buffer[] = [preamble.subarray(0, putVarint(preamble, 0, this.total))]
    for (const p of this.pieces) {
      if (Buffer.isBuffer(p)) {
        out.push(p)
        continue
      }
      const length = p.length ?? 0
      const head = Buffer.allocUnsafe(11 + (p.after?.length ?? 0))
      head[0] = p.key
      let at = putVarint(head, 1, length)
      if (p.after !== undefined) {
        at += p.after.copy(head, at)
      }
      out.push(literal(head.subarray(0, at)))
    }
    this.pieces.length = 0
    return out
  }

  private openQuery(): void {
    if (this.query === undefined) {
      this.flush()
      this.query = { key: 0x0a, after: undefined, length: undefined }
      this.pieces.push(this.query)
      this.queryStart = this.total
    }
  }

  /** the series' staged samples compressed; its length prefix becomes a placeholder first */
  private spillSeries(): void {
    if (this.long === undefined) {
      this.flush()
      this.long = { key: 0x0a, after: this.labels, length: undefined }
      this.pieces.push(this.long)
    }
    this.pieces.push(elements(this.series.subarray(0, this.seriesStaged)))
    this.seriesStaged = 0
  }

  /** known bytes into the stage, compressed whenever it fills */
  private put(bytes: Buffer): void {
    let from = 0
    while (from < bytes.length) {
      const n = Math.min(bytes.length - from, STAGE - this.staged)
      bytes.copy(this.stage, this.staged, from, from + n)
      this.staged += n
      from += n
      if (this.staged === STAGE) {
        this.flush()
      }
    }
  }

  private flush(): void {
    if (this.staged > 0) {
      this.pieces.push(elements(this.stage.subarray(0, this.staged)))
      this.staged = 0
    }
  }

  private grow(bytes: number): void {
    this.total += bytes
    if (this.limit > 0 && this.total > this.limit) {
      throw new ReadTooLarge(this.limit, this.samples)
    }
  }
}
