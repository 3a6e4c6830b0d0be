/**
 * @module
 * Reading the memory and CPU limits of the cgroup this process runs in (cgroup v2, then v1).
 *
 * The parsers are pure functions over file contents. The readers take a `root` directory that
 * stands for `/`, so tests parse fixture trees (test/monitor/fixtures/) exactly as the live system
 * is read.
 *
 * Which numerator (decided here, used by src/monitor/sampler.ts): in cgroup mode the memory in use
 * is what the cgroup holds that the kernel cannot drop: `usage - active_file - inactive_file`
 * (v2 `memory.current` minus both file LRUs of `memory.stat`; v1 `memory.usage_in_bytes` minus
 * `total_active_file` and `total_inactive_file`). It counts the process's anonymous memory, child
 * processes, tmpfs/shm (on the anonymous LRUs) and kernel memory. The page cache, active or not,
 * is left out: under the cgroup's limit the kernel reclaims it before it kills anything, so it is
 * no reason to refuse work. The kubelet's working set (`usage - inactive_file`) keeps the active
 * cache, and DuckDB reading its file keeps that cache active: measured in a 256 MiB cgroup, a
 * gate on the working set stayed at 74% (query-paused for good) after a burst while this figure
 * was under 60%. The original used the process RSS against the limit, which misses memory
 * charged to the cgroup outside the RSS (shm, child processes). Outside a cgroup (or with
 * `monitor.incgroup=false`) the sampler keeps the original's `RSS / physical memory`, because the
 * cgroup there is the whole host and its usage is not this process's.
 */
import { availableParallelism } from 'node:os'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

/** One line of /proc/self/cgroup: `hierarchy-id:controller-list:path`. */
export interface ProcCgroupEntry {
  id: number
  /** empty for the cgroup v2 unified line (`0::/path`) */
  controllers: string[]
  path: string
}

/** Parses /proc/self/cgroup. Malformed lines are skipped (the kernel writes only good ones). */
export function parseProcCgroup(text: string): ProcCgroupEntry[] {
  const out: ProcCgroupEntry[] = []
  for (const line of text.split('\n')) {
    // the path may itself contain ':', so split on the first two only
    const a = line.indexOf(':')
    const b = a < 0 ? -1 : line.indexOf(':', a + 1)
    if (b < 0) {
      continue
    }
    const id = Number(line.slice(0, a))
    if (!Number.isInteger(id)) {
      continue
    }
    const list = line.slice(a + 1, b)
    out.push({ id, controllers: list === '' ? [] : list.split(','), path: line.slice(b + 1) })
  }
  return out
}

/**
 * Limits at or above 2^60 bytes mean "no limit": v1 writes LLONG_MAX rounded down to a page
 * (9223372036854771712), v2 writes `max`.
 */
const UNLIMITED_FROM = 2 ** 60

/** A byte limit file (`memory.max`, `memory.limit_in_bytes`); null = unlimited. */
export function parseMemoryLimit(text: string): number | null {
  const t = text.trim()
  if (t === 'max' || t === '-1') {
    return null
  }
  const n = Number(t)
  if (t === '' || !Number.isFinite(n) || n < 0) {
    throw new Error(`cgroup memory limit: cannot parse ${JSON.stringify(t)}`)
  }
  return n >= UNLIMITED_FROM ? null : n
}

/** A byte counter file (`memory.current`, `memory.usage_in_bytes`). */
export function parseBytes(text: string): number {
  const t = text.trim()
  const n = Number(t)
  if (t === '' || !Number.isFinite(n) || n < 0) {
    throw new Error(`cgroup memory counter: cannot parse ${JSON.stringify(t)}`)
  }
  return n
}

/** `memory.stat`: `key value` lines. */
export function parseMemoryStat(text: string): Map<string, number> {
  const out = new Map<string, number>()
  for (const line of text.split('\n')) {
    const sp = line.indexOf(' ')
    if (sp <= 0) {
      continue
    }
    const n = Number(line.slice(sp + 1).trim())
    if (Number.isFinite(n)) {
      out.set(line.slice(0, sp), n)
    }
  }
  return out
}

/** v2 `cpu.max` (`$MAX $PERIOD`, `max` = no quota) -> cores allowed, undefined when unlimited. */
export function parseCpuMax(text: string): number | undefined {
  const [max, periodText] = text.trim().split(/\s+/)
  if (max === 'max' || max === undefined) {
    return undefined
  }
  return quotaCores(Number(max), Number(periodText ?? '100000'))
}

/** v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us` -> cores; quota -1 (none) -> undefined. */
export function parseCfsQuota(quotaText: string, periodText: string): number | undefined {
  return quotaCores(Number(quotaText.trim()), Number(periodText.trim()))
}

function quotaCores(quota: number, period: number): number | undefined {
  // -1 is "no quota"; the original divided by it and reported +Inf: we report "no quota" instead
  if (!Number.isFinite(quota) || !Number.isFinite(period) || quota <= 0 || period <= 0) {
    return undefined
  }
  return quota / period
}

/** Where this process's cgroup files are, as found under `root`. */
export interface CgroupLocation {
  version: 1 | 2
  /** directory holding the memory files (memory.max or memory.limit_in_bytes) */
  memoryDir: string
  /**
   * v2: the chain of directories from the process's cgroup up to the mount root (the effective
   * memory limit is the smallest `memory.max` on it). v1: just memoryDir (v1 reports the
   * hierarchical limit in memory.stat).
   */
  memoryChain: string[]
  /** directory holding the CPU quota files, when found */
  cpuDir?: string
}

export interface CgroupMemory {
  version: 1 | 2
  /** effective limit in bytes; null = unlimited */
  limit: number | null
  /** bytes charged to the cgroup (page cache included) */
  usage: number
  /** page cache (active and inactive file LRUs): reclaimable before the OOM killer acts */
  fileCache: number
  /** usage - fileCache, never below 0: the numerator of the memory percent (see module doc) */
  inUse: number
}

const CGROUP_MOUNT = 'sys/fs/cgroup'

/**
 * Finds the process's cgroup under `root` (normally `/`). cgroup v1 wins when a `memory`
 * controller line is present (hybrid hosts mount an empty v2 tree next to v1, as this machine
 * does); otherwise the v2 unified line is used when the v2 mount holds `cgroup.controllers`.
 * Undefined when neither is found (not Linux, no /sys mounted).
 */
export function locateCgroup(root = '/'): CgroupLocation | undefined {
  let entries: ProcCgroupEntry[]
  try {
    entries = parseProcCgroup(readFileSync(join(root, 'proc/self/cgroup'), 'utf8'))
  } catch {
    return undefined
  }
  const mount = join(root, CGROUP_MOUNT)

  const memV1 = entries.find((e) => e.controllers.includes('memory'))
  if (memV1) {
    const memoryDir = v1Dir(mount, memV1, 'memory.limit_in_bytes')
    if (memoryDir !== undefined) {
      const cpuV1 = entries.find((e) => e.controllers.includes('cpu'))
      const cpuDir = cpuV1 ? v1Dir(mount, cpuV1, 'cpu.cfs_quota_us') : undefined
      return { version: 1, memoryDir, memoryChain: [memoryDir], ...(cpuDir ? { cpuDir } : {}) }
    }
  }

  const unified = entries.find((e) => e.id === 0 && e.controllers.length === 0)
  if (unified && existsSync(join(mount, 'cgroup.controllers'))) {
    const chain = v2Chain(mount, unified.path)
    if (chain.length > 0) {
      const cpuDir = chain.find((d) => existsSync(join(d, 'cpu.max')))
      return { version: 2, memoryDir: chain[0], memoryChain: chain, ...(cpuDir ? { cpuDir } : {}) }
    }
  }
  return undefined
}

/**
 * v1 controller directory: the mount is named after the controller list (`cpu,cpuacct`) or after
 * one controller (a symlink on most distributions). Inside a container without a cgroup namespace
 * /proc/self/cgroup names the host path (`/docker/<id>`) while the container sees its own cgroup at
 * the mount root, so the mount root is the fallback.
 */
function v1Dir(mount: string, e: ProcCgroupEntry, probe: string): string | undefined {
  const names = [e.controllers.join(','), ...e.controllers]
  for (const name of names) {
    const base = join(mount, name)
    for (const dir of [join(base, e.path), base]) {
      if (existsSync(join(dir, probe))) {
        return dir
      }
    }
  }
  return undefined
}

/** v2: the process's directory and its ancestors up to the mount, those that have memory files. */
function v2Chain(mount: string, path: string): string[] {
  const parts = path.split('/').filter((p) => p !== '')
  const chain: string[] = []
  for (let n = parts.length; n >= 0; n--) {
    const dir = join(mount, ...parts.slice(0, n))
    if (existsSync(join(dir, 'memory.current')) || existsSync(join(dir, 'memory.max'))) {
      chain.push(dir)
    }
  }
  if (chain.length === 0 && existsSync(join(mount, 'memory.current'))) {
    // namespaced container whose /proc/self/cgroup path is not visible under its own mount
    chain.push(mount)
  }
  return chain
}

function readText(path: string): string {
  return readFileSync(path, 'utf8')
}

/** Reads limit, usage and working set of the located cgroup (sync: a few tiny pseudo-files). */
export function readCgroupMemory(loc: CgroupLocation): CgroupMemory {
  if (loc.version === 1) {
    const stat = parseMemoryStat(readText(join(loc.memoryDir, 'memory.stat')))
    let limit = parseMemoryLimit(readText(join(loc.memoryDir, 'memory.limit_in_bytes')))
    // an ancestor's smaller limit binds too; v1 reports the effective one here
    const hier = stat.get('hierarchical_memory_limit')
    if (hier !== undefined && hier < UNLIMITED_FROM && (limit === null || hier < limit)) {
      limit = hier
    }
    const usage = parseBytes(readText(join(loc.memoryDir, 'memory.usage_in_bytes')))
    // total_* counts the whole subtree, as usage_in_bytes does; plain *_file is this level only
    const fileCache = (stat.get('total_inactive_file') ?? stat.get('inactive_file') ?? 0) + (stat.get('total_active_file') ?? stat.get('active_file') ?? 0)
    return { version: 1, limit, usage, fileCache, inUse: Math.max(0, usage - fileCache) }
  }
  let limit: number | null = null
  for (const dir of loc.memoryChain) {
    const file = join(dir, 'memory.max')
    if (!existsSync(file)) {
      continue // the root cgroup has no memory.max
    }
    const l = parseMemoryLimit(readText(file))
    if (l !== null && (limit === null || l < limit)) {
      limit = l
    }
  }
  const usage = parseBytes(readText(join(loc.memoryDir, 'memory.current')))
  const stat = parseMemoryStat(readText(join(loc.memoryDir, 'memory.stat')))
  const fileCache = (stat.get('inactive_file') ?? 0) + (stat.get('active_file') ?? 0)
  return { version: 2, limit, usage, fileCache, inUse: Math.max(0, usage - fileCache) }
}

/** CPU cores the cgroup quota allows, undefined when there is no quota (or no cpu controller). */
export function readCgroupCpuCores(loc: CgroupLocation): number | undefined {
  if (loc.cpuDir === undefined) {
    return undefined
  }
  try {
    if (loc.version === 2) {
      return parseCpuMax(readText(join(loc.cpuDir, 'cpu.max')))
    }
    return parseCfsQuota(readText(join(loc.cpuDir, 'cpu.cfs_quota_us')), readText(join(loc.cpuDir, 'cpu.cfs_period_us')))
  } catch {
    return undefined
  }
}

/**
 * CPUs this process may keep busy: the machine's (`os.availableParallelism`, which does not
 * see a CPU quota), capped by the cgroup's quota rounded up, so a pod limited to 1.5 CPUs on a
 * 64-core node sizes its thread pools for 2.
 */
export function usableCores(root = '/', machine: number = availableParallelism()): number {
  const loc = locateCgroup(root)
  const quota = loc === undefined ? undefined : readCgroupCpuCores(loc)
  return quota === undefined ? machine : Math.max(1, Math.min(machine, Math.ceil(quota)))
}
