/**
 * OpenTSDB telnet lines/s: the tsdbproto_telnet TCP receiver over 4 connections beside the same
 * lines POSTed to /tsdbproto/v1/put/telnet/<db> over 4 keep-alive connections, in one adapter
 * process, rounds alternating. A telnet round ends when the adapter has closed every connection
 * (it closes after writing what the connection sent); an HTTP round when every POST got its 204.
 * Drops: lines sent minus rows stored, and the receiver's dropped/malformed counters.
 */
import { connect } from 'node:net'
import { AUTH, freePort, postBodies, sql, startAdapterProcess } from './lib.js'

export interface TelnetBenchResult {
  lines: number
  rounds: number
  telnetLinesPerSec: number[]
  httpLinesPerSec: number[]
  telnetDropped: number
  httpDropped: number
  receiverCounters: string
}

const SERIES = 100
const CONNS = 4
const HTTP_LINES_PER_BODY = 1000
const T0 = 1_700_000_000_000

function lines(round: number, n: number): string[] {
  const out: string[] = new Array(n)
  for (let i = 0; i < n; i++) {
    out[i] = `put bench.cpu ${T0 + round * n + Math.floor(i / SERIES)} ${(i % 1000) / 10} host=h${i % SERIES} dc=dc${i % 4}\n`
  }
  return out
}

/** sends each share over its own connection (waiting on backpressure), resolves when the adapter closed them all */
async function sendTelnet(port: number, all: string[]): Promise<number> {
  const started = performance.now()
  await Promise.all(
    Array.from({ length: CONNS }, (_, c) =>
      new Promise<void>((resolve, reject) => {
        const s = connect(port, '127.0.0.1')
        s.once('error', reject)
        s.once('close', () => resolve())
        s.once('connect', async () => {
          const share = all.filter((_, i) => i % CONNS === c)
          for (let i = 0; i < share.length; i += 500) {
            if (!s.write(share.slice(i, i + 500).join(''))) {
              await new Promise((r) => s.once('drain', r))
            }
          }
          s.end()
        })
      }),
    ),
  )
  return (performance.now() - started) / 1000
}

async function stored(url: string, db: string): Promise<number> {
  const r = await sql(url, `select count(*) from ${db}.bench_cpu`)
  return Number(r.data?.[0]?.[0] ?? 0)
}

export async function runTelnetBench(log: (s: string) => void, linesPerRound = Number(process.env.BENCH_TELNET_LINES ?? 200_000), rounds = 3): Promise<TelnetBenchResult> {
  const telnetPort = await freePort()
  const adapter = await startAdapterProcess([
    '--storage.url=duckdb::memory:',
    '--tsdbproto_telnet.enable=true',
    `--tsdbproto_telnet.ports=${telnetPort}`,
    '--tsdbproto_telnet.dbs=bench_tel',
    '--statsagent.enable=false',
    '--hostexporter.enable=false',
    '--monitor.disable=true',
  ])
  const result: TelnetBenchResult = { lines: linesPerRound, rounds, telnetLinesPerSec: [], httpLinesPerSec: [], telnetDropped: 0, httpDropped: 0, receiverCounters: '' }
  try {
    await sql(adapter.url, "create database if not exists bench_http precision 'ns'")
    const httpUrl = `${adapter.url}/tsdbproto/v1/put/telnet/bench_http`
    // round 0 warms both paths up and creates the tables; it is not counted
    for (let round = 0; round <= rounds; round++) {
      const all = lines(round, linesPerRound)
      const telnetSeconds = await sendTelnet(telnetPort, all)
      const bodies: Buffer[] = []
      for (let i = 0; i < all.length; i += HTTP_LINES_PER_BODY) {
        bodies.push(Buffer.from(all.slice(i, i + HTTP_LINES_PER_BODY).join('')))
      }
      const { seconds: httpSeconds } = await postBodies(httpUrl, bodies, CONNS, { Authorization: AUTH })
      if (round > 0) {
        result.telnetLinesPerSec.push(linesPerRound / telnetSeconds)
        result.httpLinesPerSec.push(linesPerRound / httpSeconds)
        log(`round ${round}: telnet ${Math.round(linesPerRound / telnetSeconds)} lines/s, HTTP ${Math.round(linesPerRound / httpSeconds)} lines/s`)
      }
    }
    const expected = linesPerRound * (rounds + 1)
    result.telnetDropped = expected - (await stored(adapter.url, 'bench_tel'))
    result.httpDropped = expected - (await stored(adapter.url, 'bench_http'))
    const metrics = await (await fetch(`${adapter.url}/metrics`)).text()
    result.receiverCounters = metrics
      .split('\n')
      .filter((l) => l.startsWith('db_adapter_receiver_') && l.includes('tsdbproto_telnet'))
      .join('; ')
  } finally {
    await adapter.stop()
  }
  return result
}
