import type { DatabaseInfo } from '../storage/td-types.js'

/**
 * TDengine's deterministic vgroup assignment (sql-dialect.md section 10): MurmurHash3 x86 32-bit
 * with seed 0x12345678 over `"1.<db>.<table>"`, mapped onto the database's VGROUPS hash ranges.
 */

function rotl32(x: number, r: number): number {
  return (x << r) | (x >>> (32 - r))
}

/** MurmurHash3_x86_32 (Austin Appleby), unsigned result. */
export function murmur3_32(bytes: Uint8Array, seed = 0x12345678): number {
  const c1 = 0xcc9e2d51
  const c2 = 0x1b873593
  const len = bytes.length
  const nblocks = len >>> 2
  let h1 = seed | 0
  for (let i = 0; i < nblocks; i++) {
    const o = i * 4
    let k1 = bytes[o] | (bytes[o + 1] << 8) | (bytes[o + 2] << 16) | (bytes[o + 3] << 24)
    k1 = Math.imul(k1, c1)
    k1 = rotl32(k1, 15)
    k1 = Math.imul(k1, c2)
    h1 ^= k1
    h1 = rotl32(h1, 13)
    h1 = (Math.imul(h1, 5) + 0xe6546b64) | 0
  }
  const tail = nblocks * 4
  let k1 = 0
  const rem = len & 3
  if (rem === 3) {
    k1 ^= bytes[tail + 2] << 16
  }
  if (rem >= 2) {
    k1 ^= bytes[tail + 1] << 8
  }
  if (rem >= 1) {
    k1 ^= bytes[tail]
    k1 = Math.imul(k1, c1)
    k1 = rotl32(k1, 15)
    k1 = Math.imul(k1, c2)
    h1 ^= k1
  }
  h1 ^= len
  h1 ^= h1 >>> 16
  h1 = Math.imul(h1, 0x85ebca6b)
  h1 ^= h1 >>> 13
  h1 = Math.imul(h1, 0xc2b2ae35)
  h1 ^= h1 >>> 16
  return h1 >>> 0
}

const encoder = new TextEncoder()

/** The string TDengine hashes: `1.<db>.<table>`, trimmed by TABLE_PREFIX / TABLE_SUFFIX. */
function vgroupHashKey(db: DatabaseInfo, table: string): string {
  const prefix = Number(db.options.table_prefix ?? 0)
  const suffix = Number(db.options.table_suffix ?? 0)
  const full = `1.${db.name}.${table}`
  if ((prefix === 0 && suffix === 0) || prefix * suffix < 0) {
    return full
  }
  // the server applies prefix/suffix to the table part of the name
  const head = `1.${db.name}.`
  let part = table
  if (prefix > 0) {
    part = part.slice(prefix)
  } else if (prefix < 0) {
    part = part.slice(0, -prefix)
  }
  if (suffix > 0) {
    part = part.slice(0, Math.max(0, part.length - suffix))
  } else if (suffix < 0) {
    part = part.slice(Math.max(0, part.length + suffix))
  }
  return part.length === 0 ? full : head + part
}

/** Vgroup id of `table` in `db`: firstVgId + index of the hash range holding its hash. */
export function vgroupOf(db: DatabaseInfo, table: string): number {
  const h = murmur3_32(encoder.encode(vgroupHashKey(db, table)))
  const n = Math.max(1, db.vgroups)
  const step = Math.floor(0xffffffff / n)
  return db.firstVgId + Math.min(Math.floor(h / step), n - 1)
}
