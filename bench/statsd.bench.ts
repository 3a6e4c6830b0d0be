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

export interface StatsdBenchResult {
  lines: number
  rounds: number
  datagrams: number
  udpLinesPerSec: number[]
  httpLinesPerSec: number[]
  /** datagrams (and their lines) lost over UDP in the counted rounds */
  udpDroppedDatagrams: number
  udpDroppedLines: number
  httpDroppedLines: number
  receiverCounters: string
}

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

/** sends every datagram (IN_FLIGHT at a time); resolves with the seconds until the receiver had them all, and how many it accepted */
async function sendUdp(url: string, port: number, all: { buf: Buffer }[]): Promise<{ seconds: number; accepted: number; kernel: number }> {
  const before = await receiverCounts(url)
  const socket = createSocket('udp4')
  const started = performance.now()
  let next = 0
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < all.length) {
        const d = all[next++]
        await new Promise<void>((resolve) => socket.send(d.buf, port, '127.0.0.1', () => resolve()))
      }
    }),
  )
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
    udpLinesPerSec: [],
    httpLinesPerSec: [],
    udpDroppedDatagrams: 0,
    udpDroppedLines: 0,
    httpDroppedLines: 0,
    receiverCounters: '',
  }
  try {
    await sql(adapter.url, 'create database if not exists bench_http')
    const httpUrl = `${adapter.url}/lineproto/v1/write?db=bench_http&precision=ms`
    let httpSent = 0
    // round 0 warms both paths up and creates the tables; it is not counted
    for (let round = 0; round <= rounds; round++) {
      const { statsd, lp } = data(round, linesPerRound)
      const grams = datagrams(statsd)
      result.datagrams = grams.length
      const udp = await sendUdp(adapter.url, port, grams)
      const bodies: Buffer[] = []
      for (let i = 0; i < lp.length; i += HTTP_LINES_PER_BODY) {
        bodies.push(Buffer.from(lp.slice(i, i + HTTP_LINES_PER_BODY).join('')))
      }
      const { seconds: httpSeconds } = await postBodies(httpUrl, bodies, CONNS, { Authorization: AUTH })
      httpSent += lp.length
      if (round > 0) {
        // lines the receiver took in, per second (a datagram holds a fixed number of lines but the last)
        const linesPerGram = linesPerRound / grams.length
        const lost = grams.length - udp.accepted
        result.udpDroppedDatagrams += lost
        result.udpDroppedLines += Math.round(lost * linesPerGram)
        const udpRate = (udp.accepted * linesPerGram) / udp.seconds
        result.udpLinesPerSec.push(udpRate)
        result.httpLinesPerSec.push(linesPerRound / httpSeconds)
        log(
          `round ${round}: StatsD/UDP ${Math.round(udpRate)} lines/s (${lost} of ${grams.length} datagrams lost, ${udp.kernel} by the kernel), ` +
            `HTTP ${Math.round(linesPerRound / httpSeconds)} lines/s`,
        )
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
