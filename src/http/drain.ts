/**
 * @module
 * Graceful drain of the HTTP server at shutdown. Tracks connections and the responses on them
 * from the start; `drain()` then stops listening (new connections are refused), marks every
 * response not yet sent and every later one `Connection: close`, lets accepted requests finish
 * for up to the grace period, and cuts what is still running after it.
 *
 * Idle keep-alive connections are not closed at once (Node's `server.close()` would): a client in
 * the middle of a series may be sending its next request right now, and closing under it is a
 * reset on a request it already sent. A connection answered less than IDLE_LINGER_MS ago gets
 * the rest of that time to send it (and be answered with `Connection: close`); one idle for longer
 * is between a client's rounds (a scrape interval) and is closed at once, as at keep-alive expiry.
 */
import type { Server, ServerResponse } from 'node:http'
import { Server as NetServer } from 'node:net'
import type { Socket } from 'node:net'

/** How long after its last response a connection may still bring one more request. */
export const IDLE_LINGER_MS = 500
const SWEEP_MS = 50

interface Conn {
  /** responses not yet finished on this connection */
  busy: number
  /** performance.now() when it last became idle (or was opened) */
  idleSince: number
}

export interface DrainResult {
  /** connections still busy when the grace period ended, cut off */
  cut: number
}

export interface ConnectionTracker {
  /** responses being answered now */
  active(): number
  /** stops listening and drains; resolves once every connection is closed */
  drain(graceMs: number): Promise<DrainResult>
}

export function trackConnections(server: Server): ConnectionTracker {
  const conns = new Map<Socket, Conn>()
  const responses = new Set<ServerResponse>()
  let draining = false

  const closeIfIdle = (socket: Socket, c: Conn): void => {
    if (c.busy === 0 && performance.now() - c.idleSince >= IDLE_LINGER_MS) {
      conns.delete(socket)
      // FIN, not RST; a client that does not close its side as well is cut a moment later
      socket.end()
      setTimeout(() => socket.destroy(), IDLE_LINGER_MS).unref()
    }
  }

  server.on('connection', (socket: Socket) => {
    conns.set(socket, { busy: 0, idleSince: performance.now() })
    socket.once('close', () => conns.delete(socket))
  })
  // before the app's own listener: a response answered synchronously must still get the header
  server.prependListener('request', (req, res) => {
    const c = conns.get(req.socket)
    if (c !== undefined) {
      c.busy++
    }
    responses.add(res)
    if (draining) {
      res.setHeader('Connection', 'close')
    }
    res.once('close', () => {
      responses.delete(res)
      if (c !== undefined) {
        c.busy--
        c.idleSince = performance.now()
      }
    })
  })

  return {
    active: () => responses.size,
    drain(graceMs) {
      draining = true
      for (const res of responses) {
        if (!res.headersSent) {
          res.setHeader('Connection', 'close')
        } else {
          // already streaming: it cannot say so any more, so its connection ends after it
          const socket = res.socket
          res.once('finish', () => socket?.end())
        }
      }
      return new Promise<DrainResult>((resolve) => {
        let cut = 0
        const sweepIdle = (): void => {
          for (const [socket, c] of conns) {
            closeIfIdle(socket, c)
          }
        }
        sweepIdle()
        const sweep = setInterval(sweepIdle, SWEEP_MS)
        const deadline = setTimeout(() => {
          cut = responses.size
          server.closeAllConnections()
          for (const socket of conns.keys()) {
            socket.destroy()
          }
        }, graceMs)
        // net.Server's close, not http.Server's: stop listening without closing idle keep-alive
        // connections at once (see the module comment); the callback runs when all are closed
        NetServer.prototype.close.call(server, () => {
          clearInterval(sweep)
          clearTimeout(deadline)
          resolve({ cut })
        })
      })
    },
  }
}
