/**
 * @module
 * The StatsD receiver (`statsagent.*`): datagrams on UDP (default) or newline-separated lines on
 * TCP at `statsagent.port`, parsed (src/ingest/statsd/parse.ts), aggregated between gathers
 * (aggregate.ts) and, every `statsagent.gatherInterval`, written into `statsagent.db` as
 * `statsagent.user` through the shared PointWriter (privileges, counters, created on first write).
 *
 * Received messages (a datagram, or a TCP line) wait in a queue of at most
 * `statsagent.allowPendingMessages` (and MAX_PENDING_BYTES) for the parser, which runs in slices
 * between other work. UDP input beyond the bound is dropped and counted, as in the original; TCP
 * input waits instead (the socket is paused, so the client's window pushes back and nothing read
 * is lost). While the memory gate pauses everything, input is read and dropped (counted) and a
 * gather tick keeps its data for the next one: the loop itself never stops (the original's did).
 */
import type { Socket } from 'node:dgram'
import type { IngestParseError } from '../ingest/errors.js'
import { StatsdAggregator } from '../ingest/statsd/aggregate.js'
import { parseStatsdText, type StatsdSample } from '../ingest/statsd/parse.js'
import { bindUdpReceiver, type ReceiverDeps, type RunningReceiver } from './collagent.js'
import { receiverWriter, ThrottledLog } from './point-writer.js'
import { startTcpLineListener, type TcpLineListener } from './tcp-listener.js'

const RECEIVER = 'statsagent'
/** bytes of messages waiting for the parser, whatever allowPendingMessages says (64 KiB datagrams add up) */
export const MAX_PENDING_BYTES = 64 * 1024 * 1024
/** longest TCP line kept (a UDP datagram cannot be longer either) */
export const MAX_LINE_BYTES = 64 * 1024
/** series the aggregator holds between gathers, and set members in all */
export const MAX_SERIES = 200_000
export const MAX_SET_MEMBERS = 1_000_000
/** parser time before it lets other work run */
const SLICE_MS = 8

interface Pending {
  /** a datagram's text, or the lines of one TCP read */
  text: string | string[]
  bytes: number
  /** messages it counts for: 1 per datagram, 1 per line */
  messages: number
  from: string
}

export async function startStatsagentReceiver(deps: ReceiverDeps): Promise<RunningReceiver> {
  const { config, logger, metrics } = deps
  const c = config.statsagent
  const log = new ThrottledLog(logger)
  const writer = receiverWriter(RECEIVER, c, deps, 2 * c.worker)
  const agg = new StatsdAggregator({
    deleteCounters: c.deleteCounters,
    deleteGauges: c.deleteGauges,
    deleteSets: c.deleteSets,
    deleteTimings: c.deleteTimings,
    maxSeries: MAX_SERIES,
    maxSetMembers: MAX_SET_MEMBERS,
  })

  // the queue: an array with a moving head (shift() is linear)
  let queue: Pending[] = []
  let head = 0
  let pendingMessages = 0
  let pendingBytes = 0
  let draining: NodeJS.Immediate | undefined
  let roomWaiters: Array<{ need: number; resolve: () => void }> = []

  const packets = (result: 'accepted' | 'malformed' | 'dropped', n = 1): void => metrics.packets.inc({ receiver: RECEIVER, result }, n)
  const hasRoom = (messages: number, bytes: number): boolean =>
    pendingMessages === 0 || (pendingMessages + messages <= c.allowPendingMessages && pendingBytes + bytes <= MAX_PENDING_BYTES)

  const enqueue = (p: Pending): void => {
    queue.push(p)
    pendingMessages += p.messages
    pendingBytes += p.bytes
    draining ??= setImmediate(drain)
  }

  const onSample = (s: StatsdSample): void => {
    if (!agg.add(s)) {
      metrics.points.inc({ receiver: RECEIVER, result: 'dropped' })
      log.error('series', { receiver: RECEIVER, series: agg.series }, `${RECEIVER}: more than ${MAX_SERIES} series or ${MAX_SET_MEMBERS} set members since the last gather; new ones are dropped`)
    }
  }
  const parseOne = (text: string, from: string): boolean => {
    let first: IngestParseError | undefined
    parseStatsdText(text, onSample, (e) => {
      first ??= e
    })
    if (first !== undefined) {
      log.error('malformed', { receiver: RECEIVER, from, error: first.message }, `${RECEIVER}: malformed StatsD line`)
      return false
    }
    return true
  }

  /** parses queued messages for up to SLICE_MS, then yields */
  function drain(): void {
    draining = undefined
    const until = performance.now() + SLICE_MS
    while (head < queue.length) {
      const p = queue[head]
      queue[head++] = undefined as unknown as Pending
      if (typeof p.text === 'string') {
        packets(parseOne(p.text, p.from) ? 'accepted' : 'malformed')
      } else {
        let bad = 0
        for (const line of p.text) {
          if (!parseOne(line, p.from)) {
            bad++
          }
        }
        packets('accepted', p.text.length - bad)
        packets('malformed', bad)
      }
      pendingMessages -= p.messages
      pendingBytes -= p.bytes
      if (performance.now() >= until) {
        break
      }
    }
    if (head === queue.length) {
      queue = []
      head = 0
    } else if (head > 4096 && head * 2 > queue.length) {
      queue = queue.slice(head)
      head = 0
    }
    if (roomWaiters.length > 0) {
      const still: typeof roomWaiters = []
      for (const w of roomWaiters) {
        if (hasRoom(w.need, 0)) {
          w.resolve()
        } else {
          still.push(w)
        }
      }
      roomWaiters = still
    }
    if (head < queue.length) {
      draining = setImmediate(drain)
    }
  }

  const gather = (): void => {
    const points = agg.gather(BigInt(Date.now()) * 1_000_000n)
    writer.add(points)
  }
  const tick = (): void => {
    if (deps.allPaused()) {
      // nothing is written while paused: what is held waits for the next tick (the original's loop ended here for good)
      log.error('paused', { receiver: RECEIVER }, `${RECEIVER}: memory gate all-paused, gather skipped; input is dropped until it resumes`)
      return
    }
    gather()
  }
  const timer = setInterval(tick, c.gatherInterval)

  let socket: Socket | undefined
  let tcp: TcpLineListener | undefined
  let port: number
  try {
    if (c.protocol === 'tcp') {
      tcp = await startTcp()
      port = tcp.port
    } else {
      socket = (await bindUdpReceiver(config.host, c.port, RECEIVER, c.udpReceiveBuffer, logger)).socket
      port = startUdp(socket)
    }
  } catch (err) {
    clearInterval(timer)
    throw err
  }
  const unwatch = socket !== undefined ? deps.kernelDrops?.watch(RECEIVER, port) : undefined
  logger.info({ receiver: RECEIVER, port, protocol: c.protocol, db: c.db, gatherIntervalMs: c.gatherInterval }, `StatsD receiver listening on ${c.protocol.toUpperCase()} ${port}`)

  function startUdp(s: Socket): number {
    s.on('message', (msg, rinfo) => {
      if (deps.allPaused() || !hasRoom(1, msg.length)) {
        packets('dropped')
        if (!deps.allPaused()) {
          log.error('queue', { receiver: RECEIVER, pending: pendingMessages }, `${RECEIVER}: ${pendingMessages} messages wait for the parser (statsagent.allowPendingMessages ${c.allowPendingMessages}); dropping datagrams`)
        }
        return
      }
      enqueue({ text: msg.toString('utf8'), bytes: msg.length, messages: 1, from: `${rinfo.address}:${rinfo.port}` })
    })
    s.on('error', (err) => log.error('socket', { receiver: RECEIVER, err }, `${RECEIVER}: UDP socket error`))
    return s.address().port
  }

  async function startTcp(): Promise<TcpLineListener> {
    try {
      return await startTcpLineListener({
        host: config.host,
        port: c.port,
        maxConnections: c.maxTCPConnections,
        keepAlive: c.tcpKeepAlive,
        maxLineBytes: MAX_LINE_BYTES,
        onRefused: (remote) =>
          log.error('refused', { receiver: RECEIVER, remote }, `${RECEIVER}: more than statsagent.maxTCPConnections (${c.maxTCPConnections}) connections; closed the new one`),
        onConnection: (conn) => ({
          onLines(lines) {
            if (deps.allPaused()) {
              packets('dropped', lines.length)
              return
            }
            let bytes = 0
            for (const l of lines) {
              bytes += l.length
            }
            const p: Pending = { text: lines, bytes, messages: lines.length, from: conn.remote }
            if (hasRoom(p.messages, bytes)) {
              enqueue(p)
              return
            }
            // TCP can push back: the listener pauses this socket until there is room
            return new Promise<void>((resolve) => {
              roomWaiters.push({ need: p.messages, resolve })
            }).then(() => enqueue(p))
          },
          onOverlong() {
            packets('malformed')
            log.error('overlong', { receiver: RECEIVER, from: conn.remote }, `${RECEIVER}: a line longer than ${MAX_LINE_BYTES} bytes was skipped`)
          },
          onClose() {},
          onError(err) {
            log.error('tcp', { receiver: RECEIVER, from: conn.remote, err: err.message }, `${RECEIVER}: TCP connection error`)
          },
        }),
      })
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? ''
      throw new Error(
        `${RECEIVER}.port ${c.port}: cannot listen on TCP ${config.host || '*'}:${c.port} (${code || (err as Error).message}); ` +
          `choose another --${RECEIVER}.port or turn the receiver off with --${RECEIVER}.enable=false`,
        { cause: err },
      )
    }
  }

  let stopped: Promise<void> | undefined
  return {
    port,
    stop() {
      stopped ??= (async () => {
        clearInterval(timer)
        unwatch?.()
        if (socket !== undefined) {
          const s = socket
          await new Promise<void>((resolve) => s.close(() => resolve()))
        }
        // the TCP listener waits for lines already read: those waiting for room need the parser
        const closing = tcp?.close()
        while (head < queue.length || roomWaiters.length > 0) {
          if (draining !== undefined) {
            clearImmediate(draining)
          }
          drain()
          await new Promise((r) => setImmediate(r))
        }
        await closing
        while (head < queue.length) {
          drain()
        }
        if (draining !== undefined) {
          clearImmediate(draining)
          draining = undefined
        }
        // what was read and aggregated since the last gather is written, not lost
        if (!deps.allPaused()) {
          gather()
        }
        await writer.close()
      })()
      return stopped
    },
  }
}
