import { deflatePart, type DeflatedPart } from '../../http/gzip-parts.js'
import { putUtcTimestamp } from './timestamps.js'

/**
 * The body under construction, as UTF-8 bytes. Values are written straight into a byte buffer:
 * building one JS string per chunk from many small pieces and then UTF-8-encoding it cost more
 * than formatting the values themselves.
 */
export class JsonBytes {
  #buf: Uint8Array
  #pos = 0
  readonly #encoder = new TextEncoder()

  constructor(readonly capacity = 64 * 1024) {
    this.#buf = new Uint8Array(capacity)
  }

  get length(): number {
    return this.#pos
  }

  /** The bytes written so far deflated (gzip-parts.ts); the writer continues in the same buffer. */
  deflate(): DeflatedPart {
    const part = deflatePart(this.#buf.subarray(0, this.#pos))
    this.#pos = 0
    return part
  }

  /** The bytes written so far; the writer continues in a fresh buffer (the old one is handed off). */
  take(): Uint8Array {
    const out = this.#buf.subarray(0, this.#pos)
    this.#buf = new Uint8Array(Math.max(this.capacity, this.#pos))
    this.#pos = 0
    return out
  }

  #reserve(n: number): Uint8Array {
    if (this.#pos + n > this.#buf.length) {
      const next = new Uint8Array(Math.max(this.#buf.length * 2, this.#pos + n))
      next.set(this.#buf.subarray(0, this.#pos))
      this.#buf = next
    }
    return this.#buf
  }

  byte(b: number): void {
    this.#reserve(1)[this.#pos++] = b
  }

  /** Room for `n` more bytes: write them into the returned buffer from `length` on, then `advance`. */
  room(n: number): Uint8Array {
    return this.#reserve(n)
  }

  /** Commits the bytes written into `room`'s buffer up to `pos`. */
  advance(pos: number): void {
    this.#pos = pos
  }

  /** Any string, UTF-8 encoded (a plain loop while it is ASCII, which is nearly always). */
  text(s: string): void {
    const n = s.length
    const buf = this.#reserve(n)
    let pos = this.#pos
    for (let i = 0; i < n; i++) {
      const ch = s.charCodeAt(i)
      if (ch >= 0x80) {
        this.#pos = pos
        this.#utf8(s.slice(i))
        return
      }
      buf[pos++] = ch
    }
    this.#pos = pos
  }

  #utf8(s: string): void {
    const buf = this.#reserve(s.length * 3)
    this.#pos += this.#encoder.encodeInto(s, buf.subarray(this.#pos)).written
  }

  /** A UTC TIMESTAMP's text (see putUtcTimestamp) with one capacity check. */
  utcClock(prefix: Uint8Array, secondOfDay: number, fraction: number, width: number): void {
    const buf = this.#reserve(prefix.length + 11 + width)
    this.#pos = putUtcTimestamp(buf, this.#pos, prefix, secondOfDay, fraction, width)
  }
}
