import { randomBytes } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { crc32, gunzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { GzipAssembler, crc32Combine, deflatePart } from './gzip-parts.js'

function assemble(parts: Uint8Array[]): Buffer {
  const gz = new GzipAssembler()
  const out: Uint8Array[] = [gz.header()]
  for (const p of parts) {
    out.push(gz.add(deflatePart(p)))
  }
  out.push(gz.trailer())
  return Buffer.concat(out)
}

describe('crc32Combine', () => {
  it('equals the CRC of the concatenation', () => {
    for (const [a, b] of [
      [0, 0],
      [0, 1],
      [1, 0],
      [3, 5],
      [1000, 65_536],
      [70_000, 123_457],
    ]) {
      const x = randomBytes(a)
      const y = randomBytes(b)
      expect(crc32Combine(crc32(x), crc32(y), y.length)).toBe(crc32(Buffer.concat([x, y])))
    }
  })
})

describe('GzipAssembler', () => {
  it('makes one gzip stream from independently deflated parts', () => {
    const parts = [Buffer.from('{"code":0,"data":['), randomBytes(70_000), Buffer.alloc(0), Buffer.from('x'.repeat(200_000)), Buffer.from(']}')]
    const body = assemble(parts)
    expect(gunzipSync(body).equals(Buffer.concat(parts))).toBe(true)
  })

  it('reads back parts on both sides of the small-part window (4 KiB), repeats far apart included', () => {
    const unit = randomBytes(2_900)
    const parts = [4_095, 4_096, 4_097, 9_000].map((n) => Buffer.concat([unit, unit, unit, unit]).subarray(0, n))
    expect(gunzipSync(assemble(parts)).equals(Buffer.concat(parts))).toBe(true)
  })

  it('is an empty body when there are no parts', () => {
    expect(gunzipSync(assemble([])).length).toBe(0)
  })

  it('is read whole by gzip(1), which checks the CRC and length in the trailer', () => {
    const parts = Array.from({ length: 5 }, (_, i) => Buffer.from(`part ${i} `.repeat(10_000 * (i + 1))))
    const body = assemble(parts)
    const plain = execFileSync('gzip', ['-dc'], { input: body, maxBuffer: 64 * 1024 * 1024 })
    expect(plain.equals(Buffer.concat(parts))).toBe(true)
    // a wrong CRC is noticed, so the check above means something
    const broken = Buffer.from(body)
    broken[broken.length - 8] ^= 1
    expect(() => execFileSync('gzip', ['-dc'], { input: broken, maxBuffer: 64 * 1024 * 1024, stdio: ['pipe', 'pipe', 'ignore'] })).toThrow()
  })
})
