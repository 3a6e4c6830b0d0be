/**
 * Single DES (FIPS 46-3) in ECB mode, without padding.
 *
 * Why hand-written: the legacy `Authorization: Taosd <token>` scheme of TDengine encrypts the
 * credentials with DES-ECB under a fixed key, and the OpenSSL 3 build in Node 20 no longer offers
 * `des-ecb` (it sits in the legacy provider). The cipher is small and fully specified by its
 * tables, so a pure implementation is tested against the standard known-answer vectors.
 *
 * Blocks are handled as two 32-bit halves (unsigned numbers) to stay within JS bit operations.
 */

// Initial permutation, final permutation, expansion, P and the key schedule tables, 1-based bit
// positions counted from the most significant bit, exactly as printed in FIPS 46-3.
const IP = [
  58, 50, 42, 34, 26, 18, 10, 2, 60, 52, 44, 36, 28, 20, 12, 4, 62, 54, 46, 38, 30, 22, 14, 6, 64,
  56, 48, 40, 32, 24, 16, 8, 57, 49, 41, 33, 25, 17, 9, 1, 59, 51, 43, 35, 27, 19, 11, 3, 61, 53,
  45, 37, 29, 21, 13, 5, 63, 55, 47, 39, 31, 23, 15, 7,
]
const FP = [
  40, 8, 48, 16, 56, 24, 64, 32, 39, 7, 47, 15, 55, 23, 63, 31, 38, 6, 46, 14, 54, 22, 62, 30, 37,
  5, 45, 13, 53, 21, 61, 29, 36, 4, 44, 12, 52, 20, 60, 28, 35, 3, 43, 11, 51, 19, 59, 27, 34, 2,
  42, 10, 50, 18, 58, 26, 33, 1, 41, 9, 49, 17, 57, 25,
]
const E = [
  32, 1, 2, 3, 4, 5, 4, 5, 6, 7, 8, 9, 8, 9, 10, 11, 12, 13, 12, 13, 14, 15, 16, 17, 16, 17, 18,
  19, 20, 21, 20, 21, 22, 23, 24, 25, 24, 25, 26, 27, 28, 29, 28, 29, 30, 31, 32, 1,
]
const P = [
  16, 7, 20, 21, 29, 12, 28, 17, 1, 15, 23, 26, 5, 18, 31, 10, 2, 8, 24, 14, 32, 27, 3, 9, 19, 13,
  30, 6, 22, 11, 4, 25,
]
const PC1 = [
  57, 49, 41, 33, 25, 17, 9, 1, 58, 50, 42, 34, 26, 18, 10, 2, 59, 51, 43, 35, 27, 19, 11, 3, 60,
  52, 44, 36, 63, 55, 47, 39, 31, 23, 15, 7, 62, 54, 46, 38, 30, 22, 14, 6, 61, 53, 45, 37, 29, 21,
  13, 5, 28, 20, 12, 4,
]
const PC2 = [
  14, 17, 11, 24, 1, 5, 3, 28, 15, 6, 21, 10, 23, 19, 12, 4, 26, 8, 16, 7, 27, 20, 13, 2, 41, 52,
  31, 37, 47, 55, 30, 40, 51, 45, 33, 48, 44, 49, 39, 56, 34, 53, 46, 42, 50, 36, 29, 32,
]
const SHIFTS = [1, 1, 2, 2, 2, 2, 2, 2, 1, 2, 2, 2, 2, 2, 2, 1]
const SBOX = [
  [
    14, 4, 13, 1, 2, 15, 11, 8, 3, 10, 6, 12, 5, 9, 0, 7, 0, 15, 7, 4, 14, 2, 13, 1, 10, 6, 12, 11,
    9, 5, 3, 8, 4, 1, 14, 8, 13, 6, 2, 11, 15, 12, 9, 7, 3, 10, 5, 0, 15, 12, 8, 2, 4, 9, 1, 7, 5,
    11, 3, 14, 10, 0, 6, 13,
  ],
  [
    15, 1, 8, 14, 6, 11, 3, 4, 9, 7, 2, 13, 12, 0, 5, 10, 3, 13, 4, 7, 15, 2, 8, 14, 12, 0, 1, 10,
    6, 9, 11, 5, 0, 14, 7, 11, 10, 4, 13, 1, 5, 8, 12, 6, 9, 3, 2, 15, 13, 8, 10, 1, 3, 15, 4, 2,
    11, 6, 7, 12, 0, 5, 14, 9,
  ],
  [
    10, 0, 9, 14, 6, 3, 15, 5, 1, 13, 12, 7, 11, 4, 2, 8, 13, 7, 0, 9, 3, 4, 6, 10, 2, 8, 5, 14, 12,
    11, 15, 1, 13, 6, 4, 9, 8, 15, 3, 0, 11, 1, 2, 12, 5, 10, 14, 7, 1, 10, 13, 0, 6, 9, 8, 7, 4,
    15, 14, 3, 11, 5, 2, 12,
  ],
  [
    7, 13, 14, 3, 0, 6, 9, 10, 1, 2, 8, 5, 11, 12, 4, 15, 13, 8, 11, 5, 6, 15, 0, 3, 4, 7, 2, 12, 1,
    10, 14, 9, 10, 6, 9, 0, 12, 11, 7, 13, 15, 1, 3, 14, 5, 2, 8, 4, 3, 15, 0, 6, 10, 1, 13, 8, 9,
    4, 5, 11, 12, 7, 2, 14,
  ],
  [
    2, 12, 4, 1, 7, 10, 11, 6, 8, 5, 3, 15, 13, 0, 14, 9, 14, 11, 2, 12, 4, 7, 13, 1, 5, 0, 15, 10,
    3, 9, 8, 6, 4, 2, 1, 11, 10, 13, 7, 8, 15, 9, 12, 5, 6, 3, 0, 14, 11, 8, 12, 7, 1, 14, 2, 13, 6,
    15, 0, 9, 10, 4, 5, 3,
  ],
  [
    12, 1, 10, 15, 9, 2, 6, 8, 0, 13, 3, 4, 14, 7, 5, 11, 10, 15, 4, 2, 7, 12, 9, 5, 6, 1, 13, 14,
    0, 11, 3, 8, 9, 14, 15, 5, 2, 8, 12, 3, 7, 0, 4, 10, 1, 13, 11, 6, 4, 3, 2, 12, 9, 5, 15, 10,
    11, 14, 1, 7, 6, 0, 8, 13,
  ],
  [
    4, 11, 2, 14, 15, 0, 8, 13, 3, 12, 9, 7, 5, 10, 6, 1, 13, 0, 11, 7, 4, 9, 1, 10, 14, 3, 5, 12,
    2, 15, 8, 6, 1, 4, 11, 13, 12, 3, 7, 14, 10, 15, 6, 8, 0, 5, 9, 2, 6, 11, 13, 8, 1, 4, 10, 7, 9,
    5, 0, 15, 14, 2, 3, 12,
  ],
  [
    13, 2, 8, 4, 6, 15, 11, 1, 10, 9, 3, 14, 5, 0, 12, 7, 1, 15, 13, 8, 10, 3, 7, 4, 12, 5, 6, 11,
    0, 14, 9, 2, 7, 11, 4, 1, 9, 12, 14, 2, 0, 6, 10, 13, 15, 3, 5, 8, 2, 1, 14, 7, 4, 10, 8, 13,
    15, 12, 9, 0, 3, 5, 6, 11,
  ],
]

/** Bit `pos` (1-based from the most significant bit) of a 64-bit value split into hi/lo words. */
function bit64(hi: number, lo: number, pos: number): number {
  return pos <= 32 ? (hi >>> (32 - pos)) & 1 : (lo >>> (64 - pos)) & 1
}

/** Applies a permutation table to a 64-bit value (hi/lo) producing up to 64 bits as hi/lo. */
function permute64(hi: number, lo: number, table: number[]): [number, number] {
  let oh = 0
  let ol = 0
  const n = table.length
  for (let i = 0; i < n; i++) {
    const b = bit64(hi, lo, table[i])
    if (i < 32) {
      oh = ((oh << 1) | b) >>> 0
    } else {
      ol = ((ol << 1) | b) >>> 0
    }
  }
  // Left-align outputs shorter than 64 bits (PC1 gives 56, PC2 is handled separately).
  if (n < 64 && n > 32) {
    ol = (ol << (64 - n)) >>> 0
  }
  return [oh, ol]
}

/** The 16 round keys, each 48 bits held as two 24-bit numbers [hi24, lo24]. */
function keySchedule(key: Uint8Array): Array<[number, number]> {
  if (key.length !== 8) {
    throw new Error(`DES key must be 8 bytes, got ${key.length}`)
  }
  const khi = ((key[0] << 24) | (key[1] << 16) | (key[2] << 8) | key[3]) >>> 0
  const klo = ((key[4] << 24) | (key[5] << 16) | (key[6] << 8) | key[7]) >>> 0
  // PC1 -> 56 bits as C (28) and D (28).
  const bits: number[] = PC1.map((p) => bit64(khi, klo, p))
  let c = 0
  let d = 0
  for (let i = 0; i < 28; i++) {
    c = (c << 1) | bits[i]
    d = (d << 1) | bits[28 + i]
  }
  const keys: Array<[number, number]> = []
  const mask28 = 0x0fffffff
  for (let round = 0; round < 16; round++) {
    const s = SHIFTS[round]
    c = ((c << s) | (c >>> (28 - s))) & mask28
    d = ((d << s) | (d >>> (28 - s))) & mask28
    // PC2 selects 48 of the 56 bits of C||D (positions 1..28 in C, 29..56 in D).
    let hi = 0
    let lo = 0
    for (let i = 0; i < 48; i++) {
      const p = PC2[i]
      const b = p <= 28 ? (c >>> (28 - p)) & 1 : (d >>> (56 - p)) & 1
      if (i < 24) {
        hi = (hi << 1) | b
      } else {
        lo = (lo << 1) | b
      }
    }
    keys.push([hi, lo])
  }
  return keys
}

/** The cipher function f(R, K): expansion, key mix, S-boxes, permutation P. */
function feistel(r: number, k: [number, number]): number {
  // Expand R to 48 bits as two 24-bit halves, XOR with the round key.
  let eh = 0
  let el = 0
  for (let i = 0; i < 48; i++) {
    const b = (r >>> (32 - E[i])) & 1
    if (i < 24) {
      eh = (eh << 1) | b
    } else {
      el = (el << 1) | b
    }
  }
  eh ^= k[0]
  el ^= k[1]
  let out = 0
  for (let s = 0; s < 8; s++) {
    const six = s < 4 ? (eh >>> (18 - 6 * s)) & 0x3f : (el >>> (18 - 6 * (s - 4))) & 0x3f
    const row = ((six & 0x20) >>> 4) | (six & 1)
    const col = (six >>> 1) & 0xf
    out = (out << 4) | SBOX[s][row * 16 + col]
  }
  out >>>= 0
  let p = 0
  for (let i = 0; i < 32; i++) {
    p = ((p << 1) | ((out >>> (32 - P[i])) & 1)) >>> 0
  }
  return p
}

function cryptBlock(
  block: Uint8Array,
  offset: number,
  keys: Array<[number, number]>,
  decrypt: boolean,
  out: Uint8Array,
): void {
  const hi =
    ((block[offset] << 24) |
      (block[offset + 1] << 16) |
      (block[offset + 2] << 8) |
      block[offset + 3]) >>>
    0
  const lo =
    ((block[offset + 4] << 24) |
      (block[offset + 5] << 16) |
      (block[offset + 6] << 8) |
      block[offset + 7]) >>>
    0
  let [l, r] = permute64(hi, lo, IP)
  for (let round = 0; round < 16; round++) {
    const k = keys[decrypt ? 15 - round : round]
    const next = (l ^ feistel(r, k)) >>> 0
    l = r
    r = next
  }
  // The last round is not swapped: the pre-output block is R16 || L16.
  const [oh, ol] = permute64(r, l, FP)
  out[offset] = oh >>> 24
  out[offset + 1] = (oh >>> 16) & 0xff
  out[offset + 2] = (oh >>> 8) & 0xff
  out[offset + 3] = oh & 0xff
  out[offset + 4] = ol >>> 24
  out[offset + 5] = (ol >>> 16) & 0xff
  out[offset + 6] = (ol >>> 8) & 0xff
  out[offset + 7] = ol & 0xff
}

function ecb(key: Uint8Array, data: Uint8Array, decrypt: boolean): Uint8Array {
  if (data.length % 8 !== 0) {
    throw new Error(`DES-ECB input must be a multiple of 8 bytes, got ${data.length}`)
  }
  const keys = keySchedule(key)
  const out = new Uint8Array(data.length)
  for (let off = 0; off < data.length; off += 8) {
    cryptBlock(data, off, keys, decrypt, out)
  }
  return out
}

/** DES-ECB encryption of whole 8-byte blocks (no padding). */
export function desEcbEncrypt(key: Uint8Array, plaintext: Uint8Array): Uint8Array {
  return ecb(key, plaintext, false)
}

/** DES-ECB decryption of whole 8-byte blocks (no padding). */
export function desEcbDecrypt(key: Uint8Array, ciphertext: Uint8Array): Uint8Array {
  return ecb(key, ciphertext, true)
}
