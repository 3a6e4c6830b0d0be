/**
 * Datagrams the kernel drops are visible: a collectd flood into a small receive buffer while the
 * adapter's event loop is blocked overflows the socket; /metrics then shows the kernel's own
 * count (`db_adapter_receiver_kernel_drops_total`), equal to /proc/net/udp's for that socket, and
 * every datagram sent is either accepted or counted as dropped by the kernel.
 */
import { readFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import type { RunningAdapter } from '../../src/lifecycle.js'
import { kernelDrops, parseUdpTable } from '../../src/receivers/udp-drops.js'
import { startIngestServer } from './server.js'
import { floodWhileBlocked } from '../lib/udp-flood.js'

const FIXTURE = new URL('./fixtures/collectd5.12_network.bin', import.meta.url)
const SENT = 3000

let adapter: RunningAdapter | undefined
afterEach(async () => {
  await adapter?.stop()
  adapter = undefined
})

async function metric(base: string, name: string, labels: string): Promise<number | undefined> {
  const text = await (await fetch(`${base}/metrics`)).text()
  const m = new RegExp(`^${name}\\{${labels}\\} (\\S+)$`, 'm').exec(text)
  return m === null ? undefined : Number(m[1])
}

describe('collectd receiver: kernel drops', () => {
  it.runIf(process.platform === 'linux')('exports the socket drops of /proc/net/udp on /metrics after a flood', async () => {
    adapter = await startIngestServer((c) => {
      c.collagent.enable = true
      c.collagent.port = 0
      c.collagent.udpReceiveBuffer = 64 * 1024
    })
    const base = adapter.url
    const port = adapter.receivers[0].port
    expect(await metric(base, 'db_adapter_receiver_kernel_drops_total', 'receiver="collagent"')).toBe(0)

    const sent = floodWhileBlocked(port, SENT, readFileSync(FIXTURE))
    expect(sent).toBe(SENT)
    // the event loop runs again: the buffered datagrams are read, the rest is gone
    const proc = await kernelDrops(port)
    expect(proc).toBeDefined()
    const fromProc = (proc as { drops: number }).drops
    expect(fromProc).toBeGreaterThan(0)
    expect(await metric(base, 'db_adapter_receiver_kernel_drops_total', 'receiver="collagent"')).toBe(fromProc)

    // every datagram is accounted for: read by the receiver, or dropped by the kernel
    const deadline = Date.now() + 10_000
    let accepted = 0
    while (Date.now() < deadline) {
      accepted = (await metric(base, 'db_adapter_receiver_packets_total', 'receiver="collagent",result="accepted"')) ?? 0
      if (accepted + fromProc >= SENT) {
        break
      }
      await new Promise((r) => setTimeout(r, 100))
    }
    expect(accepted).toBeGreaterThan(0)
    expect(accepted + fromProc).toBe(SENT)
  }, 90_000)
})

describe('parseUdpTable', () => {
  it('reads port, inode and drops from a /proc/net/udp6 row', () => {
    const text = [
      '  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops',
      '  123: 00000000000000000000000000000000:17AD 00000000000000000000000000000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 98765 2 0000000000000000 164448',
      'garbage',
    ].join('\n')
    expect(parseUdpTable(text)).toEqual([{ port: 0x17ad, inode: '98765', drops: 164448 }])
  })

  it.runIf(process.platform === 'linux')('parses this host\'s /proc/net/udp', () => {
    const rows = parseUdpTable(readFileSync('/proc/net/udp', 'utf8'))
    expect(rows.every((r) => Number.isInteger(r.port) && r.drops >= 0)).toBe(true)
  })
})
