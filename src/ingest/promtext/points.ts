/**
 * @module
 * Scraped samples as points, the way the original's node_exporter scraper stores them
 * (adapter-behaviour 10):
 *
 * - counter -> field `counter`, gauge -> `gauge`, untyped -> `value` (OpenMetrics: info and
 *   stateset are gauges, unknown is untyped); one point per sample, its measurement the sample's
 *   name, so a counter is `foo_total` whether it came as text or as OpenMetrics (where its family
 *   is `foo`).
 * - summary -> one point per label set (less `quantile`), measurement the family: a field per
 *   quantile named by the number as Go prints it (`0.5`, `0.99`, `1e-05`), plus `count`, `sum`.
 * - histogram -> likewise per label set (less `le`): a field per bucket bound (`0.005`, `+Inf`)
 *   holding the cumulative count, plus `count` and `sum` (`_gcount`/`_gsum` for gauge histograms).
 * - tags: the labels (empty values are absent values in Prometheus, so they are left out) plus
 *   `url`, the configured URL; a label of the sample named `url` is kept as `exported_url`.
 * - NaN and infinite values are left out (the storage's DOUBLE columns are finite), `_created`
 *   samples too; a point left without fields is not written.
 * - time: the sample's timestamp when it has one, else the scrape's.
 */
import type { Rejection } from '../types.js'
import type { Field, Point } from '../point.js'
import { MAX_LINE_FIELDS } from '../limits.js'
import { yieldToEventLoop } from '../../event-loop.js'
import { parsePromFloat, PromTextParser, type PromFormat, type PromParseResult, type PromSample } from './parse.js'

export interface ScrapeMapping {
  points: Point[]
  parse: PromParseResult
  /** samples that could not become (part of) a point: a bad `le` or `quantile`, too many buckets */
  rejected: Rejection[]
  /** NaN/Inf values and `_created` samples left out */
  skipped: number
}

interface Group {
  point: Point
  fields: Map<string, number>
  bad: boolean
}

/** Parses one scrape and maps its samples to points tagged `url = urlTag`, timed `nowNs` when they carry no time. */
export function scrapeToPoints(text: string, format: PromFormat, urlTag: string, nowNs: bigint): ScrapeMapping {
  const m = new ScrapeMapper(format, urlTag, nowNs)
  m.feed(text)
  return m.finish()
}

/** Characters parsed between turns of the event loop (a node_exporter scrape is ~100 KB: one slice). */
const SLICE_CHARS = 256 * 1024

/** scrapeToPoints for large bodies: the event loop gets a turn between slices of whole lines. */
export async function scrapeToPointsAsync(text: string, format: PromFormat, urlTag: string, nowNs: bigint): Promise<ScrapeMapping> {
  const m = new ScrapeMapper(format, urlTag, nowNs)
  let pos = 0
  while (pos < text.length) {
    let end = pos + SLICE_CHARS >= text.length ? text.length : text.indexOf('\n', pos + SLICE_CHARS)
    end = end < 0 ? text.length : end + (end < text.length ? 1 : 0)
    m.feed(text.slice(pos, end))
    pos = end
    if (pos < text.length) {
      await yieldToEventLoop()
    }
  }
  return m.finish()
}

/** The samples of one scrape as points, fed in slices of whole lines. */
export class ScrapeMapper {
  readonly #out: ScrapeMapping = { points: [], parse: undefined as unknown as PromParseResult, rejected: [], skipped: 0 }
  readonly #groups = new Map<string, Group>()
  readonly #parser: PromTextParser

  constructor(
    format: PromFormat,
    private readonly urlTag: string,
    private readonly nowNs: bigint,
  ) {
    this.#parser = new PromTextParser(format, (s, line) => this.#sample(s, line))
  }

  feed(text: string): void {
    this.#parser.feed(text)
  }

  finish(): ScrapeMapping {
    const out = this.#out
    out.parse = this.#parser.finish()
    for (const g of this.#groups.values()) {
      if (g.bad) {
        continue
      }
      for (const [name, value] of g.fields) {
        g.point.fields.push({ name, type: 'DOUBLE', value } satisfies Field)
      }
      if (g.point.fields.length > 0) {
        out.points.push(g.point)
      }
    }
    this.#groups.clear()
    return out
  }

  #sample(s: PromSample, line: number): void {
    const out = this.#out
    const type = s.family.type
    if (s.suffix === '_created') {
      out.skipped++
      return
    }
    if (type === 'summary' || type === 'histogram' || type === 'gaugehistogram') {
      const problem = addToGroup(this.#groups, s, this.urlTag, this.nowNs, out)
      if (problem !== undefined) {
        out.rejected.push({ line, message: problem })
      }
      return
    }
    if (!Number.isFinite(s.value)) {
      out.skipped++
      return
    }
    const name = type === 'counter' ? 'counter' : type === 'gauge' || type === 'info' || type === 'stateset' ? 'gauge' : 'value'
    out.points.push({
      measurement: s.name,
      tags: tagsOf(s.labels, undefined, this.urlTag),
      fields: [{ name, type: 'DOUBLE', value: s.value }],
      ts: s.ts ?? this.nowNs,
    })
  }
}

/** Adds a summary or histogram sample to its label set's point; a problem as text. */
function addToGroup(groups: Map<string, Group>, s: PromSample, urlTag: string, nowNs: bigint, out: ScrapeMapping): string | undefined {
  const special = s.family.type === 'summary' ? 'quantile' : 'le'
  let field: string
  if (s.suffix === '_count' || s.suffix === '_gcount') {
    field = 'count'
  } else if (s.suffix === '_sum' || s.suffix === '_gsum') {
    field = 'sum'
  } else {
    const bound = s.labels.find((l) => l[0] === special)
    if (bound === undefined) {
      return `${s.family.type} "${s.family.name}": sample "${s.name}" has no "${special}" label`
    }
    const v = parsePromFloat(bound[1])
    if (v === undefined || Number.isNaN(v)) {
      return `${s.family.type} "${s.family.name}": ${special}="${bound[1]}" is not a number`
    }
    field = goFloatText(v)
  }
  const key = groupKey(s.family.name, s.labels, special)
  let g = groups.get(key)
  if (g === undefined) {
    g = {
      point: { measurement: s.family.name, tags: tagsOf(s.labels, special, urlTag), fields: [], ts: s.ts ?? nowNs },
      fields: new Map(),
      bad: false,
    }
    groups.set(key, g)
  }
  if (g.bad) {
    return undefined
  }
  if (!Number.isFinite(s.value)) {
    out.skipped++
    return undefined
  }
  g.fields.set(field, s.value)
  if (g.fields.size > MAX_LINE_FIELDS) {
    g.bad = true
    return `${s.family.type} "${s.family.name}": more than ${MAX_LINE_FIELDS} buckets or quantiles in one label set`
  }
  return undefined
}

/** An injective key of a family and its labels less `special`, whatever order they came in. */
function groupKey(family: string, labels: ReadonlyArray<[string, string]>, special: string): string {
  const kept = labels.filter((l) => l[0] !== special).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
  let key = `${family.length}:${family}`
  for (const [k, v] of kept) {
    key += `${k.length}:${k}${v.length}:${v}`
  }
  return key
}

function tagsOf(labels: ReadonlyArray<[string, string]>, special: string | undefined, urlTag: string): Array<[string, string]> {
  const tags: Array<[string, string]> = []
  let hasUrl = false
  for (const l of labels) {
    if (l[1] === '' || l[0] === special) {
      continue
    }
    if (l[0] === 'url') {
      hasUrl = true
      continue
    }
    tags.push([l[0], l[1]])
  }
  if (hasUrl) {
    // Prometheus' honor_labels=false: the target's own label steps aside, prefixed until unique
    let name = 'exported_url'
    while (labels.some((l) => l[0] === name)) {
      name = `exported_${name}`
    }
    tags.push([name, labels.find((l) => l[0] === 'url')?.[1] ?? ''])
  }
  tags.push(['url', urlTag])
  return tags
}

/**
 * A float as Go's fmt.Sprint prints it (the original names quantile and bucket fields so):
 * shortest digits, exponent form below 1e-4 and from 1e6 with a signed two-digit exponent.
 */
export function goFloatText(v: number): string {
  if (Number.isNaN(v)) {
    return 'NaN'
  }
  if (!Number.isFinite(v)) {
    return v > 0 ? '+Inf' : '-Inf'
  }
  if (v === 0) {
    return Object.is(v, -0) ? '-0' : '0'
  }
  const [mantissa, expText] = v.toExponential().split('e')
  const exp = Number(expText)
  if (exp < -4 || exp >= 6) {
    return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`
  }
  return String(v)
}
