/**
 * OpenTSDB telnet put lines, pure: `[put ]<metric> <timestamp> <value> <tagk>=<tagv> ...`.
 *
 * As the original adapter reads them (adapter-behaviour 5 and 9): lines end with `\n` or `\r\n`;
 * each line is trimmed; empty lines are skipped; a leading `put ` is optional. Runs of spaces (and
 * tabs) separate the parts, as collectd's write_tsdb sends two spaces before its last tag.
 *
 * - metric -> measurement; the value -> one DOUBLE field `_value` (decimal number only);
 *   tags -> NCHAR tags (split at the first `=`; key and value non-empty, keys unique). A line
 *   without tags is accepted (the core gives it the `_tag_null` tag).
 * - The timestamp precision is inferred from its digit count, as TDengine does (sql-dialect 9.2):
 *   exactly 10 digits are seconds, exactly 13 milliseconds; anything else is an error (the
 *   original rejects it too; silently guessing would misplace data by orders of magnitude).
 *   Points carry the timestamp in milliseconds (`TSDB_TS_PRECISION`).
 */
import { HINT_HTTP_ON_TELNET, IngestParseError, LineFailure, looksLikeHttpRequest } from '../errors.js'
import { MAX_TAGS, tooManyTags } from '../limits.js'
import { PointBuilder, type OnError, type OnPoint, type ParseStats, type Point } from '../point.js'

/** Unit of `Point.ts` for both OpenTSDB formats. */
export const TSDB_TS_PRECISION = 'ms'
/** OpenTSDB points have one data column besides the timestamp. */
export const TSDB_VALUE_FIELD = '_value'

const SPACE = 32
const TAB = 9
const CR = 13
const EQUALS = 61
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/

/** Reusable telnet parser context; `parse` resets it first. Not re-entrant. */
export class TelnetParser {
  private readonly builder = new PointBuilder()

  reset(): void {
    this.builder.reset()
  }

  get current(): Readonly<Point> {
    return this.builder.point
  }

  /** `lineOffset`: lines before `body` when it is a slice of a larger body (for line numbers) */
  parse(body: string, onPoint: OnPoint, onError: OnError, lineOffset = 0): ParseStats {
    this.reset()
    const stats: ParseStats = { lines: 0, points: 0, errors: 0 }
    const len = body.length
    let pos = 0
    while (pos < len) {
      let nl = body.indexOf('\n', pos)
      if (nl < 0) {
        nl = len
      }
      stats.lines++
      let start = pos
      let end = nl
      let c: number
      while (start < end && ((c = body.charCodeAt(start)) === SPACE || c === TAB || c === CR)) {
        start++
      }
      while (end > start && ((c = body.charCodeAt(end - 1)) === SPACE || c === TAB || c === CR)) {
        end--
      }
      if (start < end) {
        this.builder.reset()
        let failure: LineFailure | undefined
        try {
          this.parseLine(body, start, end)
        } catch (e) {
          if (!(e instanceof LineFailure)) {
            throw e
          }
          failure = e
        }
        if (failure === undefined) {
          stats.points++
          onPoint(this.builder.point, lineOffset + stats.lines)
        } else {
          stats.errors++
          const line = body.slice(start, end)
          onError(
            new IngestParseError({
              format: 'tsdb-telnet',
              line: lineOffset + stats.lines,
              field: failure.field,
              reason: failure.reason,
              input: line,
              hint: looksLikeHttpRequest(line) ? HINT_HTTP_ON_TELNET : undefined,
            }),
          )
        }
      }
      pos = nl + 1
    }
    this.reset()
    return stats
  }

  private parseLine(s: string, start: number, end: number): void {
    const b = this.builder
    const p = b.point
    let i = start
    // Optional `put ` prefix (followed by at least one separator).
    if (
      end - i > 4 &&
      s.charCodeAt(i) === 112 &&
      s.charCodeAt(i + 1) === 117 &&
      s.charCodeAt(i + 2) === 116 &&
      isSep(s.charCodeAt(i + 3))
    ) {
      i = skipSeps(s, i + 3, end)
    }
    const metricEnd = tokenEnd(s, i, end)
    const metric = s.slice(i, metricEnd)
    i = skipSeps(s, metricEnd, end)
    if (i >= end) {
      throw new LineFailure(`missing timestamp and value after metric ${JSON.stringify(metric)}`)
    }
    const tsEnd = tokenEnd(s, i, end)
    const tsText = s.slice(i, tsEnd)
    i = skipSeps(s, tsEnd, end)
    if (i >= end) {
      throw new LineFailure(`missing value after timestamp ${JSON.stringify(tsText)}`)
    }
    const valueEnd = tokenEnd(s, i, end)
    const valueText = s.slice(i, valueEnd)
    i = skipSeps(s, valueEnd, end)

    p.measurement = metric
    p.ts = timestampMs(tsText)
    if (!DECIMAL.test(valueText)) {
      throw new LineFailure(`invalid value ${JSON.stringify(valueText)}: expected a decimal number`, TSDB_VALUE_FIELD)
    }
    const value = Number(valueText)
    if (!Number.isFinite(value)) {
      throw new LineFailure(`value out of range: ${valueText}`, TSDB_VALUE_FIELD)
    }
    b.addField(TSDB_VALUE_FIELD, 'DOUBLE', value)

    while (i < end) {
      if (p.tags.length >= MAX_TAGS) {
        // refused as it is read, before the rest of a very wide line is split and keyed
        throw new LineFailure(tooManyTags())
      }
      const tEnd = tokenEnd(s, i, end)
      // searched within the token only: indexOf would scan the rest of the body for every tag
      let eq = i
      while (eq < tEnd && s.charCodeAt(eq) !== EQUALS) {
        eq++
      }
      if (eq >= tEnd) {
        throw new LineFailure(`invalid tag ${JSON.stringify(s.slice(i, tEnd))}: expected key=value`)
      }
      const key = s.slice(i, eq)
      if (key.length === 0) {
        throw new LineFailure(`invalid tag ${JSON.stringify(s.slice(i, tEnd))}: empty key`)
      }
      if (eq + 1 === tEnd) {
        throw new LineFailure(`missing value for tag ${JSON.stringify(key)}`, key)
      }
      const tags = p.tags
      for (let t = 0; t < tags.length; t++) {
        if (tags[t][0] === key) {
          throw new LineFailure(`duplicate tag ${JSON.stringify(key)}`, key)
        }
      }
      b.addTag(key, s.slice(eq + 1, tEnd))
      i = skipSeps(s, tEnd, end)
    }
  }
}

function isSep(c: number): boolean {
  return c === SPACE || c === TAB
}

function skipSeps(s: string, i: number, end: number): number {
  while (i < end && isSep(s.charCodeAt(i))) {
    i++
  }
  return i
}

function tokenEnd(s: string, i: number, end: number): number {
  while (i < end && !isSep(s.charCodeAt(i))) {
    i++
  }
  return i
}

/** 10 digits: seconds, 13 digits: milliseconds; returned in milliseconds. */
function timestampMs(text: string): bigint {
  const n = text.length
  let digits = true
  for (let k = 0; k < n; k++) {
    const c = text.charCodeAt(k)
    if (c < 48 || c > 57) {
      digits = false
      break
    }
  }
  if (!digits || (n !== 10 && n !== 13)) {
    throw new LineFailure(
      `invalid timestamp ${JSON.stringify(text)}: expected 10 digits (seconds) or 13 digits (milliseconds)`,
    )
  }
  const v = Number(text) // at most 13 digits: exact
  return BigInt(n === 10 ? v * 1000 : v)
}
