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
import { PointWriter, ThrottledLog, type ReceiverMetrics } from './point-writer.js'

export interface ReceiverDeps {
  config: AppConfig
  storage: Storage
  schemaless: Schemaless
  allPaused: () => boolean
  logger: Logger
  metrics: ReceiverMetrics
}

export interface RunningReceiver {
  /** the bound port (the real one when configured as 0) */
  port: number
  /** stops receiving, writes what is queued */
  stop(): Promise<void>
}

/** Kernel receive buffer asked for: collectd sends bursts at each interval. */
const RECV_BUFFER_BYTES = 4 * 1024 * 1024

export async function startCollagentReceiver(deps: ReceiverDeps): Promise<RunningReceiver> {
  const { config, logger, metrics } = deps
  const c = config.collagent
  const receiver = 'collagent'
  const writer = new PointWriter({
    receiver,
    db: c.db,
    user: c.user,
    password: c.password,
    ttl: c.ttl,
    storage: deps.storage,
    schemaless: deps.schemaless,
    allPaused: deps.allPaused,
    logger,
    metrics,
    maxPendingBatches: 2 * c.worker,
  })
  const log = new ThrottledLog(logger)
  const socket = await bindUdp(config.host, c.port, receiver)
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
  logger.info({ receiver, port, db: c.db }, `collectd receiver listening on UDP ${port}`)
  return {
    port,
    async stop() {
      await new Promise<void>((resolve) => socket.close(() => resolve()))
      await writer.close()
    },
  }
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
        try {
          socket.setRecvBufferSize(RECV_BUFFER_BYTES)
        } catch {
          // capped by net.core.rmem_max; the default buffer still works
        }
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
