/**
 * The readiness prober of the ping bench, run as its own process as a kubelet is: GETs /-/ping
 * every 10 ms over one keep-alive connection per URL until the deadline and prints each probe's
 * send time (epoch ms), latency (ms) and URL index as JSON triples. With several URLs (the
 * adapter and the floor) it probes them in turn, `windowMs` each, so both see the same stretches
 * of the machine's load. Run by ping.bench.ts:
 * `node --import tsx bench/ping-prober.ts <url>[,<url>...] <until epoch ms> [<windowMs>]`.
 *
 * It writes a prepared request to a plain socket and reads the answer itself: node:http's client
 * cost ~0.7 ms of CPU per probe, and on a machine that ingest keeps busy the prober's own share
 * of the CPU showed up in the latencies it measured.
 */
import { connect, type Socket } from 'node:net'

const urls = process.argv[2].split(',').map((u) => new URL(u))
const until = Number(process.argv[3])
const windowMs = Number(process.argv[4] ?? 1000)

interface Target {
  request: Buffer
  socket: Socket
}

const targets: Target[] = await Promise.all(
  urls.map(async (url) => {
    const socket = connect({ host: url.hostname, port: Number(url.port), noDelay: true })
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve)
      socket.once('error', reject)
    })
    return { request: Buffer.from(`GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nConnection: keep-alive\r\n\r\n`, 'latin1'), socket }
  }),
)

/** One response on the socket: its status once the head and a Content-Length body have arrived. */
function answer(socket: Socket): Promise<number> {
  return new Promise((resolve, reject) => {
    let got = ''
    const onData = (b: Buffer): void => {
      got += b.toString('latin1')
      const end = got.indexOf('\r\n\r\n')
      if (end < 0) {
        return
      }
      const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(got.slice(0, end))?.[1] ?? 0)
      if (got.length < end + 4 + length) {
        return
      }
      if (got.length > end + 4 + length) {
        reject(new Error(`unexpected bytes after the /-/ping response: ${JSON.stringify(got)}`))
      }
      socket.off('data', onData)
      resolve(Number(got.slice(9, 12)))
    }
    socket.on('data', onData)
  })
}

const started = Date.now()
const out: [number, number, number][] = []
while (Date.now() < until) {
  const sent = Date.now()
  const index = Math.floor((sent - started) / windowMs) % targets.length
  const { request, socket } = targets[index]
  const t = performance.now()
  const pending = answer(socket)
  socket.write(request)
  const status = await pending
  out.push([sent, performance.now() - t, index])
  if (status < 200 || status > 299) {
    throw new Error(`${urls[index].href} answered ${status}`)
  }
  await new Promise((r) => setTimeout(r, 10))
}
for (const { socket } of targets) {
  socket.destroy()
}
process.stdout.write(JSON.stringify(out))
