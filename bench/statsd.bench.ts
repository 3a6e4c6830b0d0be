/**
 * StatsD lines/s: the statsagent UDP receiver beside the same lines sent as line protocol to
 * /lineproto/v1/write (one row per line, 4 keep-alive connections, 1,000-line bodies), in one
 * adapter process, rounds alternating. The sender packs lines into datagrams of at most 1,400
 * bytes (what clients keep under an Ethernet MTU) and keeps a bounded number of sends in flight;
 * a UDP round ends when the receiver has accounted for every datagram (accepted, malformed or
 * dropped on /metrics) or nothing changed for a second. Drops: datagrams the receiver dropped
 * (queue bound), the kernel dropped (socket buffer full) or that never showed up; HTTP: lines
 * sent minus rows stored.
 */
import { createSocket } from 'node:dgram'
import { AUTH, freePort, postBodies, sql, startAdapterProcess } from './lib.js'

/** StatsD/UDP sent at `pace` x the HTTP rate of the same round */
export interface StatsdPaceResult {
  pace: number
  /** lines the receiver took in per second, per counted round */
  linesPerSec: number[]
  /** datagrams lost (receiver queue, kernel buffer or never seen) in the counted rounds */
  droppedDatagrams: number
  droppedLines: number
}

export interface StatsdBenchResult {
  lines: number
  rounds: number
  /** datagrams per round */
  datagrams: number
  httpLinesPerSec: number[]
  httpDroppedLines: number
  udp: StatsdPaceResult[]
  receiverCounters: string
}

/** offered StatsD rates, as multiples of the HTTP rate just measured */
const PACES = [1, 2, 3]
const SERIES = 100
const CONNS = 4
const HTTP_LINES_PER_BODY = 1000
const DATAGRAM_BYTES = 1400
const IN_FLIGHT = 64
const T0 = 1_700_000_000_000

/** the same data twice: StatsD lines and their line-protocol rows (one per line, ms) */
function data(round: number, n: number): { statsd: string[]; lp: string[] } {
  const statsd: string[] = new Array(n)
  const lp: string[] = new Array(n)
  for (let i = 0; i < n; i++) {
    const host = `h${i % SERIES}`
    const v = (i % 1000) / 10
    const ts = T0 + round * n + i
    switch (i % 3) {
      case 0:
        statsd[i] = `bench.req,host=${host}:1|c`
        lp[i] = `bench_req,host=${host},metric_type=counter value=1i ${ts}\n`
        break
      case 1:
        statsd[i] = `bench.lat,host=${host}:${v}|ms`
        lp[i] = `bench_lat,host=${host},metric_type=timing value=${v} ${ts}\n`
        break
      default:
        statsd[i] = `bench.load,host=${host}:${v}|g`
        lp[i] = `bench_load,host=${host},metric_type=gauge value=${v} ${ts}\n`
    }
  }
  return { statsd, lp }
}

function datagrams(lines: string[]): { buf: Buffer; lines: number }[] {
  const out: { buf: Buffer; lines: number }[] = []
  let cur: string[] = []
  let bytes = 0
  for (const l of lines) {
    if (bytes + l.length + 1 > DATAGRAM_BYTES && cur.length > 0) {
      out.push({ buf: Buffer.from(cur.join('\n')), lines: cur.length })
      cur = []
      bytes = 0
    }
    cur.push(l)
    bytes += l.length + 1
  }
  if (cur.length > 0) {
    out.push({ buf: Buffer.from(cur.join('\n')), lines: cur.length })
  }
  return out
}

async function receiverCounts(url: string): Promise<{ seen: number; accepted: number; kernel: number }> {
  const text = await (await fetch(`${url}/metrics`)).text()
  const get = (re: RegExp): number => Number(re.exec(text)?.[1] ?? 0)
  const accepted = get(/^db_adapter_receiver_packets_total\{receiver="statsagent",result="accepted"\} (\S+)$/m)
  const malformed = get(/^db_adapter_receiver_packets_total\{receiver="statsagent",result="malformed"\} (\S+)$/m)
  const dropped = get(/^db_adapter_receiver_packets_total\{receiver="statsagent",result="dropped"\} (\S+)$/m)
  const kernel = get(/^db_adapter_receiver_kernel_drops_total\{receiver="statsagent"\} (\S+)$/m)
  return { seen: accepted + malformed + dropped, accepted, kernel }
}

/**
 * Sends every datagram paced at `linesPerSec` (each millisecond what is due by then, as a client
 * reporting continuously would; an unpaced burst only measures the kernel's socket buffer);
 * resolves when the receiver has accounted for all of them, with the seconds from the first send
 * and the datagrams it accepted.
 */
async function sendUdp(url: string, port: number, all: { buf: Buffer; lines: number }[], linesPerSec: number): Promise<{ seconds: number; accepted: number; kernel: number }> {
  const before = await receiverCounts(url)
  const socket = createSocket('udp4')
  const linesPerGram = all.reduce((n, d) => n + d.lines, 0) / all.length
  const started = performance.now()
  let next = 0
  let inFlight = 0
  while (next < all.length) {
    const due = Math.min(all.length, Math.floor((((performance.now() - started) / 1000) * linesPerSec) / linesPerGram) + 1)
    while (next < due && inFlight < IN_FLIGHT) {
      inFlight++
      socket.send(all[next++].buf, port, '127.0.0.1', () => inFlight--)
    }
    await new Promise((r) => setTimeout(r, 1))
  }
  while (inFlight > 0) {
    await new Promise((r) => setTimeout(r, 1))
  }
  socket.close()
  let last = await receiverCounts(url)
  let lastChange = performance.now()
  while (last.seen - before.seen + (last.kernel - before.kernel) < all.length && performance.now() - lastChange < 1000) {
    await new Promise((r) => setTimeout(r, 20))
    const now = await receiverCounts(url)
    if (now.seen !== last.seen) {
      lastChange = performance.now()
    }
    last = now
  }
  return { seconds: (lastChange - started) / 1000, accepted: last.accepted - before.accepted, kernel: last.kernel - before.kernel }
}

export async function runStatsdBench(log: (s: string) => void, linesPerRound = Number(process.env.BENCH_STATSD_LINES ?? 200_000), rounds = 3): Promise<StatsdBenchResult> {
  const port = await freePort()
  const adapter = await startAdapterProcess([
    '--storage.url=duckdb::memory:',
    '--statsagent.enable=true',
    `--statsagent.port=${port}`,
    '--statsagent.gatherInterval=1s',
    '--hostexporter.enable=false',
    '--monitor.disable=true',
  ])
  const result: StatsdBenchResult = {
    lines: linesPerRound,
    rounds,
    datagrams: 0,
    httpLinesPerSec: [],
    httpDroppedLines: 0,
    udp: PACES.map((pace) => ({ pace, linesPerSec: [], droppedDatagrams: 0, droppedLines: 0 })),
    receiverCounters: '',
  }
  try {
    await sql(adapter.url, 'create database if not exists bench_http')
    const httpUrl = `${adapter.url}/lineproto/v1/write?db=bench_http&precision=ms`
    let httpSent = 0
    // round 0 warms both paths up and creates the tables; it is not counted
    for (let round = 0; round <= rounds; round++) {
      const { statsd, lp } = data(round, linesPerRound)
      const bodies: Buffer[] = []
      for (let i = 0; i < lp.length; i += HTTP_LINES_PER_BODY) {
        bodies.push(Buffer.from(lp.slice(i, i + HTTP_LINES_PER_BODY).join('')))
      }
      const { seconds: httpSeconds } = await postBodies(httpUrl, bodies, CONNS, { Authorization: AUTH })
      httpSent += lp.length
      const httpRate = linesPerRound / httpSeconds
      const grams = datagrams(statsd)
      result.datagrams = grams.length
      const linesPerGram = linesPerRound / grams.length
      const said: string[] = []
      for (const p of result.udp) {
        const udp = await sendUdp(adapter.url, port, grams, httpRate * p.pace)
        const lost = grams.length - udp.accepted
        const rate = (udp.accepted * linesPerGram) / udp.seconds
        if (round > 0) {
          p.linesPerSec.push(rate)
          p.droppedDatagrams += lost
          p.droppedLines += Math.round(lost * linesPerGram)
        }
        said.push(`at ${p.pace}x ${Math.round(rate)} lines/s (${lost} of ${grams.length} datagrams lost, ${udp.kernel} by the kernel)`)
      }
      if (round > 0) {
        result.httpLinesPerSec.push(httpRate)
        log(`round ${round}: HTTP ${Math.round(httpRate)} lines/s; StatsD/UDP ${said.join(', ')}`)
      }
    }
    let stored = 0
    for (const t of ['bench_req', 'bench_lat', 'bench_load']) {
      const r = await sql(adapter.url, `select count(*) from bench_http.${t}`)
      stored += Number(r.data?.[0]?.[0] ?? 0)
    }
    // all rounds are in the table; the counted ones are the last `rounds`
    result.httpDroppedLines = httpSent - stored
    const metrics = await (await fetch(`${adapter.url}/metrics`)).text()
    result.receiverCounters = metrics
      .split('\n')
      .filter((l) => l.startsWith('db_adapter_receiver_') && l.includes('statsagent'))
      .join('; ')
  } finally {
    await adapter.stop()
  }
  return result
}
