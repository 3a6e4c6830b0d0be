import { describe, expect, it } from 'vitest'
import type { DatabaseInfo } from '../storage/td-types.js'
import { murmur3_32, vgroupOf } from './vgroup.js'

const enc = (s: string): Uint8Array => new TextEncoder().encode(s)

function db(name: string, vgroups: number, firstVgId: number): DatabaseInfo {
  return { name, precision: 'ms', vgroups, firstVgId, options: {}, createdAt: 0, owner: 'root' }
}

describe('murmur3_32', () => {
  it('matches the published MurmurHash3_x86_32 test vectors', () => {
    // SMHasher / widely published vectors for MurmurHash3_x86_32
    expect(murmur3_32(enc(''), 0)).toBe(0)
    expect(murmur3_32(enc(''), 1)).toBe(0x514e28b7)
    expect(murmur3_32(enc(''), 0xffffffff)).toBe(0x81f16f39)
    expect(murmur3_32(new Uint8Array([0, 0, 0, 0]), 0)).toBe(0x2362f9de)
    expect(murmur3_32(enc('aaaa'), 0x9747b28c)).toBe(0x5a97808a)
    expect(murmur3_32(enc('aaa'), 0x9747b28c)).toBe(0x283e0130)
    expect(murmur3_32(enc('aa'), 0x9747b28c)).toBe(0x5d211726)
    expect(murmur3_32(enc('a'), 0x9747b28c)).toBe(0x7fa09ea6)
    expect(murmur3_32(enc('Hello, world!'), 0x9747b28c)).toBe(0x24884cba)
    expect(murmur3_32(enc('The quick brown fox jumps over the lazy dog'), 0x9747b28c)).toBe(0x2fa826cd)
  })

  it('matches the reference values with TDengine seed 0x12345678', () => {
    expect(murmur3_32(enc('1.power.d1001'))).toBe(3546720171)
    expect(murmur3_32(enc('1.power.d1002'))).toBe(1176364662)
    expect(murmur3_32(enc('1.test.t1'))).toBe(905866416)
    expect(murmur3_32(enc(''))).toBe(3816608188)
  })
})

describe('vgroupOf', () => {
  it('maps hashes onto the database hash ranges', () => {
    const power = db('power', 2, 2)
    // step = floor(0xffffffff / 2) = 2147483647; 3546720171 -> range 1 -> id 3
    expect(vgroupOf(power, 'd1001')).toBe(3)
    expect(vgroupOf(power, 'd1002')).toBe(2)
    expect(vgroupOf(db('test', 2, 2), 't1')).toBe(2)
    // one vgroup: everything lands on it
    expect(vgroupOf(db('power', 1, 7), 'd1001')).toBe(7)
    // 4 vgroups from id 4: step 1073741823; 3546720171 / step = 3.3 -> index 3 -> id 7
    expect(vgroupOf(db('power', 4, 4), 'd1001')).toBe(7)
  })
})
