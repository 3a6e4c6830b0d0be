/**
 * @module
 * The Prometheus text exposition format (0.0.4) and OpenMetrics 1.0, pure: text in, samples of
 * typed families out, one error per bad line (the other lines are still read).
 *
 * - `# HELP`, `# TYPE` (and OpenMetrics' `# UNIT`) describe a family; other comments are ignored
 *   in the text format. A TYPE after the family's samples, or a second one, is an error.
 * - Samples: `name[{label="value",...}] value [timestamp]`; label values unescape `\\`, `\"`
 *   and `\n`; a quoted name inside the braces (`{"my.metric",a="b"}`) is accepted too.
 * - A sample belongs to the family of its name, or of its name less a suffix its family's type
 *   allows (`_bucket`, `_count`, `_sum`, `_total`, `_created`, `_gcount`, `_gsum`, `_info`);
 *   a name with no family starts an untyped one.
 * - Timestamps: the text format's are milliseconds, OpenMetrics' seconds (with a fraction);
 *   both come out in nanoseconds. OpenMetrics exemplars (`# {...} v [t]`) are skipped.
 * - OpenMetrics must end with `# EOF`; nothing may follow it. Without it the body was cut and
 *   the result says so (`eof` false).
 *
 * Every line is scanned once, left to right, and a sample with more labels than a super table
 * can hold as tags is refused as soon as the limit is passed, so the work is linear in the size
 * of the text whatever it holds.
 */
import { MAX_TAGS } from '../limits.js'

export type PromFormat = 'text' | 'openmetrics'
export type PromType = 'counter' | 'gauge' | 'histogram' | 'gaugehistogram' | 'summary' | 'info' | 'stateset' | 'unknown' | 'untyped'

export interface PromFamily {
  name: string
  type: PromType
  help: string | undefined
  unit: string | undefined
  /** a sample of it was seen (a later TYPE is then an error) */
  sampled: boolean
}

export type PromSuffix = '' | '_total' | '_created' | '_bucket' | '_count' | '_sum' | '_gcount' | '_gsum' | '_info'

export interface PromSample {
  family: PromFamily
  /** the name as exposed: the family's name plus `suffix` */
  name: string
  suffix: PromSuffix
  labels: Array<[string, string]>
  value: number
  /** nanoseconds since the epoch; null when the sample has none */
  ts: bigint | null
}

export interface PromLineError {
  line: number
  message: string
}

export interface PromParseResult {
  /** lines seen */
  lines: number
  samples: number
  /** bad lines, all counted */
  errorCount: number
  /** the first MAX_REPORTED of them */
  errors: PromLineError[]
  /** OpenMetrics: `# EOF` was seen (the text format: always true) */
  eof: boolean
}

/** Labels a sample may carry: one tag of a super table's MAX_TAGS is the scraper's `url`. */
export const MAX_SAMPLE_LABELS = MAX_TAGS - 1
const MAX_REPORTED = 100

interface FamilyState extends PromFamily {
  /** its TYPE was given */
  typed: boolean
}

/** Suffixes a sample name may add to its family's name, per type and format. */
const SUFFIXES: Record<PromFormat, Record<PromType, readonly PromSuffix[]>> = {
  text: {
    counter: [''],
    gauge: [''],
    untyped: [''],
    unknown: [''],
    summary: ['', '_count', '_sum'],
    histogram: ['_bucket', '_count', '_sum'],
    gaugehistogram: ['_bucket', '_gcount', '_gsum'],
    info: ['_info'],
    stateset: [''],
  },
  openmetrics: {
    // a bare counter name is not OpenMetrics, but text-format habits are common: accepted
    counter: ['_total', '_created', ''],
    gauge: [''],
    untyped: [''],
    unknown: [''],
    summary: ['', '_count', '_sum', '_created'],
    histogram: ['_bucket', '_count', '_sum', '_created'],
    gaugehistogram: ['_bucket', '_gcount', '_gsum'],
    info: ['_info'],
    stateset: [''],
  },
}
const ALL_SUFFIXES: readonly PromSuffix[] = ['_total', '_created', '_bucket', '_count', '_sum', '_gcount', '_gsum', '_info']
const TYPES: Record<PromFormat, ReadonlySet<string>> = {
  text: new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']),
  openmetrics: new Set(['counter', 'gauge', 'histogram', 'gaugehistogram', 'summary', 'info', 'stateset', 'unknown']),
}

const FLOAT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/
const SPECIAL_FLOAT = /^([+-]?)(inf|infinity|nan)$/i
const INTEGER = /^-?\d{1,19}$/
const SPACE = 32
const TAB = 9

class LineError {
  constructor(readonly message: string) {}
}

/** Go's strconv.ParseFloat for the forms expositions use: decimals, exponents, Inf and NaN in any case. */
export function parsePromFloat(s: string): number | undefined {
  if (FLOAT.test(s)) {
    return Number(s)
  }
  const m = SPECIAL_FLOAT.exec(s)
  if (m === null) {
    return undefined
  }
  if (m[2].toLowerCase() === 'nan') {
    return NaN
  }
  return m[1] === '-' ? -Infinity : Infinity
}

/** Parses `text` and hands each good sample to `onSample` with its 1-based line number. */
export function parsePromText(text: string, format: PromFormat, onSample: (s: PromSample, line: number) => void): PromParseResult {
  const p = new PromTextParser(format, onSample)
  p.feed(text)
  return p.finish()
}

/**
 * The parser with its state (families, line count) kept between `feed` calls, so a large body
 * can be read in slices with the event loop served in between. Each slice must end at a line's
 * end (or be the last).
 */
export class PromTextParser {
  readonly #families = new Map<string, FamilyState>()
  readonly #result: PromParseResult = { lines: 0, samples: 0, errorCount: 0, errors: [], eof: false }
  #afterEof = false
  #s = ''
  #pos = 0
  #end = 0

  constructor(
    private readonly format: PromFormat,
    private readonly onSample: (s: PromSample, line: number) => void,
  ) {}

  feed(text: string): void {
    const r = this.#result
    const len = text.length
    let pos = 0
    while (pos < len) {
      let nl = text.indexOf('\n', pos)
      if (nl < 0) {
        nl = len
      }
      r.lines++
      let end = nl
      if (end > pos && text.charCodeAt(end - 1) === 13) {
        end--
      }
      const line = text.slice(pos, end)
      pos = nl + 1
      if (this.#afterEof) {
        this.#error(r.lines, 'text after "# EOF"')
        continue
      }
      try {
        if (this.#line(line, r.lines) === 'eof') {
          this.#afterEof = true
          r.eof = true
        }
      } catch (err) {
        if (!(err instanceof LineError)) {
          throw err
        }
        this.#error(r.lines, err.message)
      }
    }
  }

  finish(): PromParseResult {
    if (this.format === 'text') {
      this.#result.eof = true
    }
    return this.#result
  }

  #error(line: number, message: string): void {
    const r = this.#result
    r.errorCount++
    if (r.errors.length < MAX_REPORTED) {
      r.errors.push({ line, message })
    }
  }

  #line(line: string, lineNo: number): 'eof' | undefined {
    this.#s = line
    this.#pos = 0
    this.#end = line.length
    this.#skipBlanks()
    if (this.#pos === this.#end) {
      if (this.format === 'openmetrics') {
        throw new LineError('empty line (OpenMetrics has none)')
      }
      return undefined
    }
    if (line.charCodeAt(this.#pos) === 35 /* # */) {
      return this.#comment()
    }
    this.#sample(lineNo)
    return undefined
  }

  #comment(): 'eof' | undefined {
    this.#pos++
    this.#skipBlanks()
    const keyword = this.#token()
    if (keyword === 'EOF' && this.format === 'openmetrics') {
      this.#expectEnd('"# EOF"')
      return 'eof'
    }
    if (keyword !== 'HELP' && keyword !== 'TYPE' && !(keyword === 'UNIT' && this.format === 'openmetrics')) {
      if (this.format === 'openmetrics') {
        throw new LineError(`unknown comment "# ${keyword}" (OpenMetrics has HELP, TYPE, UNIT and EOF)`)
      }
      return undefined
    }
    this.#skipBlanks()
    const name = this.#metricName()
    if (name === '') {
      throw new LineError(`# ${keyword} without a metric name`)
    }
    const rest = this.#s.slice(this.#pos).replace(/^[ \t]+/, '')
    if (keyword === 'HELP') {
      const family = this.#family(name)
      if (family.help !== undefined) {
        throw new LineError(`second HELP for "${name}"`)
      }
      family.help = unescapeHelp(rest)
      return undefined
    }
    if (keyword === 'UNIT') {
      this.#family(name).unit = rest
      return undefined
    }
    const type = rest.replace(/[ \t]+$/, '')
    if (!TYPES[this.format].has(type)) {
      throw new LineError(`unknown type "${type}" for "${name}" (${[...TYPES[this.format]].join(', ')})`)
    }
    const known = this.#families.get(name)
    if (known !== undefined && (known.sampled || known.typed)) {
      throw new LineError(known.sampled ? `TYPE for "${name}" after its samples` : `second TYPE for "${name}"`)
    }
    const family = this.#family(name)
    family.type = type as PromType
    family.typed = true
    return undefined
  }

  #family(name: string): FamilyState {
    let f = this.#families.get(name)
    if (f === undefined) {
      f = { name, type: this.format === 'text' ? 'untyped' : 'unknown', help: undefined, unit: undefined, sampled: false, typed: false }
      this.#families.set(name, f)
    }
    return f
  }

  #sample(lineNo: number): void {
    const labels: Array<[string, string]> = []
    let name = this.#metricName()
    if (this.#peek() === 123 /* { */) {
      const quoted = this.#labels(labels)
      if (quoted !== undefined) {
        if (name !== '') {
          throw new LineError(`a sample has two names, "${name}" and "${quoted}"`)
        }
        name = quoted
      }
    }
    if (name === '') {
      throw new LineError(`expected a metric name at column ${this.#pos + 1}`)
    }
    if (!this.#skipBlanks()) {
      throw new LineError(`expected a blank then the value after "${name}"`)
    }
    const valueText = this.#token()
    const value = parsePromFloat(valueText)
    if (value === undefined) {
      throw new LineError(`value "${valueText}" of "${name}" is not a number`)
    }
    let ts: bigint | null = null
    this.#skipBlanks()
    if (this.#pos < this.#end && this.#peek() !== 35) {
      const tsText = this.#token()
      const parsed = this.format === 'text' ? parseMillis(tsText) : parseSeconds(tsText)
      if (parsed === undefined) {
        throw new LineError(`timestamp "${tsText}" of "${name}" is not ${this.format === 'text' ? 'an integer of milliseconds' : 'a number of seconds'}`)
      }
      ts = parsed
      this.#skipBlanks()
    }
    // an OpenMetrics exemplar, `# {trace_id="..."} 1 [ts]`, is not stored
    if (this.#pos < this.#end && !(this.format === 'openmetrics' && this.#peek() === 35)) {
      throw new LineError(`unexpected "${this.#s.slice(this.#pos, this.#pos + 32)}" after the value of "${name}"`)
    }
    const { family, suffix } = this.#resolve(name)
    family.sampled = true
    this.#result.samples++
    this.onSample({ family, name, suffix, labels, value, ts }, lineNo)
  }

  /** The family a sample name belongs to: its own, or its name less a suffix its type allows. */
  #resolve(name: string): { family: PromFamily; suffix: PromSuffix } {
    const allowed = SUFFIXES[this.format]
    const own = this.#families.get(name)
    if (own !== undefined && allowed[own.type].includes('')) {
      return { family: own, suffix: '' }
    }
    for (const suffix of ALL_SUFFIXES) {
      if (name.length > suffix.length && name.endsWith(suffix)) {
        const f = this.#families.get(name.slice(0, -suffix.length))
        if (f !== undefined && allowed[f.type].includes(suffix)) {
          return { family: f, suffix }
        }
      }
    }
    if (own !== undefined) {
      throw new LineError(`"${name}" is a ${own.type}: its samples are named ${allowed[own.type].map((s) => name + s).join(', ')}`)
    }
    return { family: this.#family(name), suffix: '' }
  }

  /** Reads `{...}` into `labels`; returns the quoted metric name when the braces hold one. */
  #labels(labels: Array<[string, string]>): string | undefined {
    this.#pos++
    const seen = new Set<string>()
    let quotedName: string | undefined
    for (;;) {
      this.#skipBlanks()
      const c = this.#peek()
      if (c === 125 /* } */) {
        this.#pos++
        return quotedName
      }
      let key: string
      if (c === 34 /* " */) {
        key = this.#quoted()
        this.#skipBlanks()
        if (this.#peek() !== 61 /* = */) {
          // `{"name", ...}`: the quoted metric name of the newer exposition formats
          if (quotedName !== undefined || labels.length > 0) {
            throw new LineError(`label "${key}" has no value`)
          }
          quotedName = key
          this.#afterLabel()
          continue
        }
      } else {
        key = this.#labelName()
        if (key === '') {
          throw new LineError(`expected a label name at column ${this.#pos + 1}`)
        }
        this.#skipBlanks()
      }
      if (this.#peek() !== 61) {
        throw new LineError(`expected "=" after label "${key}"`)
      }
      this.#pos++
      this.#skipBlanks()
      if (this.#peek() !== 34) {
        throw new LineError(`value of label "${key}" is not quoted`)
      }
      const value = this.#quoted()
      if (seen.has(key)) {
        throw new LineError(`label "${key}" appears twice`)
      }
      seen.add(key)
      labels.push([key, value])
      if (labels.length > MAX_SAMPLE_LABELS) {
        throw new LineError(`more than ${MAX_SAMPLE_LABELS} labels (a super table has at most ${MAX_TAGS} tags, url included)`)
      }
      this.#afterLabel()
    }
  }

  #afterLabel(): void {
    this.#skipBlanks()
    const c = this.#peek()
    if (c === 44 /* , */) {
      this.#pos++
    } else if (c !== 125) {
      throw new LineError(c < 0 ? 'labels not closed with "}"' : `expected "," or "}" at column ${this.#pos + 1}`)
    }
  }

  /** A double-quoted string at the cursor, unescaped (`\\`, `\"`, `\n`). */
  #quoted(): string {
    const s = this.#s
    let i = this.#pos + 1
    let out = ''
    let from = i
    for (;;) {
      if (i >= this.#end) {
        throw new LineError('a quoted string is not closed')
      }
      const c = s.charCodeAt(i)
      if (c === 34) {
        this.#pos = i + 1
        return out + s.slice(from, i)
      }
      if (c === 92 /* \ */) {
        const n = s[i + 1]
        const repl = n === '\\' ? '\\' : n === '"' ? '"' : n === 'n' ? '\n' : undefined
        if (repl === undefined) {
          throw new LineError(`invalid escape "\\${n ?? ''}" in a quoted string`)
        }
        out += s.slice(from, i) + repl
        i += 2
        from = i
        continue
      }
      i++
    }
  }

  #metricName(): string {
    const s = this.#s
    const start = this.#pos
    let i = start
    while (i < this.#end) {
      const c = s.charCodeAt(i)
      const ok = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 58 || (i > start && c >= 48 && c <= 57)
      if (!ok) {
        break
      }
      i++
    }
    this.#pos = i
    return s.slice(start, i)
  }

  #labelName(): string {
    const s = this.#s
    const start = this.#pos
    let i = start
    while (i < this.#end) {
      const c = s.charCodeAt(i)
      const ok = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || (i > start && c >= 48 && c <= 57)
      if (!ok) {
        break
      }
      i++
    }
    this.#pos = i
    return s.slice(start, i)
  }

  /** Up to the next blank or the end. */
  #token(): string {
    const s = this.#s
    const start = this.#pos
    let i = start
    while (i < this.#end) {
      const c = s.charCodeAt(i)
      if (c === SPACE || c === TAB) {
        break
      }
      i++
    }
    this.#pos = i
    return s.slice(start, i)
  }

  /** true when at least one blank was skipped */
  #skipBlanks(): boolean {
    const start = this.#pos
    while (this.#pos < this.#end) {
      const c = this.#s.charCodeAt(this.#pos)
      if (c !== SPACE && c !== TAB) {
        break
      }
      this.#pos++
    }
    return this.#pos > start
  }

  #peek(): number {
    return this.#pos < this.#end ? this.#s.charCodeAt(this.#pos) : -1
  }

  #expectEnd(what: string): void {
    this.#skipBlanks()
    if (this.#pos < this.#end) {
      throw new LineError(`unexpected text after ${what}`)
    }
  }
}

/** HELP text escapes `\\` and `\n` (other backslashes stay as written). */
function unescapeHelp(s: string): string {
  return s.includes('\\') ? s.replace(/\\([\\n])/g, (_, c: string) => (c === 'n' ? '\n' : '\\')) : s
}

/** The text format's timestamp: an int64 of milliseconds, in nanoseconds. */
function parseMillis(s: string): bigint | undefined {
  if (!INTEGER.test(s)) {
    return undefined
  }
  const ms = BigInt(s)
  return ms > 9_223_372_036_854n || ms < -9_223_372_036_854n ? undefined : ms * 1_000_000n
}

const SECONDS = /^(-?)(\d{1,12})(?:\.(\d*))?$/

/** OpenMetrics' timestamp: seconds with an optional fraction, in nanoseconds (exactly, no float rounding). */
function parseSeconds(s: string): bigint | undefined {
  const m = SECONDS.exec(s)
  if (m === null) {
    // exponent forms are legal, rare and not exact anyway
    const v = FLOAT.test(s) ? Number(s) : NaN
    return Number.isFinite(v) && Math.abs(v) < 9.2e9 ? BigInt(Math.round(v * 1e9)) : undefined
  }
  const frac = (m[3] ?? '').slice(0, 9).padEnd(9, '0')
  const ns = BigInt(m[2]) * 1_000_000_000n + BigInt(frac)
  return m[1] === '-' ? -ns : ns
}
