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
import { parseBool, parseNumber } from './field-value.js'
import { MAX_LINE_FIELDS, MAX_TAGS, tooManyFields, tooManyTags } from '../limits.js'
import { NextIndex, parseTimestamp, sameText, seriesTextHash, unescapeName, unescapeString } from './scan.js'

const SPACE = 32
const TAB = 9
const CR = 13
const COMMA = 44
const EQUALS = 61
const QUOTE = 34
const BACKSLASH = 92
const HASH = 35

/** fields of a line checked for duplicates by a loop; a wider line uses `fieldNames` (linear) */
const FIELD_LOOP_MAX = 32

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
  /** field names of a wide line -> the line's number in `lineNo` (no per-line allocation) */
  private readonly fieldNames = new Map<string, number>()
  private lineNo = 0
  /** the line whose first fields are in fieldNames */
  private fieldNamesLine = -1
  // space and quote searches that never rescan the body (see NextIndex)
  private readonly spaces = new NextIndex(' ')
  private readonly quotes = new NextIndex('"')
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
    this.spaces.reset()
    this.quotes.reset()
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
    this.spaces.reset()
    this.quotes.reset()
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
    this.lineNo++
    const b = this.builder
    const p = b.point

    this.series = undefined
    let seriesHash = 0
    if (!this.hasEscapes) {
      // without backslashes the series text ends at the first space
      let to = this.spaces.find(s, start)
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
      if (slot >= MAX_TAGS) {
        // refused as it is read: the rest of the line is not scanned, keyed or hashed
        throw new LineFailure(tooManyTags())
      }
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
    if (slot >= MAX_LINE_FIELDS) {
      throw new LineFailure(tooManyFields())
    }
    if (slot >= this.fieldKeysDistinct) {
      if (slot < FIELD_LOOP_MAX) {
        for (let f = 0; f < slot; f++) {
          if (fields[f].name === key) {
            throw new LineFailure(`duplicate field ${JSON.stringify(key)}`, key)
          }
        }
      } else if (this.wideDuplicate(key, slot)) {
        throw new LineFailure(`duplicate field ${JSON.stringify(key)}`, key)
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
    parseNumber(this.builder, s, key, i, j)
    return j
  }

  /** Whether field `slot` of a wide line repeats an earlier name: a map instead of a quadratic loop. */
  private wideDuplicate(key: string, slot: number): boolean {
    const names = this.fieldNames
    const line = this.lineNo
    if (this.fieldNamesLine !== line) {
      if (names.size > 2 * MAX_LINE_FIELDS) {
        names.clear()
      }
      const fields = this.builder.point.fields
      for (let f = 0; f < slot; f++) {
        names.set(fields[f].name, line)
      }
      this.fieldNamesLine = line
    }
    if (names.get(key) === line) {
      return true
    }
    names.set(key, line)
    return false
  }

  /** Index of the closing quote of a string starting at `i`, or -1. */
  private findClosingQuote(i: number, end: number): number {
    const s = this.body
    if (!this.hasEscapes) {
      const q = this.quotes.find(s, i)
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
}
