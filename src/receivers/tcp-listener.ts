/**
 * @module
 * A TCP listener for line protocols (telnet puts, StatsD over TCP): accepts connections up to a
 * per-listener cap, splits each connection's bytes into lines (`\n`, a trailing `\r` removed,
 * empty lines skipped) of at most `maxLineBytes`, and hands them in order to that connection's
 * handler. Nothing protocol-specific lives here.
 *
 * Memory stays bounded per connection: at most one partial line (<= maxLineBytes) is buffered, an
 * over-long line is skipped up to its `\n` without being kept, and while a handler's promise is
 * pending the socket is paused, so the kernel's window pushes back on the client.
 */
import { createServer, type Server, type Socket } from 'node:net'

export interface TcpLineConnection {
  /** `address:port` of the client */
  readonly remote: string
  /** sends bytes back to the client (ignored once the socket is gone) */
  write(data: string | Buffer): void
}

export type TcpCloseReason = 'end' | 'idle' | 'error' | 'shutdown'

export interface TcpLineHandler {
  /**
   * The complete lines of one read, in order. A returned promise pauses reading from this
   * connection until it settles (a rejection is reported to onError and reading goes on).
   */
  onLines(lines: string[]): void | Promise<void>
  /** a line longer than maxLineBytes was skipped (its bytes are not kept) */
  onOverlong?(): void
  /**
   * Called once, after the last onLines has settled: the peer closed, the connection idled out,
   * failed, or the listener is closing. The place to flush what the handler holds.
   */
  onClose(reason: TcpCloseReason): void | Promise<void>
  /** a socket error or a rejected onLines/onClose */
  onError?(err: Error): void
}

export interface TcpLineListenerOptions {
  /** `''`: every interface (IPv6 dual-stack where available) */
  host: string
  /** 0: any free port (see `port` of the result) */
  port: number
  /** connections open at once; the ones beyond are closed as soon as they are accepted */
  maxConnections: number
  /** SO_KEEPALIVE on accepted sockets */
  keepAlive?: boolean
  /** a connection without incoming bytes for this long is closed; 0: never */
  idleTimeoutMs?: number
  /** longest line kept, in bytes without its `\n` */
  maxLineBytes: number
  /**
   * A last line without `\n` when the peer closes: delivered (default) or dropped. Listener
   * shutdown always drops it (the client had not finished writing it).
   */
  finalFragment?: 'deliver' | 'drop'
  /** a handler per accepted connection */
  onConnection(conn: TcpLineConnection): TcpLineHandler
  /** a connection was refused because maxConnections were open */
  onRefused?(remote: string): void
}

export interface TcpLineListenerStats {
  accepted: number
  refused: number
  active: number
  overlong: number
  idleClosed: number
}

export interface TcpLineListener {
  /** the bound port */
  readonly port: number
  readonly stats: Readonly<TcpLineListenerStats>
  /**
   * Stops accepting, stops reading, lets every handler finish the lines already read and its
   * onClose, closes the sockets and resolves when all of that is done.
   */
  close(): Promise<void>
}

const LF = 10
const CR = 13

/** Listens on `host:port`; rejects with the socket error when it cannot bind. */
export async function startTcpLineListener(opts: TcpLineListenerOptions): Promise<TcpLineListener> {
  const stats: TcpLineListenerStats = { accepted: 0, refused: 0, active: 0, overlong: 0, idleClosed: 0 }
  const open = new Set<LineConnection>()
  let closing = false
  const server: Server = createServer({ pauseOnConnect: false, noDelay: true })
  server.on('connection', (socket) => {
    const remote = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? 0}`
    if (closing || open.size >= opts.maxConnections) {
      stats.refused++
      socket.destroy()
      opts.onRefused?.(remote)
      return
    }
    stats.accepted++
    if (opts.keepAlive === true) {
      socket.setKeepAlive(true)
    }
    const conn = new LineConnection(socket, remote, opts, stats, () => {
      open.delete(conn)
      stats.active = open.size
    })
    open.add(conn)
    stats.active = open.size
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen({ port: opts.port, ...(opts.host !== '' ? { host: opts.host } : {}) }, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : opts.port
  let closed: Promise<void> | undefined
  return {
    port,
    stats,
    close() {
      closed ??= (async () => {
        closing = true
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()))
        await Promise.all([...open].map((c) => c.shutdown()))
        await stopped
      })()
      return closed
    },
  }
}

/** One accepted socket: line splitting, ordered delivery with backpressure, one onClose. */
class LineConnection {
  readonly #socket: Socket
  readonly #opts: TcpLineListenerOptions
  readonly #stats: TcpLineListenerStats
  readonly #handler: TcpLineHandler
  readonly #onGone: () => void
  /** the start of a line whose `\n` has not arrived yet */
  #partial: Buffer[] = []
  #partialBytes = 0
  /** inside an over-long line: bytes are skipped up to the next `\n` */
  #skipping = false
  /** line batches waiting for the handler, in arrival order */
  #queue: string[][] = []
  #busy = false
  #idle: NodeJS.Timeout | undefined
  #closeReason: TcpCloseReason | undefined
  #finished: Promise<void> | undefined
  #resolveFinished: (() => void) | undefined
  /** onClose has been called: later bytes are ignored */
  #gone = false

  constructor(socket: Socket, remote: string, opts: TcpLineListenerOptions, stats: TcpLineListenerStats, onGone: () => void) {
    this.#socket = socket
    this.#opts = opts
    this.#stats = stats
    this.#onGone = onGone
    this.#handler = opts.onConnection({
      remote,
      write: (data) => {
        if (!socket.destroyed && socket.writable) {
          socket.write(data)
        }
      },
    })
    const idleMs = opts.idleTimeoutMs ?? 0
    if (idleMs > 0) {
      this.#idle = setTimeout(() => this.#onIdle(), idleMs)
    }
    socket.on('data', (chunk: Buffer) => {
      if (this.#gone) {
        return
      }
      this.#idle?.refresh()
      this.#split(chunk)
    })
    socket.on('end', () => {
      if (this.#partialBytes > 0 && !this.#skipping && (opts.finalFragment ?? 'deliver') === 'deliver') {
        this.#push([this.#takePartial()])
      }
      this.#finish('end')
    })
    socket.on('error', (err) => {
      this.#handler.onError?.(err)
      this.#finish('error')
    })
    socket.on('close', () => this.#finish('error'))
  }

  /** listener shutdown: no more reading; what was read is delivered, then onClose */
  shutdown(): Promise<void> {
    this.#socket.pause()
    this.#finish('shutdown')
    return this.#finished ?? Promise.resolve()
  }

  #onIdle(): void {
    if (this.#busy) {
      // the handler holds us paused: silence from the client is our own doing
      this.#idle?.refresh()
      return
    }
    this.#stats.idleClosed++
    this.#finish('idle')
  }

  #split(chunk: Buffer): void {
    const max = this.#opts.maxLineBytes
    const lines: string[] = []
    let pos = 0
    const len = chunk.length
    while (pos < len) {
      const nl = chunk.indexOf(LF, pos)
      if (nl < 0) {
        this.#keepPartial(chunk, pos, len, max)
        break
      }
      if (this.#skipping) {
        this.#skipping = false
      } else if (this.#partialBytes + (nl - pos) > max) {
        this.#partial = []
        this.#partialBytes = 0
        this.#overlong()
      } else {
        let line: Buffer
        if (this.#partialBytes > 0) {
          this.#partial.push(chunk.subarray(pos, nl))
          line = Buffer.concat(this.#partial)
          this.#partial = []
          this.#partialBytes = 0
        } else {
          line = chunk.subarray(pos, nl)
        }
        let end = line.length
        if (end > 0 && line[end - 1] === CR) {
          end--
        }
        if (end > 0) {
          lines.push(line.toString('utf8', 0, end))
        }
      }
      pos = nl + 1
    }
    if (lines.length > 0) {
      this.#push(lines)
    }
  }

  #keepPartial(chunk: Buffer, from: number, to: number, max: number): void {
    if (this.#skipping) {
      return
    }
    if (this.#partialBytes + (to - from) > max) {
      this.#partial = []
      this.#partialBytes = 0
      this.#skipping = true
      this.#overlong()
      return
    }
    // copied: the chunk may be a slice of a larger pooled buffer we must not pin
    this.#partial.push(Buffer.from(chunk.subarray(from, to)))
    this.#partialBytes += to - from
  }

  #takePartial(): string {
    const b = Buffer.concat(this.#partial)
    this.#partial = []
    this.#partialBytes = 0
    const end = b.length > 0 && b[b.length - 1] === CR ? b.length - 1 : b.length
    return b.toString('utf8', 0, end)
  }

  #overlong(): void {
    this.#stats.overlong++
    this.#handler.onOverlong?.()
  }

  #push(lines: string[]): void {
    this.#queue.push(lines)
    this.#pump()
  }

  /** delivers queued batches one after the other; pauses the socket while a promise is pending */
  #pump(): void {
    while (!this.#busy && this.#queue.length > 0) {
      const batch = this.#queue.shift() as string[]
      let result: void | Promise<void>
      try {
        result = this.#handler.onLines(batch)
      } catch (err) {
        this.#handler.onError?.(err as Error)
        continue
      }
      if (result instanceof Promise) {
        this.#busy = true
        this.#socket.pause()
        result
          .catch((err: unknown) => this.#handler.onError?.(err as Error))
          .finally(() => {
            this.#busy = false
            if (this.#closeReason === undefined) {
              this.#socket.resume()
            }
            this.#pump()
          })
        return
      }
    }
    if (!this.#busy && this.#closeReason !== undefined) {
      void this.#close()
    }
  }

  /** the first reason wins; delivery of what is queued goes on, then onClose */
  #finish(reason: TcpCloseReason): void {
    if (this.#closeReason !== undefined) {
      return
    }
    this.#closeReason = reason
    if (this.#idle !== undefined) {
      clearTimeout(this.#idle)
    }
    this.#finished = new Promise((resolve) => {
      this.#resolveFinished = resolve
    })
    if (reason !== 'end') {
      // idle, error, shutdown: nothing more is read (an 'end' socket has nothing more to give)
      this.#socket.pause()
    }
    this.#pump()
  }

  async #close(): Promise<void> {
    if (this.#resolveFinished === undefined) {
      return
    }
    const resolve = this.#resolveFinished
    this.#resolveFinished = undefined
    try {
      await this.#handler.onClose(this.#closeReason as TcpCloseReason)
    } catch (err) {
      this.#handler.onError?.(err as Error)
    }
    this.#gone = true
    // replies already written go out first, then the socket is destroyed (a lingering peer holds nothing)
    this.#socket.destroySoon()
    this.#onGone()
    resolve()
  }
}
