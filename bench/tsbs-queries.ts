/**
 * The seven TSBS cpu-only query types as each system is asked them: the adapter in TDengine SQL
 * (as TSBS's TDengine target writes them), InfluxDB 1.6 in InfluxQL, VictoriaMetrics in MetricsQL
 * (only where TSBS's victoriametrics generator has one). Parameters (hosts, windows) come from a
 * seeded generator, so every system gets the same question in a round.
 *
 * Deviations from the TSBS texts:
 * - line protocol names the timestamp column `_ts` (TDengine schemaless), TSBS's loader `ts`;
 * - TSBS's TDengine loader names each child table after its host (`FROM host_249`, `tbname IN
 *   ('host_249')`); line protocol names children by a hash of the tags, so a host is
 *   `hostname = 'host_249'` (or `hostname IN (...)`), the tag TDengine indexes.
 * - groupby-orderby-limit: TSBS's label is "max cpu over last 5 min-intervals (random end)" and
 *   the TimescaleDB text orders by minute DESC; the TDengine and InfluxQL texts lack the DESC and
 *   so answer the first 5 minutes of the data whatever the end. All systems here get the DESC.
 */

export const QUERY_TYPES = [
  'single-groupby-1-1-1',
  'single-groupby-5-8-1',
  'double-groupby-1',
  'cpu-max-all-8',
  'high-cpu-1',
  'lastpoint',
  'groupby-orderby-limit',
] as const
export type QueryType = (typeof QUERY_TYPES)[number]

export const CPU_FIELDS = ['usage_user', 'usage_system', 'usage_idle', 'usage_nice', 'usage_iowait', 'usage_irq', 'usage_softirq', 'usage_steal', 'usage_guest', 'usage_guest_nice']

const HOUR = 3_600_000

/** The data set the queries are drawn over: `hosts` hosts, rows every 10 s in [startMs, endMs). */
export interface TsbsSpan {
  hosts: number
  startMs: number
  endMs: number
}

/** One query, as each system is asked it; `vm` is undefined where MetricsQL has no equivalent. */
export interface TsbsQuery {
  type: QueryType
  /** TDengine SQL for /rest/sql/<db> */
  sql: string
  /** InfluxQL for /query?db=<db> */
  influxql: string
  /** query string of VictoriaMetrics' /api/v1/query_range (without nocache) */
  vm?: string
  /** what the answers are compared on (see bench/tsbs-answers.ts) */
  check: 'aggregate' | 'rows'
}

/** mulberry32: a small seeded generator, the same sequence on every run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** A random window of `ms` inside the span, to the millisecond (TSBS's RandWindow). */
function randWindow(rand: () => number, span: TsbsSpan, ms: number): [number, number] {
  const start = span.startMs + Math.floor(rand() * (span.endMs - ms - span.startMs))
  return [start, start + ms]
}

/** `n` distinct hosts (TSBS's GetRandomSubsetPerm). */
function randHosts(rand: () => number, span: TsbsSpan, n: number): string[] {
  const picked = new Set<number>()
  while (picked.size < n) {
    picked.add(Math.floor(rand() * span.hosts))
  }
  return [...picked].map((h) => `host_${h}`)
}

const iso = (ms: number): string => new Date(ms).toISOString()
const list = (hosts: string[]): string => hosts.map((h) => `'${h}'`).join(',')

/** SQL host filter: one host by equality, several by IN. */
const sqlHosts = (hosts: string[]): string => (hosts.length === 1 ? `hostname = '${hosts[0]}'` : `hostname IN (${list(hosts)})`)
const influxHosts = (hosts: string[]): string => `(${hosts.map((h) => `hostname = '${h}'`).join(' or ')})`
const vmHosts = (hosts: string[]): string => (hosts.length === 1 ? `hostname='${hosts[0]}'` : `hostname=~'${hosts.join('|')}'`)

/** TSBS victoriametrics' selector: one metric by name, several by a __name__ regex; `db` is the write's database label. */
function vmSelector(metrics: string[], hosts: string[], db: string): string {
  const labels = [`db='${db}'`, ...(hosts.length > 0 ? [vmHosts(hosts)] : [])]
  if (metrics.length === 1) {
    return `cpu_${metrics[0]}{${labels.join(', ')}}`
  }
  return `{__name__=~'cpu_(${metrics.join('|')})', ${labels.join(', ')}}`
}

function vmRange(query: string, [start, end]: [number, number], stepSec: number): string {
  return new URLSearchParams({ query, start: String(Math.floor(start / 1000)), end: String(Math.floor(end / 1000)), step: String(stepSec) }).toString()
}

function groupByTime(rand: () => number, span: TsbsSpan, db: string, type: QueryType, nHosts: number, nMetrics: number): TsbsQuery {
  const w = randWindow(rand, span, HOUR)
  const hosts = randHosts(rand, span, nHosts)
  const metrics = CPU_FIELDS.slice(0, nMetrics)
  return {
    type,
    sql: `SELECT _wstart AS ts, ${metrics.map((m) => `max(${m})`).join(', ')} FROM cpu WHERE ${sqlHosts(hosts)} AND _ts >= ${w[0]} AND _ts < ${w[1]} INTERVAL(1m)`,
    influxql: `SELECT ${metrics.map((m) => `max(${m})`).join(', ')} from cpu where ${influxHosts(hosts)} and time >= '${iso(w[0])}' and time < '${iso(w[1])}' group by time(1m)`,
    vm: vmRange(`max(max_over_time(${vmSelector(metrics, hosts, db)}[1m])) by (__name__)`, w, 60),
    check: 'aggregate',
  }
}

/** The query of `type` drawn from `rand` over `span`; `db` is the database (VictoriaMetrics' db label). */
export function makeQuery(type: QueryType, rand: () => number, span: TsbsSpan, db: string): TsbsQuery {
  switch (type) {
    case 'single-groupby-1-1-1':
      return groupByTime(rand, span, db, type, 1, 1)
    case 'single-groupby-5-8-1':
      return groupByTime(rand, span, db, type, 8, 5)
    case 'double-groupby-1': {
      const w = randWindow(rand, span, 12 * HOUR)
      return {
        type,
        sql: `SELECT _wstart AS ts, tbname, avg(usage_user) FROM cpu WHERE _ts >= ${w[0]} AND _ts < ${w[1]} PARTITION BY tbname INTERVAL(1h) ORDER BY tbname, ts ASC`,
        influxql: `SELECT mean(usage_user) from cpu where time >= '${iso(w[0])}' and time < '${iso(w[1])}' group by time(1h),hostname`,
        vm: vmRange(`avg(avg_over_time(${vmSelector(['usage_user'], [], db)}[1h])) by (__name__, hostname)`, w, 3600),
        check: 'aggregate',
      }
    }
    case 'cpu-max-all-8': {
      const w = randWindow(rand, span, 8 * HOUR)
      const hosts = randHosts(rand, span, 8)
      return {
        type,
        sql: `SELECT _wstart AS ts, ${CPU_FIELDS.map((m) => `max(${m})`).join(', ')} FROM cpu WHERE ${sqlHosts(hosts)} AND _ts >= ${w[0]} AND _ts < ${w[1]} INTERVAL(1h)`,
        influxql: `SELECT ${CPU_FIELDS.map((m) => `max(${m})`).join(',')} from cpu where ${influxHosts(hosts)} and time >= '${iso(w[0])}' and time < '${iso(w[1])}' group by time(1h)`,
        vm: vmRange(`max(max_over_time(${vmSelector(CPU_FIELDS, hosts, db)}[1h])) by (__name__)`, w, 3600),
        check: 'aggregate',
      }
    }
    case 'high-cpu-1': {
      const w = randWindow(rand, span, 12 * HOUR)
      const hosts = randHosts(rand, span, 1)
      return {
        type,
        sql: `SELECT _ts, ${CPU_FIELDS.join(', ')} FROM cpu WHERE usage_user > 90.0 AND _ts >= ${w[0]} AND _ts < ${w[1]} AND ${sqlHosts(hosts)}`,
        influxql: `SELECT * from cpu where usage_user > 90.0 and ${influxHosts(hosts)} and time >= '${iso(w[0])}' and time < '${iso(w[1])}'`,
        check: 'rows',
      }
    }
    case 'lastpoint':
      return {
        type,
        sql: 'SELECT last_row(*), tbname FROM cpu GROUP BY tbname',
        influxql: 'SELECT * from cpu group by "hostname" order by time desc limit 1',
        check: 'rows',
      }
    case 'groupby-orderby-limit': {
      const [, end] = randWindow(rand, span, HOUR)
      return {
        type,
        sql: `SELECT _wstart AS ts, max(usage_user) FROM cpu WHERE _ts < ${end} INTERVAL(1m) ORDER BY ts DESC LIMIT 5`,
        influxql: `SELECT max(usage_user) from cpu WHERE time < '${iso(end)}' group by time(1m) order by time desc limit 5`,
        check: 'aggregate',
      }
    }
  }
}
