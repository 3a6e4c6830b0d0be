/**
 * `statsagent.udpReceiveBuffer` sizes the StatsD socket's kernel buffer: a burst sent while the
 * adapter's event loop is blocked is held whole by a 4 MB buffer, and mostly dropped by the kernel
 * with 64 KiB; every datagram is either accepted or counted in the kernel's drops on /metrics.
 */
import { existsSync, readFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import type { RunningAdapter } from '../../src/lifecycle.js'
import { floodWhileBlocked } from '../lib/udp-flood.js'
import { startIngestServer } from './server.js'

const SENT = 2000
let adapter: RunningAdapter | undefined
afterEach(async () => {
  await adapter?.stop()
  adapter = undefined
})

async function metric(base: string, name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text()
  const m = new RegExp(`^${name}\\{${labels}\\} (\\S+)$`, 'm').exec(text)
  return m === null ? 0 : Number(m[1])
}

/** accepted datagrams and kernel drops once every datagram of a blocked burst is accounted for */
async function burst(bufferBytes: number): Promise<{ accepted: number; dropped: number }> {
  adapter = await startIngestServer((c) => {
    c.statsagent.enable = true
    c.statsagent.port = 0
    c.statsagent.udpReceiveBuffer = bufferBytes
  })
  const base = adapter.url
  const port = adapter.receivers[0].port
  expect(floodWhileBlocked(port, SENT, Buffer.from('burst.count,host=a:1|c'))).toBe(SENT)
  const deadline = Date.now() + 10_000
  for (;;) {
    const accepted = await metric(base, 'db_adapter_receiver_packets_total', 'receiver="statsagent",result="accepted"')
    const dropped = await metric(base, 'db_adapter_receiver_kernel_drops_total', 'receiver="statsagent"')
    if (accepted + dropped >= SENT || Date.now() > deadline) {
      expect(accepted + dropped).toBe(SENT)
      await adapter.stop()
      adapter = undefined
      return { accepted, dropped }
    }
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** Linux grants at most net.core.rmem_max (212992 by default; 4 MiB on this project's machines) */
const RMEM_MAX = existsSync('/proc/sys/net/core/rmem_max') ? Number(readFileSync('/proc/sys/net/core/rmem_max', 'utf8')) : 0

describe('statsagent.udpReceiveBuffer', () => {
  it.runIf(RMEM_MAX >= 1024 * 1024)('a 4 MB buffer holds a blocked burst that 64 KiB drops', async () => {
    const small = await burst(64 * 1024)
    expect(small.dropped).toBeGreaterThan(SENT / 2)
    const large = await burst(4 * 1024 * 1024)
    if (RMEM_MAX >= 4 * 1024 * 1024) {
      expect(large.dropped).toBe(0)
      expect(large.accepted).toBe(SENT)
    } else {
      expect(large.dropped).toBeLessThan(small.dropped / 2)
    }
  }, 90_000)
})
