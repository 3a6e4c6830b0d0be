import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  locateCgroup,
  parseCfsQuota,
  parseCpuMax,
  parseMemoryLimit,
  parseMemoryStat,
  parseProcCgroup,
  readCgroupCpuCores,
  usableCores,
  readCgroupMemory,
} from './cgroup.js'

const FIXTURES = join(import.meta.dirname, '../../test/monitor/fixtures')

describe('cgroup parsers', () => {
  it('parses /proc/self/cgroup lines, v1 controller lists and the v2 unified line', () => {
    expect(parseProcCgroup('4:memory:/a/b\n3:cpu,cpuacct:/a\n0::/x:y\n\njunk\n')).toEqual([
      { id: 4, controllers: ['memory'], path: '/a/b' },
      { id: 3, controllers: ['cpu', 'cpuacct'], path: '/a' },
      // a ':' inside the path stays in the path
      { id: 0, controllers: [], path: '/x:y' },
    ])
  })

  it('reads limits: max, the v1 page-rounded LLONG_MAX and -1 are unlimited', () => {
    expect(parseMemoryLimit('max\n')).toBeNull()
    expect(parseMemoryLimit('9223372036854771712\n')).toBeNull()
    expect(parseMemoryLimit('-1')).toBeNull()
    expect(parseMemoryLimit('419430400\n')).toBe(400 * 1024 * 1024)
    expect(() => parseMemoryLimit('lots')).toThrow(/cannot parse "lots"/)
  })

  it('reads memory.stat key/value lines', () => {
    const m = parseMemoryStat('anon 10\ninactive_file 20\nbad\n')
    expect(m.get('anon')).toBe(10)
    expect(m.get('inactive_file')).toBe(20)
    expect(m.size).toBe(2)
  })

  it('turns CPU quotas into cores', () => {
    expect(parseCpuMax('50000 100000\n')).toBe(0.5)
    expect(parseCpuMax('max 100000\n')).toBeUndefined()
    expect(parseCfsQuota('200000\n', '100000\n')).toBe(2)
    // -1 means no quota (the original divided by it and reported +Inf)
    expect(parseCfsQuota('-1\n', '100000\n')).toBeUndefined()
  })
})

describe('cgroup fixture trees', () => {
  it('v1 (kubernetes, cpu,cpuacct co-mounted): limit, working set and quota', () => {
    const loc = locateCgroup(join(FIXTURES, 'v1'))
    expect(loc?.version).toBe(1)
    expect(loc?.memoryDir).toBe(join(FIXTURES, 'v1/sys/fs/cgroup/memory/kubepods/pod1/c1'))
    const mem = readCgroupMemory(loc!)
    // usage 300000000 minus total_inactive_file 50000000 (the subtree figure, not inactive_file 1000)
    // and total_active_file 10000000
    expect(mem).toEqual({ version: 1, limit: 536870912, usage: 300000000, fileCache: 60000000, inUse: 240000000 })
    // 150000 / 100000
    expect(readCgroupCpuCores(loc!)).toBe(1.5)
  })

  it('v1 docker without cgroup namespace: files at the mount root, ancestor limit from hierarchical_memory_limit', () => {
    const loc = locateCgroup(join(FIXTURES, 'v1-docker'))
    expect(loc?.memoryDir).toBe(join(FIXTURES, 'v1-docker/sys/fs/cgroup/memory'))
    const mem = readCgroupMemory(loc!)
    expect(mem.limit).toBe(256 * 1024 * 1024)
    expect(mem.inUse).toBe(104857600 - 4857600)
    expect(readCgroupCpuCores(loc!)).toBeUndefined()
  })

  it('v2: the smallest memory.max on the path to the root binds; in use = current - active_file - inactive_file', () => {
    const loc = locateCgroup(join(FIXTURES, 'v2'))
    expect(loc?.version).toBe(2)
    expect(loc?.memoryDir).toBe(join(FIXTURES, 'v2/sys/fs/cgroup/kubepods.slice/pod.slice/cri.scope'))
    const mem = readCgroupMemory(loc!)
    // cri.scope 2 GiB, pod.slice 1 GiB, kubepods.slice max -> 1 GiB
    expect(mem).toEqual({ version: 2, limit: 1073741824, usage: 500000000, fileCache: 120000000, inUse: 380000000 })
    expect(readCgroupCpuCores(loc!)).toBe(0.5)
  })

  it('v2 without any limit reports null (the sampler then uses physical memory)', () => {
    const loc = locateCgroup(join(FIXTURES, 'v2-unlimited'))
    const mem = readCgroupMemory(loc!)
    expect(mem.limit).toBeNull()
    expect(mem.inUse).toBe(70000000)
    expect(readCgroupCpuCores(loc!)).toBeUndefined()
  })

  it('no /proc under the root: not in a cgroup', () => {
    expect(locateCgroup(join(FIXTURES, 'does-not-exist'))).toBeUndefined()
  })
})

describe('usableCores', () => {
  it('caps the machine by the cgroup CPU quota, rounded up', () => {
    expect(usableCores(join(FIXTURES, 'v1'), 64)).toBe(2) // 1.5 CPUs
    expect(usableCores(join(FIXTURES, 'v2'), 64)).toBe(1) // 0.5 CPU
    expect(usableCores(join(FIXTURES, 'v2'), 1)).toBe(1)
    expect(usableCores(join(FIXTURES, 'v1-docker'), 8)).toBe(8) // no quota
    expect(usableCores(join(FIXTURES, 'does-not-exist'), 3)).toBe(3)
  })
})
