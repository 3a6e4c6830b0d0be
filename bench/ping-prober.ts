/**
 * The readiness prober of the ping bench, run as its own process as a kubelet is: GETs /-/ping
 * every 10 ms over one keep-alive connection until the deadline and prints the latencies (ms)
 * as JSON. Run by ping.bench.ts: `node --import tsx bench/ping-prober.ts <url> <until epoch ms>`.
 */
import { Agent, request } from 'node:http'

const [url, until] = [new URL(process.argv[2]), Number(process.argv[3])]
const agent = new Agent({ keepAlive: true, maxSockets: 1 })
const out: number[] = []
while (Date.now() < until) {
  const t = performance.now()
  const status = await new Promise<number>((resolve, reject) => {
    const req = request(url, { agent }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode ?? 0))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
  out.push(performance.now() - t)
  if (status !== 200) {
    throw new Error(`/-/ping answered ${status}`)
  }
  await new Promise((r) => setTimeout(r, 10))
}
agent.destroy()
process.stdout.write(JSON.stringify(out))
