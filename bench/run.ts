/**
 * `npm run bench`: prints the figures the issues ask for. Each section runs the real adapter
 * process beside a floor (the same work done directly in the backend).
 * Select sections with BENCH=sql,join,lp,tsbs,tsbsq,prom,promreal,lp-peers,lp-paired,ping,pg,card,telnet,statsd,group (default: sql,join,lp,tsbs,tsbsq,prom,promreal,ping,pg,card,telnet,statsd; pg needs
 * Docker or BENCH_PG_URL; lp-peers and tsbsq need InfluxDB and VictoriaMetrics from ../shared/tools/peers.sh (tsbsq fails without them), lp-paired InfluxDB;
 * BENCH_PAIRED_ROUNDS sets lp-paired's rounds, default 5; BENCH_PAIRED_B_DIR / BENCH_PAIRED_B_ARGS pair
 * the adapter with a second adapter, another checkout or other flags, instead of InfluxDB).
 */
import { fmt } from './lib.js'
import { runCardinalityBench } from './cardinality.bench.js'
import { runPingBench, type Latency } from './ping.bench.js'
import { groupTable, runGroupCommitBench } from './group-commit.bench.js'
import { promTable, runPromBench } from './prom.bench.js'
import { runPromRealBench } from './prom-real.bench.js'
import { runPgBench } from './postgres.bench.js'
import { lpRunLabel, pairedAgainstFromEnv, pairedSummary, runLpBench, runLpPairedBench, runLpPeersBench } from './lineproto.bench.js'
import { runSqlBench } from './sql.bench.js'
import { runJoinBench } from './join.bench.js'
import { runStatsdBench } from './statsd.bench.js'
import { runTsbsBench, tsbsBodies } from './tsbs.bench.js'
import { runTelnetBench } from './telnet.bench.js'
import { runTsbsQueryBench } from './tsbs-query.bench.js'

const selected = new Set((process.env.BENCH ?? 'sql,join,lp,tsbs,tsbsq,prom,promreal,ping,pg,card,telnet,statsd').split(',').map((s) => s.trim()))
const log = (s: string) => process.stdout.write(`  ${s}\n`)

if (selected.has('sql')) {
  console.log('/rest/sql over embedded DuckDB')
  const r = await runSqlBench(log)
  console.table({
    'ingest rows/s (10,000-row INSERTs)': {
      adapter: fmt(r.restIngestRowsPerSec),
      'raw DuckDB': fmt(r.rawIngestRowsPerSec),
      ratio: fmt(r.restIngestRowsPerSec / r.rawIngestRowsPerSec, 2),
    },
    [`INTERVAL(1m) PARTITION BY tbname, ${fmt(r.aggRows)} result rows, median ms to the last byte`]: {
      adapter: fmt(r.restAggMs, 1),
      'raw DuckDB': fmt(r.rawAggMs, 1),
      ratio: fmt(r.restAggMs / r.rawAggMs, 2),
    },
    '  of which until the first byte (backend query done), ms': {
      adapter: fmt(r.restAggFirstByteMs, 1),
      'raw DuckDB': fmt(r.rawAggMs, 1),
      ratio: fmt(r.restAggFirstByteMs / r.rawAggMs, 2),
    },
    [`STATE_WINDOW(CASE ...) PARTITION BY tbname, ${fmt(r.stateRows)} windows, median ms to the last byte`]: {
      adapter: fmt(r.restStateMs, 1),
      'raw DuckDB': fmt(r.rawStateMs, 1),
      ratio: fmt(r.restStateMs / r.rawStateMs, 2),
    },
    [`${fmt(r.streamRows)}-row result streamed (${fmt(r.streamBytes / 1048576, 0)} MiB of JSON), ms`]: {
      adapter: fmt(r.streamMs, 0),
      'raw DuckDB': '-',
      ratio: '-',
    },
    'adapter RSS before the 1M-row query / peak while it streamed, MiB': { adapter: `${fmt(r.rssBeforeStreamMiB, 0)} / ${fmt(r.streamPeakRssMiB, 0)}`, 'raw DuckDB': '-', ratio: '-' },
    'adapter peak RSS (whole section), MiB': { adapter: fmt(r.peakRssMiB, 0), 'raw DuckDB': '-', ratio: '-' },
  })
}

if (selected.has('join')) {
  console.log('JOIN on the primary timestamp over /rest/sql (embedded DuckDB)')
  const r = await runJoinBench(log)
  console.table({
    [`${fmt(r.rows)} x ${fmt(r.rows)} rows, ${fmt(r.matches)} matches, count + avg, median ms`]: {
      adapter: fmt(r.restMs, 1),
      'raw DuckDB': fmt(r.rawMs, 1),
      ratio: fmt(r.restMs / r.rawMs, 2),
    },
  })
}

if (selected.has('ping')) {
  console.log('/-/ping under load: line-protocol ingest at full speed into the adapter; the adapter and a trivial Node server (the floor) probed in alternating windows (target: adapter p99 within 1.5x of the floor)')
  const r = await runPingBench(log)
  const row = (a: Latency, f: Latency) => ({
    'adapter p50': fmt(a.p50, 2),
    'floor p50': fmt(f.p50, 2),
    'p50 ratio': fmt(a.p50 / f.p50, 2),
    'adapter p99': fmt(a.p99, 2),
    'floor p99': fmt(f.p99, 2),
    'p99 ratio': fmt(a.p99 / f.p99, 2),
    'adapter max': fmt(a.max, 2),
    'floor max': fmt(f.max, 2),
    probes: `${a.samples} / ${f.samples}`,
  })
  console.table({
    '/-/ping idle, ms': row(r.idle, r.idleFloor),
    '/-/ping under ingest, ms': row(r.loaded, r.loadedFloor),
  })
  log(`first seconds of ingest (warm-up, adapter): p50 ${fmt(r.warmup.p50, 2)} ms, p99 ${fmt(r.warmup.p99, 2)} ms, max ${fmt(r.warmup.max, 2)} ms`)
  log(`adapter event-loop lag: p99 ${fmt(r.eventLoopLagP99Ms, 1)} ms, max ${fmt(r.eventLoopLagMaxMs, 1)} ms`)
  log(`ingest meanwhile: ${fmt(r.ingestPointsPerSec)} points/s, ${r.writeErrors} failed writes`)
}

if (selected.has('telnet')) {
  console.log('OpenTSDB telnet lines/s: TCP receiver (4 connections, batchSize 1) beside POST /tsdbproto/v1/put/telnet (4 connections, 1,000 lines a body), alternating rounds')
  const r = await runTelnetBench(log)
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  console.table({
    [`lines/s, median of ${r.rounds} rounds of ${fmt(r.lines)} lines`]: {
      'telnet TCP': fmt(med(r.telnetLinesPerSec)),
      'HTTP telnet': fmt(med(r.httpLinesPerSec)),
      ratio: fmt(med(r.telnetLinesPerSec) / med(r.httpLinesPerSec), 2),
    },
    'lines not stored (drops)': { 'telnet TCP': r.telnetDropped, 'HTTP telnet': r.httpDropped, ratio: '-' },
  })
  log(`receiver counters: ${r.receiverCounters}`)
}

if (selected.has('card')) {
  console.log('memory per super table, marginal (one-row measurements; floor: the same tables made directly in DuckDB)')
  const r = await runCardinalityBench(log)
  const kb = (v: number): string => fmt(v, 1)
  const buffers = (m: Record<string, number>): string => Object.entries(m).map(([t, v]) => `${t} ${kb(v)}`).join(', ') || '-'
  console.table({
    'adapter process, HTTP line protocol (RSS)': { 'KiB per super table': kb(r.adapterRss), note: 'checkpoints every 256 new tables' },
    'schemaless core, after the writes (RSS)': { 'KiB per super table': kb(r.core.written), note: '' },
    'schemaless core, after CHECKPOINT (RSS, steady state)': { 'KiB per super table': kb(r.core.checkpointed), note: `V8 heap ${kb(r.core.heap)}; DuckDB buffers: ${buffers(r.core.duckdb)}` },
    'schemaless core, database file after CHECKPOINT (disk)': { 'KiB per super table': kb(r.core.fileKiB), note: 'one 256 KiB block per table holding a non-constant segment' },
    'schemaless core, after a restart (RSS)': { 'KiB per super table': kb(r.core.reopened), note: `DuckDB buffers: ${buffers(r.core.duckdbReopened)}` },
    'raw DuckDB, data + $tags tables (RSS after CHECKPOINT)': { 'KiB per super table': kb(r.raw.pair), note: 'tables of its own (an altered super table)' },
    'raw DuckDB, one table alone (RSS after CHECKPOINT)': { 'KiB per super table': kb(r.raw.single), note: 'one physical table per super table' },
    'raw DuckDB, two views over shared tables (RSS after CHECKPOINT)': { 'KiB per super table': kb(r.raw.views), note: 'the floor of the shared layout' },
  })
  log(`marginal between ${fmt(r.stables[0])} and ${fmt(r.stables[1])} super tables, memory_limit ${r.memoryLimit}`)
}

if (selected.has('pg')) {
  console.log('/rest/sql over PostgreSQL')
  try {
    const r = await runPgBench(log)
    console.table({
      'ingest rows/s (10,000-row INSERTs; raw = COPY, 10,000 rows each)': {
        adapter: fmt(r.restIngestRowsPerSec),
        'raw PostgreSQL': fmt(r.rawCopyRowsPerSec),
        ratio: fmt(r.restIngestRowsPerSec / r.rawCopyRowsPerSec, 2),
      },
      [`INTERVAL(1m) PARTITION BY tbname, ${fmt(r.aggRows)} result rows, median ms to the last byte`]: {
        adapter: fmt(r.restAggMs, 1),
        'raw PostgreSQL': fmt(r.rawAggMs, 1),
        ratio: fmt(r.restAggMs / r.rawAggMs, 2),
      },
      '  of which until the first byte (backend query done), ms': {
        adapter: fmt(r.restAggFirstByteMs, 1),
        'raw PostgreSQL': fmt(r.rawAggMs, 1),
        ratio: fmt(r.restAggFirstByteMs / r.rawAggMs, 2),
      },
    })
  } catch (err) {
    // no Docker and no BENCH_PG_URL: say so instead of failing the other sections
    log(`PostgreSQL section skipped: ${err instanceof Error ? err.message : String(err)}`)
  }
}

if (selected.has('lp')) {
  console.log('line protocol over /lineproto/v1/write (gen_lp.mjs: 1000 series, batches of 5000, ms)')
  const runs = await runLpBench(log)
  console.table(
    Object.fromEntries(
      runs.map((r) => [
        lpRunLabel(r),
        { points: fmt(r.points), 'points/s': fmt(r.pointsPerSec), 'adapter peak RSS, MiB': fmt(r.peakRssMiB, 0) },
      ]),
    ),
  )
}

if (selected.has('tsbs')) {
  console.log('TSBS-style line protocol over /lineproto/v1/write (cpu: 4000 hosts, 10 tags, 10 fields, batches of 5000, ns)')
  const runs = await runTsbsBench(log)
  console.table(
    Object.fromEntries(
      runs.map((r) => [
        `concurrency ${r.concurrency}`,
        { points: fmt(r.points), 'points/s': fmt(r.pointsPerSec), 'values/s': fmt(r.valuesPerSec), 'adapter peak RSS, MiB': fmt(r.peakRssMiB, 0) },
      ]),
    ),
  )
}

if (selected.has('tsbsq')) {
  const r = await runTsbsQueryBench(log)
  console.log(
    `TSBS cpu-only queries (${fmt(r.hosts)} hosts x ${r.hours} h at 10 s, ${fmt(r.points)} rows; median ms to the last byte of ${r.rounds} rounds, systems alternating; ratio = adapter / peer, < 1 is the adapter ahead)`,
  )
  const cell = (ms: number | undefined): string => (ms === undefined ? 'n/a' : fmt(ms, 1))
  const ratio = (a: number | undefined, b: number | undefined): string => (a === undefined || b === undefined ? 'n/a' : fmt(a / b, 2))
  console.table(
    Object.fromEntries(
      r.rows.map((q) => [
        q.type,
        {
          adapter: cell(q.ms.adapter),
          ...(q.ms['adapter-b'] === undefined ? {} : { 'adapter B': cell(q.ms['adapter-b']), 'A / B': ratio(q.ms.adapter, q.ms['adapter-b']) }),
          'InfluxDB 1.6': cell(q.ms.influxdb),
          'vs InfluxDB': ratio(q.ms.adapter, q.ms.influxdb),
          VictoriaMetrics: cell(q.ms['victoria-metrics']),
          'vs VM': ratio(q.ms.adapter, q.ms['victoria-metrics']),
          'answer rows': fmt(q.rows),
        },
      ]),
    ),
  )
  log(`load at concurrency 2, s: adapter ${fmt(r.loadSeconds.adapter ?? 0, 1)}, InfluxDB ${fmt(r.loadSeconds.influxdb ?? 0, 1)}, VictoriaMetrics ${fmt(r.loadSeconds['victoria-metrics'] ?? 0, 1)}`)
}

if (selected.has('prom')) {
  console.log('Prometheus remote write (bodies of 2,000 samples, 10,000 series) beside VictoriaMetrics and line protocol of the same samples, runs alternating; remote read')
  const r = await runPromBench(log)
  console.table(promTable(r))
  if (!Number.isNaN(r.readMs)) {
    log(`remote read of one series with ${fmt(r.readSamples)} samples: median ${fmt(r.readMs, 0)} ms; adapter peak RSS ${fmt(r.peakRssMiB, 0)} MiB`)
  }
}

if (selected.has('group')) {
  console.log('group commit: concurrent appendColumns calls of 2,000 rows into a DuckDB file (engine only, runs alternating between builds)')
  console.table(groupTable(runGroupCommitBench(log)))
}

if (selected.has('promreal')) {
  console.log('remote write from a real Prometheus 2.42 (scraping 10,000 synthetic series every 1 s, queue_config defaults), windows alternating')
  const r = await runPromRealBench(log)
  const sum = (target: string, pick: (w: (typeof r.windows)[number]) => number): number =>
    r.windows.filter((w) => w.target === target).reduce((a, w) => a + pick(w), 0)
  const cpuPerSample = (target: string): number => (sum(target, (w) => w.cpuSeconds) / sum(target, (w) => w.sent)) * 1e6
  console.table(
    Object.fromEntries(
      ['adapter', 'VictoriaMetrics'].map((t) => [
        t,
        {
          windows: r.windows.filter((w) => w.target === t).length,
          'samples sent': fmt(sum(t, (w) => w.sent)),
          failed: fmt(sum(t, (w) => w.failed)),
          dropped: fmt(sum(t, (w) => w.dropped)),
          retried: fmt(sum(t, (w) => w.retried)),
          'metadata failed': fmt(sum(t, (w) => w.metadataFailed)),
          'max lag, s': fmt(Math.max(...r.windows.filter((w) => w.target === t).map((w) => w.maxLagSeconds)), 1),
          'stored / scraped up to T': `${fmt(sum(t, (w) => w.stored))} / ${fmt(sum(t, (w) => w.scraped))}`,
          'CPU µs a sample': fmt(cpuPerSample(t), 2),
          'x VictoriaMetrics': fmt(cpuPerSample(t) / cpuPerSample('VictoriaMetrics'), 2),
        },
      ]),
    ),
  )
}

if (selected.has('lp-peers')) {
  console.log('line protocol, same workloads against peers (peers.sh)')
  const peers = await runLpPeersBench(log, tsbsBodies())
  console.table(
    Object.fromEntries(
      Object.entries(peers).flatMap(([name, runs]) =>
        runs.map((r) => [`${name}, ${lpRunLabel(r)}`, { points: fmt(r.points), 'points/s': fmt(r.pointsPerSec) }]),
      ),
    ),
  )
}

if (selected.has('lp-paired')) {
  const against = pairedAgainstFromEnv()
  const otherName = against?.name ?? 'InfluxDB 1.6'
  console.log(`line protocol, adapter and ${otherName} run for run (gen_lp.mjs, paired rounds)`)
  const paired = await runLpPairedBench(log, Number(process.env.BENCH_PAIRED_ROUNDS ?? 5), against)
  if (paired !== undefined) {
    console.table(
      Object.fromEntries(
        paired.map((p) => {
          const s = pairedSummary(p)
          return [
            `concurrency ${p.concurrency}`,
            {
              'adapter, median points/s': fmt(s.adapter),
              [`${otherName}, median points/s`]: fmt(s.other),
              ratio: fmt(s.ratio, 2),
              'mean ln(ratio) ± se': `${s.logRatio >= 0 ? '+' : ''}${fmt(s.logRatio, 3)} ± ${fmt(s.logRatioSe, 3)}`,
              'adapter ahead in': `${s.wins} of ${s.rounds} rounds`,
            },
          ]
        }),
      ),
    )
  }
}

if (selected.has('statsd')) {
  console.log('StatsD lines over UDP (statsagent, 1,400-byte datagrams) beside the same lines as line protocol over HTTP (4 connections, 1,000-line bodies), rounds alternating')
  const r = await runStatsdBench(log)
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const http = median(r.httpLinesPerSec)
  console.table({
    [`line protocol/HTTP, median of ${r.rounds} rounds of ${fmt(r.lines)} lines`]: { 'lines/s': fmt(http), 'x HTTP': '1.00', 'lines lost': fmt(r.httpDroppedLines) },
    ...Object.fromEntries(
      r.udp.map((u) => [
        `StatsD/UDP offered at ${u.pace}x the HTTP rate`,
        {
          'lines/s': fmt(median(u.linesPerSec)),
          'x HTTP': fmt(median(u.linesPerSec) / http, 2),
          'lines lost': `${fmt(u.droppedLines)} (${fmt(u.droppedDatagrams)} of ${fmt(r.datagrams * r.rounds)} datagrams)`,
        },
      ]),
    ),
  })
  log(r.receiverCounters)
}
