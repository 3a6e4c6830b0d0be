/**
 * @module
 * Datagrams the kernel dropped because a receiver's socket buffer was full never reach the
 * process, so no counter of ours sees them. Linux counts them per socket (the `drops` column of
 * /proc/net/udp and /proc/net/udp6); this exports that count, read at each scrape, as
 * `db_adapter_receiver_kernel_drops_total{receiver}`. Elsewhere (no /proc) it stays at 0.
 */
import { readFile, readdir, readlink } from 'node:fs/promises'
import { join } from 'node:path'
import { Counter, type Registry } from 'prom-client'

const TABLES = ['/proc/net/udp', '/proc/net/udp6']

/** One row of /proc/net/udp{,6}: local port, inode and drops. */
export interface UdpRow {
  port: number
  inode: string
  drops: number
}

/** The rows of a /proc/net/udp{,6} table (header skipped, malformed lines ignored). */
export function parseUdpTable(text: string): UdpRow[] {
  const rows: UdpRow[] = []
  for (const line of text.split('\n').slice(1)) {
    // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ref pointer drops
    const f = line.trim().split(/\s+/)
    if (f.length < 13) {
      continue
    }
    const port = Number.parseInt(f[1].slice(f[1].lastIndexOf(':') + 1), 16)
    const drops = Number(f[12])
    if (Number.isFinite(port) && Number.isFinite(drops)) {
      rows.push({ port, inode: f[9], drops })
    }
  }
  return rows
}

async function readTables(): Promise<UdpRow[]> {
  const texts = await Promise.all(TABLES.map((t) => readFile(t, 'utf8').catch(() => '')))
  return texts.flatMap(parseUdpTable)
}

/** Inodes of the sockets this process holds (`socket:[123]` links in /proc/self/fd). */
async function ownSocketInodes(): Promise<Set<string>> {
  const inodes = new Set<string>()
  const fds = await readdir('/proc/self/fd').catch(() => [] as string[])
  await Promise.all(
    fds.map(async (fd) => {
      const link = await readlink(join('/proc/self/fd', fd)).catch(() => '')
      const m = /^socket:\[(\d+)\]$/.exec(link)
      if (m !== null) {
        inodes.add(m[1])
      }
    }),
  )
  return inodes
}

/** The kernel's drop count of this process's UDP socket on `port`; undefined without /proc. */
export async function kernelDrops(port: number, inode?: string): Promise<{ inode: string; drops: number } | undefined> {
  const rows = (await readTables()).filter((r) => r.port === port)
  if (inode !== undefined) {
    const row = rows.find((r) => r.inode === inode)
    return row === undefined ? undefined : { inode, drops: row.drops }
  }
  if (rows.length === 0) {
    return undefined
  }
  // another process may hold the same port on another address: take ours
  const own = await ownSocketInodes()
  const row = rows.find((r) => own.has(r.inode))
  return row === undefined ? undefined : { inode: row.inode, drops: row.drops }
}

export interface KernelDropsMetric {
  /** exports the drops of the receiver's UDP socket on `port` until the returned function runs */
  watch(receiver: string, port: number): () => void
}

export function createKernelDropsMetric(registry: Registry): KernelDropsMetric {
  const watched = new Map<string, { port: number; inode?: string; seen: number }>()
  const counter = new Counter({
    name: 'db_adapter_receiver_kernel_drops_total',
    help: "Datagrams the kernel dropped for a receiver's UDP socket (its receive buffer was full: raise the receiver's udpReceiveBuffer and net.core.rmem_max), from /proc/net/udp",
    labelNames: ['receiver'],
    registers: [registry],
    async collect() {
      await Promise.all(
        [...watched].map(async ([receiver, w]) => {
          const now = await kernelDrops(w.port, w.inode)
          if (now === undefined) {
            return
          }
          w.inode = now.inode
          // the socket's count only grows; the counter follows it
          counter.inc({ receiver }, Math.max(0, now.drops - w.seen))
          w.seen = Math.max(w.seen, now.drops)
        }),
      )
    },
  })
  return {
    watch(receiver, port) {
      watched.set(receiver, { port, seen: 0 })
      counter.inc({ receiver }, 0)
      return () => {
        watched.delete(receiver)
      }
    },
  }
}
