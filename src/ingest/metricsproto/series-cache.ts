/**
 * @module
 * Remote write's process-wide series cache: a series' label bytes (as they lie in the request)
 * -> its child table, per database, looked up by the bytes' hash with a byte compare, so a known
 * series costs no string, no label decoding, sorting or MD5. Plus series key -> child name (MD5
 * per new series was the hot cost before the first cache existed). Both bounded, cleared whole
 * when full. Figures: bench/README.md (remote write).
 */
import type { StableInfo, TableInfo } from '../../storage/td-types.js'
import { seriesTableName } from './series.js'

/** bound of each cache below (entries), cleared whole when reached */
const CACHE_MAX = 200_000
/** and of the label bytes the keys hold: a memory budget of 256 MiB must not go to keys */
const CACHE_MAX_KEY_BYTES = 16 * 2 ** 20

/**
 * A child table's place in the request being resolved: `child` is valid while `stamp` is that
 * request's number. One per table object, shared by every key naming it, so two label orders of
 * one series land in one child without a map per request.
 */
export interface Slot {
  stamp: number
  child: number
}

/** the child table a series' label bytes resolved to */
export interface SeriesTarget {
  stable: StableInfo
  table: TableInfo
  /** the catalog version it was last found current at */
  checked: number
  slot: Slot
}

interface Entry {
  /** the label bytes, one char per byte (latin1) */
  key: string
  target: SeriesTarget
  /** the next entry of the same hash bucket */
  next: Entry | undefined
}

/** label bytes -> target of one database: buckets by hash, a byte compare within */
export class ByteKeyMap {
  private readonly buckets = new Map<number, Entry>()
  size = 0

  /** the target of the key at buf[from, to) with hash `hash` (keyHash) */
  get(hash: number, buf: Uint8Array, from: number, to: number): SeriesTarget | undefined {
    for (let e = this.buckets.get(hash & 0x3fffffff); e !== undefined; e = e.next) {
      if (sameBytes(e.key, buf, from, to)) {
        return e.target
      }
    }
    return undefined
  }

  /** sets the key's target; true when the key is new */
  set(hash: number, buf: Uint8Array, from: number, to: number, target: SeriesTarget): boolean {
    const b = hash & 0x3fffffff
    const head = this.buckets.get(b)
    for (let e = head; e !== undefined; e = e.next) {
      if (sameBytes(e.key, buf, from, to)) {
        e.target = target
        return false
      }
    }
    this.buckets.set(b, { key: Buffer.from(buf.buffer, buf.byteOffset + from, to - from).toString('latin1'), target, next: head })
    this.size++
    return true
  }

  clear(): void {
    this.buckets.clear()
    this.size = 0
  }
}

function sameBytes(key: string, buf: Uint8Array, from: number, to: number): boolean {
  if (key.length !== to - from) {
    return false
  }
  for (let i = 0; i < key.length; i++) {
    if (key.charCodeAt(i) !== buf[from + i]) {
      return false
    }
  }
  return true
}

export class SeriesCache {
  private readonly byDb = new Map<string, ByteKeyMap>()
  private size = 0
  private keyBytes = 0
  private nameBytes = 0
  private readonly slots = new WeakMap<TableInfo, Slot>()
  /** the last request's number (Slot.stamp) */
  private requests = 0
  readonly names = new Map<string, string>()

  targets(db: string): ByteKeyMap {
    let m = this.byDb.get(db)
    if (m === undefined) {
      m = new ByteKeyMap()
      this.byDb.set(db, m)
    }
    return m
  }

  /** a number for the next request's slots */
  nextRequest(): number {
    this.requests = (this.requests + 1) | 0
    return this.requests
  }

  /** the table object's slot (the catalog replaces a table's object on any change) */
  slotOf(table: TableInfo): Slot {
    let s = this.slots.get(table)
    if (s === undefined) {
      s = { stamp: 0, child: 0 }
      this.slots.set(table, s)
    }
    return s
  }

  remember(targets: ByteKeyMap, hash: number, buf: Uint8Array, from: number, to: number, target: SeriesTarget): void {
    if (this.size >= CACHE_MAX || this.keyBytes >= CACHE_MAX_KEY_BYTES) {
      for (const m of this.byDb.values()) {
        m.clear()
      }
      this.size = 0
      this.keyBytes = 0
    }
    if (targets.set(hash, buf, from, to, target)) {
      this.size++
      this.keyBytes += to - from
    }
  }

  nameOf(key: string): string {
    let name = this.names.get(key)
    if (name === undefined) {
      name = seriesTableName(key)
      if (this.names.size >= CACHE_MAX || this.nameBytes >= CACHE_MAX_KEY_BYTES) {
        this.names.clear()
        this.nameBytes = 0
      }
      this.names.set(key, name)
      this.nameBytes += key.length + name.length
    }
    return name
  }
}
