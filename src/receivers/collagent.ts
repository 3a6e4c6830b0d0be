/**
 * @module
 * The collectd receiver (`collagent.*`): a UDP socket on `collagent.port` that decodes what
 * collectd's network plugin sends (src/ingest/collagent/parse.ts) and writes it into
 * `collagent.db` as `collagent.user` through the shared PointWriter.
 *
 * `collagent.worker` bounds the backlog: at most 2 x worker batches of 5000 points wait for the
 * writer; beyond that datagrams are dropped and counted (UDP gives no other way to push back).
 */
import { createSocket, type Socket } from 'node:dgram'
import type { AppConfig } from '../config/types.js'
import { parseCollectdPacket } from '../ingest/collagent/parse.js'
import type { Schemaless } from '../ingest/types.js'
import type { Logger } from '../logger.js'
import type { Storage } from '../sql/catalog/types.js'
import { receiverWriter, ThrottledLog, type ReceiverMetrics } from './point-writer.js'
import type { KernelDropsMetric } from './udp-drops.js'

export interface ReceiverDeps {
  config: AppConfig
  storage: Storage
  schemaless: Schemaless
  allPaused: () => boolean
  logger: Logger
  metrics: ReceiverMetrics
  /** exports the kernel's drop count of UDP sockets (absent: not exported) */
  kernelDrops?: KernelDropsMetric
}

export interface RunningReceiver {
  /** the bound port (the real one when configured as 0) */
  port: number
  /** stops receiving, writes what is queued */
  stop(): Promise<void>
}

export async function startCollagentReceiver(deps: ReceiverDeps): Promise<RunningReceiver> {
  const { config, logger, metrics } = deps
  const c = config.collagent
  const receiver = 'collagent'
  const writer = receiverWriter(receiver, c, deps, 2 * c.worker)
  const log = new ThrottledLog(logger)
  const { socket, buffer } = await bindUdpReceiver(config.host, c.port, receiver, c.udpReceiveBuffer, logger)
  socket.on('message', (msg, from) => {
    if (deps.allPaused()) {
      metrics.packets.inc({ receiver, result: 'dropped' })
      return
    }
    const r = parseCollectdPacket(msg, BigInt(Date.now()) * 1_000_000n)
    if (r.error !== undefined) {
      metrics.packets.inc({ receiver, result: 'malformed' })
      log.error('malformed', { receiver, from: `${from.address}:${from.port}`, error: r.error, kept: r.points.length }, `${receiver}: malformed collectd packet`)
    } else {
      metrics.packets.inc({ receiver, result: 'accepted' })
    }
    if (r.skipped > 0) {
      metrics.points.inc({ receiver, result: 'rejected' }, r.skipped)
    }
    writer.add(r.points)
  })
  socket.on('error', (err) => log.error('socket', { receiver, err }, `${receiver}: UDP socket error`))
  const port = socket.address().port
  logger.info({ receiver, port, db: c.db, receiveBuffer: buffer.effective }, `collectd receiver listening on UDP ${port}`)
  const unwatch = deps.kernelDrops?.watch(receiver, port)
  return {
    port,
    async stop() {
      unwatch?.()
      await new Promise<void>((resolve) => socket.close(() => resolve()))
      await writer.close()
    },
  }
}

/**
 * Asks the kernel for `bytes` of receive buffer (0: leave the system default). Linux caps the
 * request at net.core.rmem_max and reports twice what it grants (its bookkeeping overhead), so
 * the effective size is the reported one halved.
 */
export function setReceiveBuffer(socket: Socket, bytes: number): { effective?: number } {
  try {
    if (bytes > 0) {
      socket.setRecvBufferSize(bytes)
    }
    const reported = socket.getRecvBufferSize()
    return { effective: process.platform === 'linux' ? Math.floor(reported / 2) : reported }
  } catch {
    return {}
  }
}

/**
 * bindUdp, then `<receiver>.udpReceiveBuffer` applied; a kernel that grants less (net.core.rmem_max)
 * is logged as a warning naming the flag.
 */
export async function bindUdpReceiver(host: string, port: number, receiver: string, bufferBytes: number, logger: Logger): Promise<{ socket: Socket; buffer: { effective?: number } }> {
  const socket = await bindUdp(host, port, receiver)
  const buffer = setReceiveBuffer(socket, bufferBytes)
  if (buffer.effective !== undefined && buffer.effective < bufferBytes) {
    logger.warn(
      { receiver, asked: bufferBytes, effective: buffer.effective },
      `${receiver}.udpReceiveBuffer: the kernel granted ${buffer.effective} of ${bufferBytes} bytes; raise net.core.rmem_max to allow more`,
    )
  }
  return { socket, buffer }
}

/**
 * A UDP socket bound to `host:port` (`''` = every interface: IPv6 dual-stack where the host has
 * IPv6, else IPv4). A failed bind names the flag so the operator knows what to change.
 */
export async function bindUdp(host: string, port: number, flagPrefix: string): Promise<Socket> {
  const attempt = (type: 'udp4' | 'udp6', address: string): Promise<Socket> =>
    new Promise((resolve, reject) => {
      const socket = createSocket({ type })
      socket.once('error', (err) => {
        socket.close()
        reject(err)
      })
      socket.bind(port, address, () => {
        socket.removeAllListeners('error')
        resolve(socket)
      })
    })
  try {
    if (host !== '') {
      return await attempt(host.includes(':') ? 'udp6' : 'udp4', host)
    }
    try {
      return await attempt('udp6', '::')
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
        throw err
      }
      return await attempt('udp4', '0.0.0.0')
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? ''
    throw new Error(
      `${flagPrefix}.port ${port}: cannot listen on UDP ${host || '*'}:${port} (${code || (err as Error).message}); ` +
        `choose another --${flagPrefix}.port or turn the receiver off with --${flagPrefix}.enable=false`,
      { cause: err },
    )
  }
}
