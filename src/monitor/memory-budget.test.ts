import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { budgetShares, detectMemoryLimit, queryShare } from './memory-budget.js'

const FIXTURES = join(import.meta.dirname, '../../test/monitor/fixtures')
const MiB = 2 ** 20
const GiB = 2 ** 30

describe('detectMemoryLimit', () => {
  it('takes the cgroup limit when it is below the physical memory, else the physical memory', () => {
    for (const v of ['v1', 'v2']) {
      const found = detectMemoryLimit(join(FIXTURES, v), 64 * GiB)
      expect(found.source, v).toBe('cgroup')
      expect(found.bytes, v).toBeLessThan(64 * GiB)
      // a host smaller than the cgroup limit: the host binds
      expect(detectMemoryLimit(join(FIXTURES, v), 1 * MiB)).toEqual({ bytes: MiB, source: 'physical' })
    }
    expect(detectMemoryLimit(join(FIXTURES, 'v2-unlimited'), 8 * GiB)).toEqual({ bytes: 8 * GiB, source: 'physical' })
    expect(detectMemoryLimit('/nonexistent', 8 * GiB)).toEqual({ bytes: 8 * GiB, source: 'physical' })
  })
})

describe('budgetShares', () => {
  it('storage 35% (80% in memory), work a quarter by default, with floors; flags win', () => {
    expect(budgetShares(256 * MiB, { inMemory: false })).toEqual({ storageBytes: Math.floor(0.35 * 256 * MiB), workBytes: 64 * MiB })
    expect(budgetShares(1 * GiB, { inMemory: true })).toEqual({ storageBytes: Math.floor(0.8 * GiB), workBytes: 256 * MiB })
    expect(budgetShares(48 * MiB, { inMemory: false })).toEqual({ storageBytes: 32 * MiB, workBytes: 16 * MiB })
    expect(budgetShares(1 * GiB, { inMemory: false, storage: 100 * MiB, work: 10 * MiB })).toEqual({ storageBytes: 100 * MiB, workBytes: 10 * MiB })
  })

  it('a query share lets two results run side by side, at most 48 MiB', () => {
    expect(queryShare(64 * MiB)).toBe(Math.floor(64 * MiB * 0.45))
    expect(2 * queryShare(64 * MiB)).toBeLessThan(64 * MiB)
    expect(queryShare(4 * GiB)).toBe(48 * MiB)
  })
})
