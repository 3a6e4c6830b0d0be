/**
 * A real memory-limited cgroup for tests that run the adapter under a memory limit (cgroup v1 at
 * /sys/fs/cgroup/memory/<name>, v2 at /sys/fs/cgroup/<name>), with the figures the kernel keeps:
 * the working set the adapter's gate reads, and the OOM kills.
 */
import { spawn } from 'node:child_process'
import type { ChildProcess, StdioOptions } from 'node:child_process'
import { accessSync, constants, existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export interface Cgroup {
  version: 1 | 2
  dir: string
  limitFile: string
}

/** Why this machine cannot hold a test cgroup at all, or undefined. */
export function cgroupUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) {
    return 'needs root (it creates a memory-limited cgroup)'
  }
  const parent = existsSync('/sys/fs/cgroup/memory/memory.limit_in_bytes') ? '/sys/fs/cgroup/memory' : '/sys/fs/cgroup'
  try {
    accessSync(parent, constants.W_OK)
  } catch {
    return `needs a writable ${parent} (a read-only cgroup mount, as in an unprivileged container)`
  }
  return undefined
}

/** Creates `db-adapter-<tag>-<pid>` with a memory limit of `limit` bytes (swap off on v2). */
export function createCgroup(tag: string, limit: number): Cgroup {
  const name = `db-adapter-${tag}-${process.pid}`
  const v1 = '/sys/fs/cgroup/memory'
  try {
    if (existsSync(join(v1, 'memory.limit_in_bytes'))) {
      const dir = join(v1, name)
      mkdirSync(dir)
      const made: Cgroup = { version: 1, dir, limitFile: join(dir, 'memory.limit_in_bytes') }
      writeFileSync(made.limitFile, String(limit))
      return made
    }
    if (existsSync('/sys/fs/cgroup/cgroup.controllers')) {
      const dir = join('/sys/fs/cgroup', name)
      mkdirSync(dir)
      const made: Cgroup = { version: 2, dir, limitFile: join(dir, 'memory.max') }
      writeFileSync(made.limitFile, String(limit))
      try {
        writeFileSync(join(dir, 'memory.swap.max'), '0')
      } catch {
        // no swap accounting: nothing to turn off
      }
      return made
    }
  } catch (err) {
    throw new Error(
      `${tag}: cannot create a memory-limited cgroup (${err instanceof Error ? err.message : String(err)}); this test needs root and a writable /sys/fs/cgroup`,
      { cause: err },
    )
  }
  throw new Error(`${tag}: no cgroup memory controller found (neither /sys/fs/cgroup/memory nor cgroup v2 at /sys/fs/cgroup)`)
}

/** The cgroup's memory.stat, read once: a field's bytes by its v2 name (v1's `total_<name>`). */
export function memoryStat(c: Cgroup): (name: string) => number {
  const stat = readFileSync(join(c.dir, 'memory.stat'), 'utf8')
  return (name) => Number((c.version === 1 ? new RegExp(`^total_${name} (\\d+)$`, 'm') : new RegExp(`^${name} (\\d+)$`, 'm')).exec(stat)?.[1] ?? 0)
}

/**
 * What the cgroup holds that the kernel cannot drop: usage minus the page cache (active and
 * inactive file), the figure the adapter's gate measures (src/monitor/cgroup.ts), as bytes and as
 * a percent of the limit.
 */
export function inUse(c: Cgroup): { percent: number; bytes: number; limit: number } {
  const limit = Number(readFileSync(c.limitFile, 'utf8').trim())
  const usage = Number(readFileSync(join(c.dir, c.version === 1 ? 'memory.usage_in_bytes' : 'memory.current'), 'utf8').trim())
  const field = memoryStat(c)
  const bytes = usage - field('inactive_file') - field('active_file')
  return { percent: (100 * bytes) / limit, bytes, limit }
}

/**
 * A process's anonymous memory by who likely holds it, from /proc/<pid>/smaps (MiB): glibc's
 * per-thread arenas (64 MiB-aligned, the rest of their reservation PROT_NONE after them), the
 * main heap (brk), V8's heap pages (256 KiB mappings), the rest (DuckDB's jemalloc, V8's large
 * objects, stacks). A diagnosis for a failure message, not a figure to assert on.
 */
export function anonBreakdown(pid: number | undefined): string {
  let text: string
  try {
    text = readFileSync(`/proc/${pid}/smaps`, 'utf8')
  } catch {
    return 'unreadable'
  }
  const maps: { start: number; end: number; perm: string; name: string; anon: number }[] = []
  for (const line of text.split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line)
    if (head) {
      maps.push({ start: parseInt(head[1], 16), end: parseInt(head[2], 16), perm: head[3], name: head[4], anon: 0 })
    } else if (line.startsWith('Anonymous:') && maps.length > 0) {
      maps[maps.length - 1].anon = Number(/(\d+)/.exec(line)?.[1] ?? 0) / 1024
    }
  }
  const kinds = new Map<string, number>()
  let largest = 0
  maps.forEach((m, i) => {
    const next = maps[i + 1]
    const size = m.end - m.start
    const kind = m.name === '[heap]'
      ? 'brk'
      : m.start % 2 ** 26 === 0 && next?.start === m.end && next.perm === '---p'
        ? 'glibc arenas'
        : size % 2 ** 18 === 0 && size <= 2 ** 20
          ? 'v8 pages'
          : 'other'
    kinds.set(kind, (kinds.get(kind) ?? 0) + m.anon)
    largest = Math.max(largest, m.anon)
  })
  return `${[...kinds].filter(([, v]) => v >= 1).map(([k, v]) => `${k} ${Math.round(v)}M`).join(', ')} (largest mapping ${Math.round(largest)}M)`
}

/** Peak usage the kernel recorded (v1 max_usage_in_bytes, v2 memory.peak when present). */
export function peakBytes(c: Cgroup): number | undefined {
  const file = join(c.dir, c.version === 1 ? 'memory.max_usage_in_bytes' : 'memory.peak')
  return existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : undefined
}

/** How many processes the kernel's OOM killer has killed in this cgroup. */
export function oomKills(c: Cgroup): number {
  const text = readFileSync(join(c.dir, c.version === 1 ? 'memory.oom_control' : 'memory.events'), 'utf8')
  return Number(/^oom_kill (\d+)$/m.exec(text)?.[1] ?? 0)
}

/**
 * Starts `node <args>` inside the cgroup: the shell writes its own pid into cgroup.procs and then
 * execs node under that pid, so all of the process's memory is charged there from its first page
 * (v1 does not move charges of pages allocated before a move).
 */
export function spawnInCgroup(c: Cgroup, args: string[], cwd: string, stdio: StdioOptions = ['ignore', 'pipe', 'pipe']): ChildProcess {
  const quoted = args.map((a) => `'${a}'`).join(' ')
  return spawn('sh', ['-c', `echo $$ > '${join(c.dir, 'cgroup.procs')}' && exec '${process.execPath}' ${quoted}`], { cwd, stdio })
}

/** Removes the cgroup once its processes have left (an exiting process leaves a moment late). */
export async function removeCgroup(c: Cgroup): Promise<void> {
  for (let i = 0; i < 50; i++) {
    try {
      rmdirSync(c.dir)
      return
    } catch (err) {
      if (i === 49) {
        throw new Error(`could not remove ${c.dir}: ${String(err)}`, { cause: err })
      }
      await new Promise((r) => setTimeout(r, 100))
    }
  }
}
