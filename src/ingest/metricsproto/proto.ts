/**
 * Prometheus remote write / remote read wire format (prometheus/prompb remote.proto and
 * types.proto, transcribed in remote-proto.ts): a protobuf message in snappy block format (not
 * framed). Pure functions over bytes. Exemplars and native histograms are decoded but not stored;
 * only SAMPLES read responses are produced (read-response.ts; no STREAMED_XOR_CHUNKS).
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
 * hand (read-response.ts) and checked against these definitions by its unit tests.
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
