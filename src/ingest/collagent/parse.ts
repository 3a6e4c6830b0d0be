/**
 * @module
 * collectd's binary network protocol (what its `network` plugin sends over UDP), decoded into
 * points the way taosAdapter's collectd receiver stores them (adapter-behaviour 7):
 *
 * - one point per value of a value list, measurement `<plugin>_<dsname>` where dsname is `value`
 *   for single-value types and the value's index otherwise;
 * - tags `host`, `instance` (plugin instance), `type`, `type_instance`, each only when non-empty;
 * - one DOUBLE field `value`; time in nanoseconds (the packet's time, or now when it has none).
 *
 * A packet is a sequence of parts, each `type u16 BE, length u16 BE (header included), payload`.
 * String and time parts set state that later value parts use. Differences from the original:
 * ABSOLUTE values are read (as unsigned, like COUNTER) instead of failing the packet, and the
 * values before a malformed part are kept, with the error reported beside them.
 */
import type { Point } from '../point.js'

const PART_HOST = 0x0000
const PART_TIME = 0x0001
const PART_PLUGIN = 0x0002
const PART_PLUGIN_INSTANCE = 0x0003
const PART_TYPE = 0x0004
const PART_TYPE_INSTANCE = 0x0005
const PART_VALUES = 0x0006
const PART_INTERVAL = 0x0007
const PART_TIME_HR = 0x0008
const PART_INTERVAL_HR = 0x0009
const PART_ENCRYPTION = 0x0210

const DS_COUNTER = 0
const DS_GAUGE = 1
const DS_DERIVE = 2
const DS_ABSOLUTE = 3

const NS_PER_S = 1_000_000_000n
/** the last nanosecond a signed 64-bit timestamp holds */
const MAX_TIME_NS = 2n ** 63n - 1n

export interface CollectdPacket {
  points: Point[]
  /** values that were not stored: NaN or infinite (there is no column value for them) */
  skipped: number
  /** why decoding stopped early (the points before it are kept); undefined for a whole packet */
  error?: string
}

interface State {
  host: string
  plugin: string
  pluginInstance: string
  type: string
  typeInstance: string
  /** nanoseconds; 0n = none sent */
  time: bigint
}

const utf8 = new TextDecoder('utf-8', { fatal: false })

/**
 * Decodes one datagram. `nowNs` stamps value lists sent without a time. Never throws: a
 * malformed part ends decoding with `error` naming its byte offset and what was wrong.
 */
export function parseCollectdPacket(packet: Uint8Array, nowNs: bigint): CollectdPacket {
  const view = new DataView(packet.buffer, packet.byteOffset, packet.byteLength)
  const state: State = { host: '', plugin: '', pluginInstance: '', type: '', typeInstance: '', time: 0n }
  const out: CollectdPacket = { points: [], skipped: 0 }
  let off = 0
  while (off < packet.length) {
    if (packet.length - off < 4) {
      out.error = `byte ${off}: ${packet.length - off} byte(s) left, too few for a part header`
      return out
    }
    const type = view.getUint16(off)
    const len = view.getUint16(off + 2)
    if (len < 4) {
      out.error = `byte ${off}: part 0x${hex(type)} has length ${len}, shorter than its 4-byte header`
      return out
    }
    if (off + len > packet.length) {
      out.error = `byte ${off}: part 0x${hex(type)} of ${len} bytes runs past the end of the ${packet.length}-byte packet`
      return out
    }
    const start = off + 4
    const end = off + len
    let problem: string | undefined
    switch (type) {
      case PART_HOST:
      case PART_PLUGIN:
      case PART_PLUGIN_INSTANCE:
      case PART_TYPE:
      case PART_TYPE_INSTANCE: {
        if (end === start || packet[end - 1] !== 0) {
          problem = 'string is not NUL-terminated'
          break
        }
        const s = utf8.decode(packet.subarray(start, end - 1))
        if (type === PART_HOST) {
          state.host = s
        } else if (type === PART_PLUGIN) {
          state.plugin = s
        } else if (type === PART_PLUGIN_INSTANCE) {
          state.pluginInstance = s
        } else if (type === PART_TYPE) {
          state.type = s
        } else {
          state.typeInstance = s
        }
        break
      }
      case PART_TIME:
      case PART_TIME_HR:
      case PART_INTERVAL:
      case PART_INTERVAL_HR: {
        if (len !== 12) {
          problem = `numeric part must be 12 bytes, not ${len}`
          break
        }
        const v = view.getBigUint64(start)
        if (type === PART_TIME || type === PART_TIME_HR) {
          // TIME_HR is in 2^-30 s units
          const ns = type === PART_TIME ? v * NS_PER_S : (v * NS_PER_S) >> 30n
          if (ns > MAX_TIME_NS) {
            // storage would wrap it to a wrong time (2^40 s was stored as 1738): refused instead
            problem = `time ${ns / NS_PER_S} s is past the nanosecond timestamp range (2262-04-11)`
            break
          }
          state.time = ns
        }
        break
      }
      case PART_VALUES:
        problem = values(view, packet, start, end, state, nowNs, out)
        break
      case PART_ENCRYPTION:
        problem = 'encrypted part: send unencrypted packets (collectd network plugin SecurityLevel None)'
        break
      default:
        // signatures (0x0200: HMAC, data follows in the clear), notifications, newer parts
        break
    }
    if (problem !== undefined) {
      out.error = `byte ${off}: part 0x${hex(type)}: ${problem}`
      return out
    }
    off = end
  }
  return out
}

function values(view: DataView, packet: Uint8Array, start: number, end: number, s: State, nowNs: bigint, out: CollectdPacket): string | undefined {
  if (end - start < 2) {
    return 'values part without a value count'
  }
  const count = view.getUint16(start)
  if (end - start !== 2 + 9 * count) {
    return `${count} value(s) need ${4 + 2 + 9 * count} bytes, the part has ${end - start + 4}`
  }
  if (s.plugin === '') {
    return 'value list before any plugin part'
  }
  const tags: Array<[string, string]> = []
  if (s.host !== '') {
    tags.push(['host', s.host])
  }
  if (s.pluginInstance !== '') {
    tags.push(['instance', s.pluginInstance])
  }
  if (s.type !== '') {
    tags.push(['type', s.type])
  }
  if (s.typeInstance !== '') {
    tags.push(['type_instance', s.typeInstance])
  }
  const ts = s.time === 0n ? nowNs : s.time
  for (let i = 0; i < count; i++) {
    const kind = packet[start + 2 + i]
    const at = start + 2 + count + 8 * i
    let v: number
    switch (kind) {
      case DS_GAUGE:
        v = view.getFloat64(at, true)
        break
      case DS_COUNTER:
      case DS_ABSOLUTE:
        v = Number(view.getBigUint64(at))
        break
      case DS_DERIVE:
        v = Number(view.getBigInt64(at))
        break
      default:
        return `value ${i} has unknown data source type ${kind}`
    }
    if (!Number.isFinite(v)) {
      out.skipped++
      continue
    }
    out.points.push({
      measurement: `${s.plugin}_${count === 1 ? 'value' : String(i)}`,
      // one array for every value of the list: the schemaless core never changes a point's tags
      tags,
      fields: [{ name: 'value', type: 'DOUBLE', value: v }],
      ts,
    })
  }
  return undefined
}

function hex(n: number): string {
  return n.toString(16).padStart(4, '0')
}
