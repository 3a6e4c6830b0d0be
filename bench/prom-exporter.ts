/**
 * The synthetic exporter of the promreal bench, run as its own process (as a real exporter is):
 * serves GET /metrics in the Prometheus text exposition format (0.0.4) with `series` gauges,
 * 100 per metric name, every value different from the previous scrape's.
 *
 *   node --import tsx bench/prom-exporter.ts <port> <series>
 *
 * Prints "listening" on stdout once it accepts connections; stops on SIGTERM.
 */
import { createServer } from 'node:http'

const [port, series] = [Number(process.argv[2]), Number(process.argv[3] ?? 10_000)]
const PER_NAME = 100

// the series' text up to the value is built once; a scrape only writes the values
const heads: string[] = []
for (let i = 0; i < series; i++) {
  const name = `synth_metric_${Math.floor(i / PER_NAME)}`
  const head = i % PER_NAME === 0 ? `# HELP ${name} A synthetic gauge.\n# TYPE ${name} gauge\n` : ''
  heads.push(`${head}${name}{series="s${String(i % PER_NAME).padStart(3, '0')}",group="g${i % 7}"} `)
}

let scrapes = 0
const server = createServer((req, res) => {
  if (req.method !== 'GET' || req.url !== '/metrics') {
    res.writeHead(404).end()
    return
  }
  const n = scrapes++
  const parts = new Array<string>(series)
  for (let i = 0; i < series; i++) {
    parts[i] = `${heads[i]}${((i * 7919 + n * 31) % 100_000) / 100}\n`
  }
  res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8' }).end(parts.join(''))
})
server.listen(port, '127.0.0.1', () => process.stdout.write('listening\n'))
process.on('SIGTERM', () => server.close(() => process.exit(0)))
