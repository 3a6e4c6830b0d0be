/**
 * Parse-only throughput of the line-protocol parser (no HTTP, no storage).
 *
 *   npx tsx bench/ingest/lineproto.bench.ts [--lines 1000000] [--rounds 5]
 *
 * Inputs: the gen_lp.mjs shape (1000 series, 1 field, ms timestamps) on the fast path (no
 * backslash in the body), the same with escaped names and a quoted string field (slow path), and a
 * TSBS-style cpu line (10 tags, 10 fields). Each input is parsed in batches of 5000 lines (as the
 * HTTP endpoint gets them) on one reused parser; the best round is reported. The point count is
 * asserted, so a parser that silently drops lines cannot look fast.
 */
import { LineProtoParser } from '../../src/ingest/lineproto/parse.js'
import type { Point } from '../../src/ingest/point.js'

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? Number(process.argv[i + 1]) : dflt
}

const LINES = arg('lines', 1_000_000)
const ROUNDS = arg('rounds', 5)
const BATCH = 5000
const SERIES = 1000
const T0 = 1_700_000_000_000

type LineGen = (s: number, j: number) => string

const simple: LineGen = (s, j) =>
  `cpu,host=h${String(s).padStart(4, '0')},region=r${s % 4} usage_user=${((s * 7 + j) % 1000) / 10} ${T0 + j * 1000}`

const escaped: LineGen = (s, j) =>
  `cpu\\ load,host=h\\,${String(s).padStart(4, '0')},path=C:\\temp\\ dir,k\\=x=r${s % 4} ` +
  `usage\\ user=${((s * 7 + j) % 1000) / 10},msg="said \\"hi\\" \\\\ ok",n=${j}i ${T0 + j * 1000}`

const TSBS_FIELDS = [
  'usage_user',
  'usage_system',
  'usage_idle',
  'usage_nice',
  'usage_iowait',
  'usage_irq',
  'usage_softirq',
  'usage_steal',
  'usage_guest',
  'usage_guest_nice',
]
const tsbs: LineGen = (s, j) => {
  const tags =
    `hostname=host_${s},region=eu-west-${s % 3},datacenter=eu-west-${s % 3}c,rack=${s % 100},os=Ubuntu16.10,` +
    `arch=x64,team=SF,service=${s % 20},service_version=${s % 2},service_environment=production`
  let f = ''
  for (let k = 0; k < TSBS_FIELDS.length; k++) {
    f += (k ? ',' : '') + `${TSBS_FIELDS[k]}=${(s * 7 + j + k * 13) % 100}i`
  }
  return `cpu,${tags} ${f} ${T0 + j * 10_000}`
}

/** A flat string decoded from bytes, as the HTTP route gets it (not a concatenation rope). */
function asRequestBody(lines: string[]): string {
  return Buffer.from(lines.join('\n') + '\n').toString('utf8')
}

function makeBatches(gen: LineGen): { batches: string[]; bytes: number } {
  const batches: string[] = []
  let lines: string[] = []
  let bytes = 0
  let n = 0
  for (let j = 0; n < LINES; j++) {
    for (let s = 0; s < SERIES && n < LINES; s++, n++) {
      lines.push(gen(s, j))
      if (lines.length === BATCH) {
        const b = asRequestBody(lines)
        bytes += Buffer.byteLength(b)
        batches.push(b)
        lines = []
      }
    }
  }
  if (lines.length > 0) {
    const b = asRequestBody(lines)
    bytes += Buffer.byteLength(b)
    batches.push(b)
  }
  return { batches, bytes }
}

function run(label: string, gen: LineGen, fieldsPerLine: number): void {
  const { batches, bytes } = makeBatches(gen)
  const parser = new LineProtoParser()
  let best = Infinity
  let bestCpu = Infinity
  for (let r = 0; r < ROUNDS; r++) {
    let points = 0
    let fields = 0
    const onPoint = (p: Point): void => {
      fields += p.fields.length
    }
    const onError = (e: Error): void => {
      throw e
    }
    const cpu0 = process.cpuUsage()
    const t = process.hrtime.bigint()
    for (const b of batches) {
      points += parser.parse(b, onPoint, onError).points
    }
    const secs = Number(process.hrtime.bigint() - t) / 1e9
    const cpu = process.cpuUsage(cpu0)
    bestCpu = Math.min(bestCpu, (cpu.user + cpu.system) / 1e6)
    if (points !== LINES || fields !== LINES * fieldsPerLine) {
      throw new Error(`${label}: expected ${LINES} points / ${LINES * fieldsPerLine} fields, got ${points} / ${fields}`)
    }
    best = Math.min(best, secs)
  }
  // CPU seconds too: the machine is shared, and wall time alone measures the neighbours' load.
  const lps = LINES / best
  console.log(
    `${label.padEnd(34)} ${(lps / 1e6).toFixed(2)}M lines/s  ${(bytes / best / 1e6).toFixed(0)} MB/s wall; ` +
      `${(LINES / bestCpu / 1e6).toFixed(2)}M lines/s per CPU-second  (${LINES} lines, best of ${ROUNDS})`,
  )
}

run('unescaped (gen_lp shape, 1 field)', simple, 1)
run('escaped (slow path, 3 fields)', escaped, 3)
run('TSBS cpu (10 tags, 10 fields)', tsbs, 10)
