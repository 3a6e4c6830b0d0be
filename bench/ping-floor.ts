/**
 * The floor of the ping bench: the least a Node HTTP server can do for a readiness probe (204 to
 * GET /-/ping, 404 to anything else), in its own process, so the adapter's /-/ping latency under
 * ingest is read beside what Node itself costs on the same busy machine.
 *
 *   node --import tsx bench/ping-floor.ts <port>      prints "listening"; stops on SIGTERM
 */
import { createServer } from 'node:http'

const port = Number(process.argv[2])
const server = createServer((req, res) => {
  res.writeHead(req.method === 'GET' && req.url === '/-/ping' ? 204 : 404).end()
})
server.listen(port, '127.0.0.1', () => process.stdout.write('listening\n'))
process.on('SIGTERM', () => server.close(() => process.exit(0)))
