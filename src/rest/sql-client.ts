import { IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
import type { SqlClient } from '../sql/result.js'

/**
 * The client connection of a /rest/sql request as performance_schema names it: one id per TCP
 * connection (a keep-alive client keeps its id across requests), its address and User-Agent.
 */

const ids = new WeakMap<Socket, number>()
let nextId = 1

export function sqlClient(env: unknown, userAgent: string | undefined): SqlClient | undefined {
  const incoming = (env as { incoming?: unknown } | undefined)?.incoming
  if (!(incoming instanceof IncomingMessage)) {
    return undefined
  }
  const socket = incoming.socket
  let connId = ids.get(socket)
  if (connId === undefined) {
    connId = nextId++
    ids.set(socket, connId)
  }
  const client: SqlClient = {
    connId,
    endpoint: `${socket.remoteAddress ?? ''}:${socket.remotePort ?? ''}`,
    onClose: (cb) => {
      socket.once('close', cb)
    },
  }
  if (userAgent !== undefined && userAgent !== '') {
    client.app = userAgent
  }
  return client
}
