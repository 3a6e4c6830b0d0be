/**
 * InfluxDB line protocol v1, pure: a string in, points out through a callback. No I/O, no
 * decompression, no precision conversion (timestamps stay in the request precision).
 *
 *   measurement[,tag=value...] field=value[,field=value...] [timestamp]
 *
 * Escaping (sql-dialect 9.1): the measurement escapes `,` and space; tag keys, tag values and field
 * keys escape `,`, `=` and space; string field values escape `"` and `\`. A backslash before any
 * other character is kept literally (`C:\temp` stays `C:\temp`). An escaped backslash `\\` is one
 * backslash everywhere (as InfluxDB 2 and VictoriaMetrics read it), so every string, including one
 * that ends in a backslash, can be written and read back.
 *
 * Lines: `\n` or `\r\n`; blank lines and lines starting with `#` are skipped; leading and trailing
 * spaces/tabs are ignored; runs of spaces between the three sections are tolerated.
 * A bad line is reported to `onError` and parsing continues with the next line.
 *
 * Field typing (suffix case-insensitive): `1` `1.5` `1e3` `1f64` DOUBLE; `1f32` FLOAT;
 * `i8/i16/i32` TINYINT/SMALLINT/INT; `u8/u16/u32` their UNSIGNED forms; `i`/`i64` BIGINT;
 * `u`/`u64` BIGINT UNSIGNED; `t T true True TRUE f F false False` BOOL; `"..."` VARCHAR;
 * `L"..."` NCHAR. Integers are range-checked with TDengine's messages, e.g.
 * `int out of range[-2147483648,2147483647]:3000000000`. `G"..."` (GEOMETRY) and `B"..."`
 * (VARBINARY) are rejected: the storage layer has no such types.
 */
import { HINT_RAW_NEWLINE, IngestParseError, LineFailure } from '../errors.js'
import { PointBuilder, seriesKeyOf, type FieldType, type OnError, type OnPoint, type ParseStats, type Point } from '../point.js'
import { ownedString } from '../../owned-string.js'

export type { OnError, OnPoint, ParseStats } from '../point.js'

const SPACE = 32
const TAB = 9
const CR = 13
const COMMA = 44
const EQUALS = 61
const QUOTE = 34
const BACKSLASH = 92
const HASH = 35

interface IntRange {
  type: FieldType
  min: number
  max: number
  /** TDengine's text: `int out of range[-2147483648,2147483647]` */
  label: string
}

function intRange(type: FieldType, name: string, min: number, max: number): IntRange {
  return { type, min, max, label: `${name} out of range[${min},${max}]` }
}

const I8 = intRange('TINYINT', 'tinyint', -128, 127)
const I16 = intRange('SMALLINT', 'smallint', -32768, 32767)
const I32 = intRange('INT', 'int', -2147483648, 2147483647)
const U8 = intRange('TINYINT UNSIGNED', 'tinyint unsigned', 0, 255)
const U16 = intRange('SMALLINT UNSIGNED', 'smallint unsigned', 0, 65535)
const U32 = intRange('INT UNSIGNED', 'int unsigned', 0, 4294967295)

const I64_MIN = -(2n ** 63n)
const I64_MAX = 2n ** 63n - 1n
const U64_MAX = 2n ** 64n - 1n
const I64_LABEL = `bigint out of range[${I64_MIN},${I64_MAX}]`
const U64_LABEL = `bigint unsigned out of range[0,${U64_MAX}]`
const FLT_MAX = 3.4028234663852886e38
const FLOAT_LABEL = 'float out of range[-3.402823466e+38,3.402823466e+38]'

/** Entries of the series-key cache after which it starts again (bounded memory, as the workers' dictionaries). */
const MAX_SERIES_KEYS = 100_000

/** A series (measurement and tag set) already parsed, by its raw text: see LineProtoParser.knownSeries. */
interface KnownSeries {
  raw: string
  measurement: string
  tags: Array<[string, string]>
  /** seriesKeyOf(tags), once asked for */
  key: string | undefined
}

/**
 * Reusable parser context. `parse` may be called any number of times; each call resets it first.
 * Not re-entrant: do not call `parse` on the same context from inside a callback.
 */
export class LineProtoParser {
  private readonly builder = new PointBuilder()
  private body = ''
  private hasEscapes = false
  // Per-position name caches, see name(). Cleared after each body so no slice keeps it alive.
  private readonly measurementCache: string[] = []
  private readonly tagKeyCache: string[] = []
  private readonly tagValueCache: string[] = []
  private readonly fieldKeyCache: string[] = []
  // Duplicate-key checks are quadratic. The cached keys at positions 0..n-1 always equal the
  // current line's keys once those positions are parsed, so when positions 0..n-1 were already
  // found distinct (and none has been overwritten since), a line whose keys all hit the cache
  // needs no check up to n. A cache write at position k lowers n to k.
  private tagKeysDistinct = 0
  private fieldKeysDistinct = 0
  // Where the current line's measurement and tags are (see seriesText).
  private lineStart = 0
  private seriesEnd = 0
  /**
   * Series already parsed, by a hash of their raw text (kept across bodies, bounded). Agents send
   * the same few thousand series over and over, and a tag set that varies from line to line
   * (host=h0001, host=h0002 ...) misses the per-position name caches: each line sliced its tag
   * values and its series text again. A line whose raw series text is known takes the parsed
   * measurement and tags from here instead; equal texts parse to equal series, errors included,
   * and only texts that parsed are kept. Bodies with backslashes take the full path.
   */
  private readonly knownSeries = new Map<number, KnownSeries>()
  /** the current line's entry in knownSeries, when its series came from there */
  private series: KnownSeries | undefined

  /** Empties the reused point (the pools are kept). */
  reset(): void {
    this.builder.reset()
    this.body = ''
    this.measurementCache.length = 0
    this.tagKeyCache.length = 0
    this.tagValueCache.length = 0
    this.fieldKeyCache.length = 0
    this.tagKeysDistinct = 0
    this.fieldKeysDistinct = 0
  }

  /**
   * Inside an onPoint callback: the current line's measurement and tag set as sent (raw text,
   * escapes included). Equal texts parse to equal measurements and tag lists, so it keys a
   * series without building a key from the parsed parts.
   */
  seriesText(): string {
    return this.series?.raw ?? this.body.slice(this.lineStart, this.seriesEnd)
  }

  // Series text -> seriesKeyOf(its tags), kept across bodies (bounded): see seriesKey(). Only
  // bodies with backslashes use it; the others' series are in knownSeries.
  private readonly seriesKeys = new Map<string, string>()

  /**
   * Inside an onPoint callback: `seriesKeyOf` the current point's tags, built once per distinct
   * series text and then looked up. Building the key per point (a concatenation and a hash of a
   * new string) was the larger part of the schemaless core's per-point cost; a looked-up key is
   * one string whose hash is cached, so the core's maps find it at once.
   */
  seriesKey(): string {
    const known = this.series
    if (known !== undefined) {
      known.key ??= seriesKeyOf(known.tags)
      return known.key
    }
    const text = this.seriesText()
    let key = this.seriesKeys.get(text)
    if (key === undefined) {
      if (this.seriesKeys.size >= MAX_SERIES_KEYS) {
        this.seriesKeys.clear()
      }
      key = seriesKeyOf(this.builder.point.tags)
      this.seriesKeys.set(ownedString(text), key)
    }
    return key
  }

  /** The reused point, exposed so tests can check that `reset()` empties it. */
  get current(): Readonly<Point> {
    return this.builder.point
  }

  /** `lineOffset`: lines before `body` when it is a slice of a larger body (for line numbers) */
  parse(body: string, onPoint: OnPoint, onError: OnError, lineOffset = 0): ParseStats {
    this.reset()
    this.begin(body)
    const stats = this.parseRange(0, body.length, onPoint, onError, lineOffset)
    this.reset()
    return stats
  }

  /**
   * `parse` of body[from, to) only, lines numbered from `lineOffset` + 1: for a caller that reads
   * most lines of a body itself (SliceEncoder.encode) and hands this parser the others. Calls for
   * the same body share its checks and name caches, as one `parse` would; `reset()` when the body
   * is done drops them.
   */
  parseSome(body: string, from: number, to: number, onPoint: OnPoint, onError: OnError, lineOffset: number): ParseStats {
    if (body !== this.body) {
      this.reset()
      this.begin(body)
    }
    return this.parseRange(from, to, onPoint, onError, lineOffset)
  }

  private begin(body: string): void {
    this.body = body
    // One check per body picks the fast path: without backslashes no name needs unescaping and a
    // string value ends at the next quote (VictoriaMetrics' hasEscapeChars).
    this.hasEscapes = body.indexOf('\\') >= 0
  }

  private parseRange(from: number, to: number, onPoint: OnPoint, onError: OnError, lineOffset: number): ParseStats {
    const body = this.body
    const stats: ParseStats = { lines: 0, points: 0, errors: 0 }
    let pos = from
    while (pos < to) {
      let nl = body.indexOf('\n', pos)
      if (nl < 0 || nl > to) {
        nl = to
      }
      stats.lines++
      let start = pos
      let end = nl
      let c: number
      while (start < end && ((c = body.charCodeAt(start)) === SPACE || c === TAB)) {
        start++
      }
      while (end > start && ((c = body.charCodeAt(end - 1)) === SPACE || c === TAB || c === CR)) {
        end--
      }
      if (start < end && body.charCodeAt(start) !== HASH) {
        this.builder.reset()
        this.lineStart = start
        let failure: LineFailure | undefined
        try {
          this.parseLine(start, end, nl < body.length)
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
          onError(
            new IngestParseError({
              format: 'lineproto',
              line: lineOffset + stats.lines,
              field: failure.field,
              reason: failure.reason,
              input: body.slice(start, end),
              hint: failure.hint,
            }),
          )
        }
      }
      pos = nl + 1
    }
    return stats
  }

  /** Parses body[start, end) (already trimmed, not a comment) into the builder or throws LineFailure. */
  private parseLine(start: number, end: number, moreLines: boolean): void {
    const s = this.body
    const b = this.builder
    const p = b.point

    this.series = undefined
    let seriesHash = 0
    if (!this.hasEscapes) {
      // without backslashes the series text ends at the first space
      let to = s.indexOf(' ', start)
      if (to < 0 || to > end) {
        to = end
      }
      const h = seriesTextHash(s, start, to)
      seriesHash = h
      const known = this.knownSeries.get(h)
      if (known !== undefined && sameText(known.raw, s, start, to)) {
        this.series = known
        p.measurement = known.measurement
        for (const [k, v] of known.tags) {
          b.addTag(k, v)
        }
        this.seriesEnd = to
        this.parseFieldSet(to, end, moreLines)
        return
      }
    }

    // Measurement: up to the first unescaped comma or space.
    let i = this.predict(this.measurementCache, 0, start, end, false)
    if (i >= 0) {
      p.measurement = this.measurementCache[1]
    } else {
      i = this.scanName(start, end, false)
      if (i === start) {
        throw new LineFailure('missing measurement')
      }
      p.measurement = this.name(this.measurementCache, 0, start, i, false)
    }

    // Tag set.
    let c = i < end ? s.charCodeAt(i) : -1
    while (c === COMMA) {
      const keyStart = i + 1
      const slot = p.tags.length
      let key: string
      i = this.predict(this.tagKeyCache, slot, keyStart, end, true)
      if (i >= 0) {
        key = this.tagKeyCache[slot * 2 + 1]
      } else {
        i = this.scanName(keyStart, end, true)
        if (i === keyStart) {
          throw new LineFailure('missing tag key')
        }
        key = this.name(this.tagKeyCache, slot, keyStart, i, true)
      }
      if (i >= end || s.charCodeAt(i) !== EQUALS) {
        throw new LineFailure(`missing tag value for ${JSON.stringify(key)}`, key)
      }
      const valStart = i + 1
      let value: string
      i = this.predict(this.tagValueCache, slot, valStart, end, true)
      if (i >= 0) {
        value = this.tagValueCache[slot * 2 + 1]
      } else {
        i = this.scanName(valStart, end, true)
        if (i === valStart) {
          throw new LineFailure(`missing tag value for ${JSON.stringify(key)}`, key)
        }
        value = this.name(this.tagValueCache, slot, valStart, i, true)
      }
      c = i < end ? s.charCodeAt(i) : -1
      if (c === EQUALS) {
        throw new LineFailure(`unescaped "=" in tag value for ${JSON.stringify(key)}`, key)
      }
      const tags = p.tags
      if (slot >= this.tagKeysDistinct) {
        for (let t = 0; t < tags.length; t++) {
          if (tags[t][0] === key) {
            throw new LineFailure(`duplicate tag ${JSON.stringify(key)}`, key)
          }
        }
        this.tagKeysDistinct = slot + 1
      }
      b.addTag(key, value)
    }

    this.seriesEnd = i
    if (!this.hasEscapes) {
      if (this.knownSeries.size >= MAX_SERIES_KEYS) {
        this.knownSeries.clear()
      }
      const tags = p.tags.map(([k, v]): [string, string] => [ownedString(k), ownedString(v)])
      const raw = ownedString(s.slice(start, i))
      // this line's series too: seriesText and seriesKey answer from the entry, not another cache
      this.series = { raw, measurement: ownedString(p.measurement), tags, key: undefined }
      this.knownSeries.set(seriesHash, this.series)
    }
    this.parseFieldSet(i, end, moreLines)
  }

  /** Parses the field set and the timestamp of the current line from `i` (just after its series). */
  private parseFieldSet(i: number, end: number, moreLines: boolean): void {
    const s = this.body
    const p = this.builder.point
    let c: number

    // Space(s) before the field set.
    while (i < end && s.charCodeAt(i) === SPACE) {
      i++
    }
    if (i >= end) {
      throw new LineFailure('missing fields')
    }

    // Field set.
    for (;;) {
      const keyStart = i
      const slot = p.fields.length
      let key: string
      i = this.predict(this.fieldKeyCache, slot, keyStart, end, true)
      if (i >= 0) {
        key = this.fieldKeyCache[slot * 2 + 1]
      } else {
        i = this.scanName(keyStart, end, true)
        if (i === keyStart) {
          throw new LineFailure('missing field key')
        }
        key = this.name(this.fieldKeyCache, slot, keyStart, i, true)
      }
      if (i >= end || s.charCodeAt(i) !== EQUALS) {
        throw new LineFailure(`missing field value for ${JSON.stringify(key)}`, key)
      }
      i = this.parseFieldValue(key, i + 1, end, moreLines)
      c = i < end ? s.charCodeAt(i) : -1
      if (c === COMMA) {
        i++
        continue
      }
      break
    }

    // Timestamp (optional), after one or more spaces.
    while (i < end && s.charCodeAt(i) === SPACE) {
      i++
    }
    if (i < end) {
      p.ts = parseTimestamp(s, i, end)
    }
  }

  /**
   * Fast path only: when the body at `start` repeats the name cached for this position and a
   * delimiter follows, returns its end without scanning or slicing; else -1. Equivalent to
   * scanName: a cached raw name never contains a delimiter of its context.
   */
  private predict(cache: string[], slot: number, start: number, end: number, stopAtEquals: boolean): number {
    if (this.hasEscapes) {
      return -1
    }
    const raw = cache[slot * 2]
    if (raw === undefined) {
      return -1
    }
    const n = raw.length
    const after = start + n
    if (after > end) {
      return -1
    }
    // A charCodeAt loop: String.prototype.startsWith(x, pos) was the top entry in profiles.
    const s = this.body
    for (let k = 0; k < n; k++) {
      if (raw.charCodeAt(k) !== s.charCodeAt(start + k)) {
        return -1
      }
    }
    if (after < end) {
      const c = s.charCodeAt(after)
      if (c !== COMMA && c !== SPACE && !(c === EQUALS && stopAtEquals)) {
        return -1
      }
    }
    return after
  }

  /**
   * Index of the first unescaped delimiter: comma or space, and `=` too when `stopAtEquals`.
   * A backslash skips the character after it.
   */
  private scanName(i: number, end: number, stopAtEquals: boolean): number {
    const s = this.body
    if (this.hasEscapes) {
      while (i < end) {
        const c = s.charCodeAt(i)
        if (c === COMMA || c === SPACE || (c === EQUALS && stopAtEquals)) {
          return i
        }
        i += c === BACKSLASH && i + 1 < end ? 2 : 1
      }
      return end
    }
    while (i < end) {
      const c = s.charCodeAt(i)
      if (c === COMMA || c === SPACE || (c === EQUALS && stopAtEquals)) {
        return i
      }
      i++
    }
    return end
  }

  /**
   * The (unescaped) name in body[start, end). Names repeat from line to line at the same position
   * (measurement, tag keys, most tag values, field keys), so each position remembers its last raw
   * text and result: a match costs a comparison and no allocation, and hands downstream maps the
   * same string object again. `slot` indexes `cache` pairs (raw, value).
   */
  private name(cache: string[], slot: number, start: number, end: number, equalsEscapable: boolean): string {
    const s = this.body
    const at = slot * 2
    const raw = cache[at]
    const n = end - start
    // Without escapes predict() already compared this position and missed.
    if (this.hasEscapes && raw !== undefined && raw.length === n) {
      let k = 0
      while (k < n && raw.charCodeAt(k) === s.charCodeAt(start + k)) {
        k++
      }
      if (k === n) {
        return cache[at + 1]
      }
    }
    const text = s.slice(start, end)
    const value = !this.hasEscapes || text.indexOf('\\') < 0 ? text : unescapeName(text, equalsEscapable)
    cache[at] = text
    cache[at + 1] = value
    if (cache === this.tagKeyCache && slot < this.tagKeysDistinct) {
      this.tagKeysDistinct = slot
    } else if (cache === this.fieldKeyCache && slot < this.fieldKeysDistinct) {
      this.fieldKeysDistinct = slot
    }
    return value
  }

  /** Parses one field value starting at `i`, adds it, and returns the index after it. */
  private parseFieldValue(key: string, i: number, end: number, moreLines: boolean): number {
    const s = this.body
    const fields = this.builder.point.fields
    const slot = fields.length
    if (slot >= this.fieldKeysDistinct) {
      for (let f = 0; f < slot; f++) {
        if (fields[f].name === key) {
          throw new LineFailure(`duplicate field ${JSON.stringify(key)}`, key)
        }
      }
      this.fieldKeysDistinct = slot + 1
    }
    if (i >= end) {
      throw new LineFailure(`missing field value for ${JSON.stringify(key)}`, key)
    }
    let c = s.charCodeAt(i)
    let type: FieldType = 'VARCHAR'
    if (c === 76 /* L */ && i + 1 < end && s.charCodeAt(i + 1) === QUOTE) {
      type = 'NCHAR'
      i++
      c = QUOTE
    } else if (
      (c === 71 /* G */ || c === 66) /* B */ &&
      i + 1 < end &&
      s.charCodeAt(i + 1) === QUOTE
    ) {
      throw new LineFailure(
        `cannot parse field value for ${JSON.stringify(key)}: ${c === 71 ? 'GEOMETRY' : 'VARBINARY'} values (${String.fromCharCode(c)}"...") are not supported`,
        key,
      )
    }
    if (c === QUOTE) {
      const close = this.findClosingQuote(i + 1, end)
      if (close < 0) {
        throw new LineFailure(
          `cannot parse field value for ${JSON.stringify(key)}: missing closing quote`,
          key,
          moreLines ? HINT_RAW_NEWLINE : undefined,
        )
      }
      let text = s.slice(i + 1, close)
      if (this.hasEscapes && text.indexOf('\\') >= 0) {
        text = unescapeString(text)
      }
      this.builder.addField(key, type, text)
      const after = close + 1
      if (after < end) {
        const n = s.charCodeAt(after)
        if (n !== COMMA && n !== SPACE) {
          throw new LineFailure(
            `cannot parse field value for ${JSON.stringify(key)}: unexpected ${JSON.stringify(s[after])} after the closing quote`,
            key,
          )
        }
      }
      return after
    }

    // Unquoted value: up to the next comma or space (backslashes are literal here).
    let j = i
    while (j < end) {
      const d = s.charCodeAt(j)
      if (d === COMMA || d === SPACE) {
        break
      }
      j++
    }
    if (j === i) {
      throw new LineFailure(`missing field value for ${JSON.stringify(key)}`, key)
    }
    if (c === 116 || c === 84 || c === 102 || c === 70) {
      // t T f F
      const v = parseBool(s, i, j)
      if (v === undefined) {
        throw new LineFailure(
          `cannot parse field value for ${JSON.stringify(key)}: invalid value ${JSON.stringify(s.slice(i, j))}`,
          key,
        )
      }
      this.builder.addField(key, 'BOOL', v)
      return j
    }
    this.parseNumber(key, i, j)
    return j
  }

  /** Index of the closing quote of a string starting at `i`, or -1. */
  private findClosingQuote(i: number, end: number): number {
    const s = this.body
    if (!this.hasEscapes) {
      const q = s.indexOf('"', i)
      return q >= 0 && q < end ? q : -1
    }
    while (i < end) {
      const c = s.charCodeAt(i)
      if (c === QUOTE) {
        return i
      }
      i += c === BACKSLASH ? 2 : 1
    }
    return -1
  }

  private parseNumber(key: string, i: number, j: number): void {
    const s = this.body
    // Decimal grammar only: [+-] digits [. digits] [e [+-] digits], at least one digit. Rejects
    // what Number() would also take (hex, Infinity, empty, whitespace).
    let k = i
    let c = s.charCodeAt(k)
    if (c === 45 || c === 43) {
      k++
    }
    let digits = 0
    while (k < j && (c = s.charCodeAt(k)) >= 48 && c <= 57) {
      k++
      digits++
    }
    let integral = true
    if (k < j && s.charCodeAt(k) === 46) {
      integral = false
      k++
      while (k < j && (c = s.charCodeAt(k)) >= 48 && c <= 57) {
        k++
        digits++
      }
    }
    if (digits === 0) {
      throw this.badNumber(key, i, j)
    }
    let noExponent = true
    if (k < j && ((c = s.charCodeAt(k)) === 101 || c === 69)) {
      integral = false
      noExponent = false
      let e = k + 1
      if (e < j && ((c = s.charCodeAt(e)) === 45 || c === 43)) {
        e++
      }
      const expStart = e
      while (e < j && (c = s.charCodeAt(e)) >= 48 && c <= 57) {
        e++
      }
      if (e === expStart) {
        throw this.badNumber(key, i, j)
      }
      k = e
    }
    const numEnd = k
    const suffixLen = j - k
    if (suffixLen === 0) {
      this.addDouble(key, i, numEnd, noExponent)
      return
    }
    const s0 = s.charCodeAt(k) | 0x20 // lower-case ASCII letter
    if (s0 < 97 || s0 > 122) {
      throw this.badNumber(key, i, j) // e.g. 1.2.3, 1-2: not a suffix at all
    }
    const bits = suffixBits(s, k + 1, j)
    if (bits < 0 || (s0 !== 105 && s0 !== 117 && s0 !== 102) || (s0 === 102 && bits !== 32 && bits !== 64)) {
      throw new LineFailure(
        `cannot parse field value for ${JSON.stringify(key)}: unknown type suffix ${JSON.stringify(s.slice(k, j))} in ${JSON.stringify(s.slice(i, j))}`,
        key,
      )
    }
    if (s0 === 102) {
      // f32 / f64
      if (bits === 64) {
        this.addDouble(key, i, numEnd, noExponent)
        return
      }
      const v = Number(s.slice(i, numEnd))
      if (!(Math.abs(v) <= FLT_MAX)) {
        throw new LineFailure(
          `cannot parse field value for ${JSON.stringify(key)}: ${FLOAT_LABEL}:${s.slice(i, numEnd)}`,
          key,
        )
      }
      this.builder.addField(key, 'FLOAT', v)
      return
    }
    if (!integral) {
      throw new LineFailure(
        `cannot parse field value for ${JSON.stringify(key)}: not an integer: ${JSON.stringify(s.slice(i, j))}`,
        key,
      )
    }
    // Up to 15 digits the value is exact as a number: no slice, no BigInt parse.
    const small = digits <= 15 ? smallInteger(s, i, numEnd) : undefined
    const text = small === undefined ? s.slice(i, numEnd) : ''
    if (bits === 0 || bits === 64) {
      if (small !== undefined) {
        if (s0 === 117 && small < 0) {
          throw new LineFailure(
            `cannot parse field value for ${JSON.stringify(key)}: ${U64_LABEL}:${s.slice(i, numEnd)}`,
            key,
          )
        }
        this.builder.addField(key, s0 === 105 ? 'BIGINT' : 'BIGINT UNSIGNED', toBigInt(small))
        return
      }
      const v = BigInt(text)
      if (s0 === 105) {
        if (v < I64_MIN || v > I64_MAX) {
          throw new LineFailure(`cannot parse field value for ${JSON.stringify(key)}: ${I64_LABEL}:${text}`, key)
        }
        this.builder.addField(key, 'BIGINT', v)
      } else {
        if (v < 0n || v > U64_MAX) {
          throw new LineFailure(`cannot parse field value for ${JSON.stringify(key)}: ${U64_LABEL}:${text}`, key)
        }
        this.builder.addField(key, 'BIGINT UNSIGNED', v)
      }
      return
    }
    const r =
      s0 === 105 ? (bits === 8 ? I8 : bits === 16 ? I16 : I32) : bits === 8 ? U8 : bits === 16 ? U16 : U32
    // Over-long digit strings become large numbers and fail the range check.
    const v = small ?? Number(text)
    if (!(v >= r.min && v <= r.max)) {
      throw new LineFailure(
        `cannot parse field value for ${JSON.stringify(key)}: ${r.label}:${s.slice(i, numEnd)}`,
        key,
      )
    }
    this.builder.addField(key, r.type, v === 0 ? 0 : v) // -0 -> 0
  }

  private addDouble(key: string, i: number, numEnd: number, noExponent: boolean): void {
    const v = fastDecimal(this.body, i, numEnd, noExponent) ?? Number(this.body.slice(i, numEnd))
    if (!Number.isFinite(v)) {
      throw new LineFailure(
        `cannot parse field value for ${JSON.stringify(key)}: double out of range:${this.body.slice(i, numEnd)}`,
        key,
      )
    }
    this.builder.addField(key, 'DOUBLE', v)
  }

  private badNumber(key: string, i: number, j: number): LineFailure {
    return new LineFailure(
      `cannot parse field value for ${JSON.stringify(key)}: invalid value ${JSON.stringify(this.body.slice(i, j))}`,
      key,
    )
  }
}

/**
 * The hash a series' raw text s[start, end) is looked up by (LineProtoParser's known series, the
 * parse workers' SliceEncoder): a 31-multiplier string hash seeded with the length.
 */
export function seriesTextHash(s: string, start: number, end: number): number {
  let h = end - start
  for (let k = start; k < end; k++) {
    h = (Math.imul(h, 31) + s.charCodeAt(k)) | 0
  }
  return h
}

/** Whether s[start, end) is `text`. */
export function sameText(text: string, s: string, start: number, end: number): boolean {
  if (text.length !== end - start) {
    return false
  }
  for (let k = 0; k < text.length; k++) {
    if (text.charCodeAt(k) !== s.charCodeAt(start + k)) {
      return false
    }
  }
  return true
}

/** 0 for no digits after the suffix letter, 8/16/32/64, or -1. */
function suffixBits(s: string, i: number, end: number): number {
  const n = end - i
  if (n === 0) {
    return 0
  }
  const a = s.charCodeAt(i)
  if (n === 1) {
    return a === 56 ? 8 : -1
  }
  if (n !== 2) {
    return -1
  }
  const b = s.charCodeAt(i + 1)
  return a === 49 && b === 54 ? 16 : a === 51 && b === 50 ? 32 : a === 54 && b === 52 ? 64 : -1
}

/** An already validated `[+-]digits` of at most 15 digits, as an exact number. */
export function smallInteger(s: string, i: number, end: number): number {
  let k = i
  const c0 = s.charCodeAt(k)
  if (c0 === 45 || c0 === 43) {
    k++
  }
  let m = 0
  for (; k < end; k++) {
    m = m * 10 + (s.charCodeAt(k) - 48)
  }
  return c0 === 45 ? -m : m === 0 ? 0 : m
}

/** Small counters and flags dominate real integer fields; their bigints are made once. */
const SMALL_BIGINTS: bigint[] = Array.from({ length: 1024 }, (_, n) => BigInt(n))

export function toBigInt(v: number): bigint {
  return v >= 0 && v < 1024 ? SMALL_BIGINTS[v] : BigInt(v)
}

const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15]

/**
 * Clinger's fast path: a decimal with at most 15 significant digits and no exponent is M / 10^k
 * with M and 10^k exact doubles, and IEEE division rounds that correctly, so the result equals
 * Number(text) without slicing the string. Returns undefined when the fast path does not apply.
 */
export function fastDecimal(s: string, i: number, end: number, noExponent: boolean): number | undefined {
  if (!noExponent || end - i > 16) {
    return undefined
  }
  let k = i
  const c0 = s.charCodeAt(k)
  const neg = c0 === 45
  if (neg || c0 === 43) {
    k++
  }
  let m = 0
  let digits = 0
  let frac = -1
  for (; k < end; k++) {
    const c = s.charCodeAt(k)
    if (c === 46) {
      frac = 0
      continue
    }
    m = m * 10 + (c - 48)
    digits++
    if (frac >= 0) {
      frac++
    }
  }
  if (digits > 15) {
    return undefined
  }
  const v = frac > 0 ? m / POW10[frac] : m
  return neg ? -v : v
}

/** t T true True TRUE f F false False (the forms TDengine accepts), else undefined. */
function parseBool(s: string, i: number, j: number): boolean | undefined {
  const n = j - i
  if (n === 1) {
    const c = s.charCodeAt(i)
    return c === 116 || c === 84 ? true : c === 102 || c === 70 ? false : undefined
  }
  if (n !== 4 && n !== 5) {
    return undefined
  }
  const w = s.slice(i, j)
  if (w === 'true' || w === 'True' || w === 'TRUE') {
    return true
  }
  if (w === 'false' || w === 'False' || w === 'FALSE') {
    return false
  }
  return undefined
}

let lastTsNumber = 0
let lastTsBigInt = 0n

/** `-?digits` to the end of the line, as a signed 64-bit integer. */
export function parseTimestamp(s: string, i: number, end: number): bigint {
  let k = i
  const neg = s.charCodeAt(k) === 45
  if (neg) {
    k++
  }
  const digitsStart = k
  let acc = 0
  while (k < end) {
    const c = s.charCodeAt(k)
    if (c < 48 || c > 57) {
      throw new LineFailure(`invalid timestamp ${JSON.stringify(s.slice(i, end))}`)
    }
    acc = acc * 10 + (c - 48)
    k++
  }
  const n = k - digitsStart
  if (n === 0) {
    throw new LineFailure(`invalid timestamp ${JSON.stringify(s.slice(i, end))}`)
  }
  // Up to 15 digits the accumulated number is exact, and BigInt(number) is cheaper than parsing.
  // Batches are usually time-major (many series, same timestamp), so the last value is cached;
  // bigints are immutable, so sharing one is safe.
  if (n <= 15) {
    const v = neg ? -acc : acc
    if (v !== lastTsNumber) {
      lastTsNumber = v
      lastTsBigInt = BigInt(v)
    }
    return lastTsBigInt
  }
  const v = BigInt(s.slice(i, end))
  if (v < I64_MIN || v > I64_MAX) {
    throw new LineFailure(`timestamp out of range: ${s.slice(i, end)}`)
  }
  return v
}

/** Names: `\,` `\ ` `\\` (and `\=` when `equalsEscapable`) lose the backslash; others keep it. */
export function unescapeName(text: string, equalsEscapable: boolean): string {
  let out = ''
  let from = 0
  for (;;) {
    const n = text.indexOf('\\', from)
    if (n < 0 || n + 1 >= text.length) {
      return out + text.slice(from)
    }
    const c = text.charCodeAt(n + 1)
    if (c === COMMA || c === SPACE || c === BACKSLASH || (c === EQUALS && equalsEscapable)) {
      out += text.slice(from, n) + text[n + 1]
      from = n + 2
    } else {
      out += text.slice(from, n + 1)
      from = n + 1
    }
  }
}

/** String field values: `\"` and `\\` lose the backslash; others keep it. */
export function unescapeString(text: string): string {
  let out = ''
  let from = 0
  for (;;) {
    const n = text.indexOf('\\', from)
    if (n < 0 || n + 1 >= text.length) {
      return out + text.slice(from)
    }
    const c = text.charCodeAt(n + 1)
    if (c === QUOTE || c === BACKSLASH) {
      out += text.slice(from, n) + text[n + 1]
      from = n + 2
    } else {
      out += text.slice(from, n + 1)
      from = n + 1
    }
  }
}

/**
 * Parses a line-protocol body. Bad lines go to `onError` and parsing continues, so the caller can
 * write the good lines and report the rejected ones. Pass a `LineProtoParser` to reuse its pools
 * across requests.
 */
export function parseLineProtocol(
  body: string,
  onPoint: OnPoint,
  onError: OnError,
  parser: LineProtoParser = new LineProtoParser(),
): ParseStats {
  return parser.parse(body, onPoint, onError)
}
