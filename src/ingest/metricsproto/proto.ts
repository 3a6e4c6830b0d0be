/**
 * Prometheus remote write / remote read wire format (prometheus/prompb remote.proto and
 * types.proto, transcribed in remote-proto.ts): a protobuf message in snappy block format (not
 * framed). Pure functions over bytes. Exemplars and native histograms are decoded but not stored;
 * only SAMPLES read responses are produced (no chunked streaming).
 */
import protobuf from 'protobufjs'
import type Long from 'long'
import { compressSync, uncompressSync } from 'snappy'
import { REMOTE_PROTO } from './remote-proto.js'

export interface Label {
  name: string
  value: string
}

export interface Sample {
  value: number
  /** ms since the epoch */
  timestamp: number
}

export interface TimeSeries {
  labels: Label[]
  samples: Sample[]
}

/** One MetricMetadata entry (prompb types.proto); type is MetricMetadata.MetricType's number. */
export interface MetricMetadata {
  type: number
  metricFamilyName: string
  help: string
  unit: string
}

export interface WriteRequest {
  timeseries: TimeSeries[]
  /** metadata entries (Prometheus sends metadata-only requests about once a minute) */
  metadataCount: number
}

export const MatchType = { EQ: 0, NEQ: 1, RE: 2, NRE: 3 } as const
export type MatchType = (typeof MatchType)[keyof typeof MatchType]

export interface LabelMatcher {
  type: MatchType
  name: string
  value: string
}

export interface Query {
  /** ms; bigint because Prometheus sends the whole int64 range for series lookups */
  startMs: bigint
  endMs: bigint
  matchers: LabelMatcher[]
}

export interface ReadRequest {
  queries: Query[]
  /** 0 SAMPLES, 1 STREAMED_XOR_CHUNKS; only SAMPLES is answered */
  acceptedResponseTypes: number[]
}

export interface QueryResult {
  timeseries: TimeSeries[]
}

/** A body that is not snappy, not the message, or not a valid one: the client's fault (400). */
export class RemoteDecodeError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'RemoteDecodeError'
  }
}

/**
 * The published message definitions (remote-proto.ts), parsed once at load; field names become
 * camelCase (startTimestampMs, metricFamilyName). Remote read requests decode through protobufjs'
 * generated decoders (and write requests in tests and benches; the write path scans the bytes
 * itself, write-scan.ts, checked against these decoders by its tests); the remote-read response, the one large message this adapter writes, is built by
 * hand (ReadResponseBuilder below) and checked against these definitions by the unit tests.
 */
export const remoteProtoRoot: protobuf.Root = protobuf.parse(REMOTE_PROTO, { keepCase: false }).root

const WriteRequestType = remoteProtoRoot.lookupType('prometheus.WriteRequest')
const ReadRequestType = remoteProtoRoot.lookupType('prometheus.ReadRequest')
const ReadResponseType = remoteProtoRoot.lookupType('prometheus.ReadResponse')

/**
 * A snappy body whose decoded size would pass the cap: refused from its preamble, before anything
 * is inflated (18 MB of snappy can announce 400 MB). HTTP answers 413.
 */
export class DecodedTooLarge extends Error {
  constructor(
    readonly decoded: number,
    readonly limit: number,
    what: string,
  ) {
    super(`${what}: snappy body decodes to ${decoded} bytes, over the cap of ${limit} bytes`)
    this.name = 'DecodedTooLarge'
  }
}

/**
 * The decoded length a snappy block announces in its preamble: a little-endian base-128 varint
 * of at most 32 bits (decoders check the output against it). Undefined when there is none.
 */
export function snappyDecodedLength(body: Uint8Array): number | undefined {
  let n = 0
  for (let i = 0; i < 5 && i < body.length; i++) {
    const b = body[i]
    n += (b & 0x7f) * 2 ** (7 * i)
    if ((b & 0x80) === 0) {
      return n <= 0xffffffff ? n : undefined
    }
  }
  return undefined
}

/** `body` inflated; past `maxDecoded` bytes (0 or less: no cap) refused before inflating. */
function unsnappy(body: Uint8Array, what: string, maxDecoded = 0): Buffer {
  const decoded = snappyDecodedLength(body)
  if (maxDecoded > 0 && decoded !== undefined && decoded > maxDecoded) {
    throw new DecodedTooLarge(decoded, maxDecoded, what)
  }
  try {
    return uncompressSync(body, { asBuffer: true }) as Buffer
  } catch (err) {
    throw new RemoteDecodeError(`${what}: body is not snappy block format (${err instanceof Error ? err.message : String(err)})`, { cause: err })
  }
}

function decodeMessage(type: protobuf.Type, bytes: Uint8Array, what: string): Record<string, unknown> {
  try {
    return type.decode(bytes) as unknown as Record<string, unknown>
  } catch (err) {
    throw new RemoteDecodeError(`${what}: not a valid protobuf ${type.name} (${err instanceof Error ? err.message : String(err)})`, { cause: err })
  }
}

/** int64 as protobufjs decodes it (a Long, or a number for small values) -> bigint */
function int64(v: unknown): bigint {
  if (typeof v === 'number') {
    return BigInt(v)
  }
  if (v === null || v === undefined) {
    return 0n
  }
  const l = v as Long
  return BigInt.asIntN(64, (BigInt(l.high >>> 0) << 32n) | BigInt(l.low >>> 0))
}

function toSeries(raw: { labels?: Label[]; samples?: { value?: number; timestamp?: unknown }[] }): TimeSeries {
  return {
    labels: (raw.labels ?? []).map((l) => ({ name: l.name ?? '', value: l.value ?? '' })),
    samples: (raw.samples ?? []).map((s) => ({ value: s.value ?? 0, timestamp: Number(int64(s.timestamp)) })),
  }
}

/** A remote-write body (snappy) -> the WriteRequest's bytes; decoded size capped at `maxDecoded` (0: none). */
export function inflateWriteRequest(body: Uint8Array, maxDecoded = 0): Buffer {
  return unsnappy(body, 'remote write', maxDecoded)
}

/** A remote-write body (snappy + WriteRequest) -> its series and samples; decoded size capped at `maxDecoded` (0: none). */
export function decodeWriteRequest(body: Uint8Array, maxDecoded = 0): WriteRequest {
  const m = decodeMessage(WriteRequestType, unsnappy(body, 'remote write', maxDecoded), 'remote write') as {
    timeseries?: Parameters<typeof toSeries>[0][]
    metadata?: unknown[]
  }
  return { timeseries: (m.timeseries ?? []).map(toSeries), metadataCount: m.metadata?.length ?? 0 }
}

/**
 * For tests and benchmarks: the body Prometheus would send for these series (and metadata
 * entries: Prometheus sends metadata-only requests, no timeseries, about once a minute).
 */
export function encodeWriteRequest(req: { timeseries: TimeSeries[]; metadata?: MetricMetadata[] }): Buffer {
  return compressSync(WriteRequestType.encode(WriteRequestType.fromObject(req)).finish())
}

/** A remote-read body (snappy + ReadRequest) -> its queries; decoded size capped at `maxDecoded` (0: none). */
export function decodeReadRequest(body: Uint8Array, maxDecoded = 0): ReadRequest {
  const m = decodeMessage(ReadRequestType, unsnappy(body, 'remote read', maxDecoded), 'remote read') as {
    queries?: { startTimestampMs?: unknown; endTimestampMs?: unknown; matchers?: { type?: number; name?: string; value?: string }[] }[]
    acceptedResponseTypes?: number[]
  }
  const queries = (m.queries ?? []).map((q, i) => ({
    startMs: int64(q.startTimestampMs),
    endMs: int64(q.endTimestampMs),
    matchers: (q.matchers ?? []).map((x, j) => {
      const type = x.type ?? 0
      if (type < 0 || type > 3) {
        throw new RemoteDecodeError(`remote read: query ${i} matcher ${j} (${x.name ?? ''}) has unknown type ${type}`)
      }
      return { type: type as MatchType, name: x.name ?? '', value: x.value ?? '' }
    }),
  }))
  return { queries, acceptedResponseTypes: m.acceptedResponseTypes ?? [] }
}

/** For tests and benchmarks: the body Prometheus would send for these queries. */
export function encodeReadRequest(req: ReadRequest): Buffer {
  const msg = {
    queries: req.queries.map((q) => ({
      startTimestampMs: q.startMs.toString(),
      endTimestampMs: q.endMs.toString(),
      matchers: q.matchers,
    })),
    acceptedResponseTypes: req.acceptedResponseTypes,
  }
  return compressSync(ReadRequestType.encode(ReadRequestType.fromObject(msg)).finish())
}

/** For tests: a response body -> its results. */
export function decodeReadResponse(body: Uint8Array): QueryResult[] {
  const m = decodeMessage(ReadResponseType, unsnappy(body, 'remote read response'), 'remote read response') as {
    results?: { timeseries?: Parameters<typeof toSeries>[0][] }[]
  }
  return (m.results ?? []).map((r) => ({ timeseries: (r.timeseries ?? []).map(toSeries) }))
}

/** A byte buffer that grows by doubling, for building one message. */
class Bytes {
  buf = Buffer.allocUnsafe(1024)
  len = 0

  private room(n: number): void {
    if (this.len + n > this.buf.length) {
      const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + n))
      this.buf.copy(next, 0, 0, this.len)
      this.buf = next
    }
  }

  byte(b: number): void {
    this.room(1)
    this.buf[this.len++] = b
  }

  /** an unsigned varint; int64 negatives are written as their 10-byte two's complement */
  varint(n: number): void {
    if (n < 0) {
      let v = BigInt.asUintN(64, BigInt(n))
      while (v >= 0x80n) {
        this.byte(Number(v & 0x7fn) | 0x80)
        v >>= 7n
      }
      this.byte(Number(v))
      return
    }
    while (n >= 0x80) {
      this.byte((n % 0x80) | 0x80)
      n = Math.floor(n / 0x80)
    }
    this.byte(n)
  }

  double(v: number): void {
    this.room(8)
    this.buf.writeDoubleLE(v, this.len)
    this.len += 8
  }

  bytes(b: Buffer, from = 0, to = b.length): void {
    this.room(to - from)
    b.copy(this.buf, this.len, from, to)
    this.len += to - from
  }

  /** field `key` (already shifted and typed) as a length-delimited copy of `body` */
  delimited(key: number, body: Bytes): void {
    this.byte(key)
    this.varint(body.len)
    this.bytes(body.buf, 0, body.len)
  }
}

/**
 * Builds a remote-read response series by series from streamed rows, so a read of a million
 * samples holds their ~16 bytes of protobuf each instead of several JS objects per sample.
 * Layout: ReadResponse.results(1) -> QueryResult.timeseries(1) -> TimeSeries{labels(1),
 * samples(2)}, Label{name(1), value(2)}, Sample{value(1) double, timestamp(2) int64}.
 * A series without samples is left out; every query gets its QueryResult, empty or not.
 */
export class ReadResponseBuilder {
  private readonly response = new Bytes()
  private query = new Bytes()
  private series = new Bytes()
  private readonly sampleBytes = new Bytes()
  private samples = 0

  beginSeries(labels: readonly Label[]): void {
    this.series.len = 0
    this.samples = 0
    const label = new Bytes()
    for (const l of labels) {
      label.len = 0
      const name = Buffer.from(l.name, 'utf8')
      const value = Buffer.from(l.value, 'utf8')
      label.byte(0x0a)
      label.varint(name.length)
      label.bytes(name)
      label.byte(0x12)
      label.varint(value.length)
      label.bytes(value)
      this.series.delimited(0x0a, label)
    }
  }

  sample(value: number, timestampMs: number): void {
    const s = this.sampleBytes
    s.len = 0
    s.byte(0x09)
    s.double(value)
    s.byte(0x10)
    s.varint(timestampMs)
    this.series.delimited(0x12, s)
    this.samples++
  }

  endSeries(): void {
    if (this.samples > 0) {
      this.query.delimited(0x0a, this.series)
    }
  }

  endQuery(): void {
    this.response.delimited(0x0a, this.query)
    this.query = new Bytes()
  }

  /** The response body: snappy block of the ReadResponse. */
  finish(): Buffer {
    return compressSync(this.response.buf.subarray(0, this.response.len))
  }
}
