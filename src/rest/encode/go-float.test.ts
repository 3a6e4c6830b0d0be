import { describe, expect, it } from 'vitest'
import { formatFloat32, formatFloat64 } from './go-float.js'

describe('float formatting', () => {
  it('FLOAT prints the shortest float32 round-trip', () => {
    expect(formatFloat32(Math.fround(10.3))).toBe('10.3')
    expect(formatFloat32(Math.fround(0.1))).toBe('0.1')
    expect(formatFloat32(Math.fround(219.2))).toBe('219.2')
    expect(formatFloat32(Math.fround(-1.5))).toBe('-1.5')
    expect(formatFloat32(16777217)).toBe('16777216')
    expect(formatFloat32(Math.fround(3.4028235e38))).toBe('3.4028235e+38')
    expect(formatFloat32(Math.fround(1.17549435e-38))).toBe('1.1754944e-38')
    expect(formatFloat32(Math.fround(1e-7))).toBe('1e-07')
    expect(formatFloat32(Math.fround(0.000001))).toBe('0.000001')
    expect(formatFloat32(NaN)).toBe('null')
    expect(formatFloat32(Infinity)).toBe('null')
  })

  it('DOUBLE prints the shortest float64 round-trip with Go exponent form', () => {
    expect(formatFloat64(10.3)).toBe('10.3')
    expect(formatFloat64(Math.fround(10.3))).toBe('10.300000190734863')
    expect(formatFloat64(1e21)).toBe('1e+21')
    expect(formatFloat64(1.5e21)).toBe('1.5e+21')
    expect(formatFloat64(123456789012345680000)).toBe('123456789012345680000')
    expect(formatFloat64(1e-7)).toBe('1e-07')
    expect(formatFloat64(1e-6)).toBe('0.000001')
    expect(formatFloat64(-9.5e-7)).toBe('-9.5e-07')
    expect(formatFloat64(-123.25)).toBe('-123.25')
    expect(formatFloat64(1.234e-10)).toBe('1.234e-10')
    expect(formatFloat64(0)).toBe('0')
    expect(formatFloat64(-Infinity)).toBe('null')
  })
})

describe('formatFloat32 fast path', () => {
  it('agrees with the toPrecision reference on random and edge float32 values', async () => {
    const { formatFloat32Reference } = await import('./go-float.js')
    const buf = new DataView(new ArrayBuffer(4))
    let seed = 12345
    const next = (): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
      return seed
    }
    const values: number[] = [1e-7, 1e-6, 9.999999e-7, 1e21, 9.99e20, 123456.7, 0.3, 1 / 3, 1e-45, 3.4e38, 16777218, 1e10]
    for (let i = 0; i < 30_000; i++) {
      buf.setUint32(0, next())
      values.push(buf.getFloat32(0))
      values.push(Math.fround((next() % 100000) / 100))
    }
    const mismatches: string[] = []
    for (const v of values) {
      const f = Math.fround(v)
      if (!Number.isFinite(f) || f === 0 || (Number.isInteger(f) && Math.abs(f) < 16777216)) {
        continue
      }
      const got = formatFloat32(f)
      if (got !== formatFloat32Reference(f) || Math.fround(Number(got)) !== f) {
        mismatches.push(`${f}: ${got} vs ${formatFloat32Reference(f)}`)
      }
    }
    expect(mismatches.slice(0, 10)).toEqual([])
  })
})
