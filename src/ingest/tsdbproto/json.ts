/**
 * OpenTSDB JSON put bodies, pure: a single object or an array of
 * `{"metric": "...", "timestamp": ..., "value": ..., "tags": {...}}` (sql-dialect 9.2).
 *
 * - metric: a non-empty string -> measurement.
 * - timestamp: an integer of 10 digits (seconds) or 13 digits (milliseconds); 0 means "now"
 *   (ts null); or `{"value": <int>, "type": "s" | "ms"}`. Points carry milliseconds
 *   (`TSDB_TS_PRECISION`). Microsecond/nanosecond typed timestamps are rejected rather than
 *   silently truncated to milliseconds.
 * - value -> field `_value`: a number -> DOUBLE, a string -> NCHAR, a boolean -> BOOL, or
 *   `{"value": x, "type": t}` with t one of bool, tinyint, smallint, int, bigint, float, double,
 *   binary/varchar, nchar (case-insensitive; integers range-checked; bigint may be given as a
 *   digit string to keep 64 bits exact).
 * - tags: an object (may be empty). Tags are NCHAR here: string values are kept, numbers and
 *   booleans are stored as their JSON text (TDengine would type them DOUBLE/BOOL, but every path
 *   of this adapter keeps tags NCHAR, see issue 5).
 *
 * A body that is not JSON is one error (line 0). Each bad item is one error naming its 0-based
 * index and the member; the other items are still delivered.
 */
import { IngestParseError } from '../errors.js'
import { MAX_TAGS, tooManyTags } from '../limits.js'
import { PointBuilder, type FieldType, type OnError, type OnPoint, type ParseStats, type Point } from '../point.js'
import { TSDB_VALUE_FIELD } from './telnet.js'

class ItemFailure {
  constructor(
    readonly reason: string,
    readonly field?: string,
  ) {}
}

const INT_TYPES: Record<string, { type: FieldType; min: number; max: number }> = {
  tinyint: { type: 'TINYINT', min: -128, max: 127 },
  smallint: { type: 'SMALLINT', min: -32768, max: 32767 },
  int: { type: 'INT', min: -2147483648, max: 2147483647 },
}
const I64_MIN = -(2n ** 63n)
const I64_MAX = 2n ** 63n - 1n
const FLT_MAX = 3.4028234663852886e38

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** Reusable OpenTSDB JSON parser context; `parse` resets it first. Not re-entrant. */
export class OpenTsdbJsonParser {
  private readonly builder = new PointBuilder()

  reset(): void {
    this.builder.reset()
  }

  get current(): Readonly<Point> {
    return this.builder.point
  }

  /**
   * `onPoint` gets the 0-based item index as its second argument. An empty or whitespace-only
   * body is zero items (the endpoint answers 204 without touching the database).
   */
  parse(body: string, onPoint: OnPoint, onError: OnError): ParseStats {
    this.reset()
    const stats: ParseStats = { lines: 0, points: 0, errors: 0 }
    if (body.trim() === '') {
      return stats
    }
    let doc: unknown
    try {
      doc = JSON.parse(body)
    } catch (e) {
      stats.errors++
      onError(
        new IngestParseError({
          format: 'tsdb-json',
          line: 0,
          reason: `invalid JSON: ${(e as Error).message}`,
          input: body,
          cause: e,
        }),
      )
      return stats
    }
    const items: unknown[] = Array.isArray(doc) ? doc : [doc]
    for (let index = 0; index < items.length; index++) {
      stats.lines++
      this.builder.reset()
      let failure: ItemFailure | undefined
      try {
        this.parseItem(items[index])
      } catch (e) {
        if (!(e instanceof ItemFailure)) {
          throw e
        }
        failure = e
      }
      if (failure === undefined) {
        stats.points++
        onPoint(this.builder.point, index)
      } else {
        stats.errors++
        onError(
          new IngestParseError({
            format: 'tsdb-json',
            line: 0,
            index,
            field: failure.field,
            reason: failure.reason,
            input: quoteItem(items[index]),
          }),
        )
      }
    }
    this.reset()
    return stats
  }

  private parseItem(item: unknown): void {
    if (!isObject(item)) {
      throw new ItemFailure(`expected an object, got ${describe(item)}`)
    }
    const b = this.builder
    const p = b.point
    const metric = item.metric
    if (typeof metric !== 'string' || metric === '') {
      throw new ItemFailure(`"metric" must be a non-empty string, got ${describe(metric)}`, 'metric')
    }
    p.measurement = metric
    p.ts = timestampMs(item.timestamp)
    this.addValue(item.value)
    const tags = item.tags
    if (!isObject(tags)) {
      throw new ItemFailure(`"tags" must be an object, got ${describe(tags)}`, 'tags')
    }
    const keys = Object.keys(tags)
    if (keys.length > MAX_TAGS) {
      throw new ItemFailure(tooManyTags(), 'tags')
    }
    for (const key of keys) {
      const v = tags[key]
      if (key === '') {
        throw new ItemFailure('empty tag key', 'tags')
      }
      if (typeof v === 'string') {
        b.addTag(key, v)
      } else if ((typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean') {
        b.addTag(key, String(v))
      } else {
        throw new ItemFailure(
          `tag ${JSON.stringify(key)} must be a string, number or boolean, got ${describe(v)}`,
          key,
        )
      }
    }
  }

  private addValue(v: unknown): void {
    const b = this.builder
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) {
        // JSON.parse turns 1e999 into Infinity
        throw new ItemFailure(`"value" out of range: ${v}`, 'value')
      }
      b.addField(TSDB_VALUE_FIELD, 'DOUBLE', v)
      return
    }
    if (typeof v === 'string') {
      b.addField(TSDB_VALUE_FIELD, 'NCHAR', v)
      return
    }
    if (typeof v === 'boolean') {
      b.addField(TSDB_VALUE_FIELD, 'BOOL', v)
      return
    }
    if (!isObject(v)) {
      throw new ItemFailure(`"value" must be a number, string, boolean or {value, type}, got ${describe(v)}`, 'value')
    }
    const type = typeof v.type === 'string' ? v.type.toLowerCase() : undefined
    const x = v.value
    const bad = (what: string): ItemFailure =>
      new ItemFailure(`"value" of type ${JSON.stringify(v.type)} must be ${what}, got ${describe(x)}`, 'value')
    switch (type) {
      case 'bool':
        if (typeof x !== 'boolean') {
          throw bad('a boolean')
        }
        b.addField(TSDB_VALUE_FIELD, 'BOOL', x)
        return
      case 'tinyint':
      case 'smallint':
      case 'int': {
        const r = INT_TYPES[type]
        if (typeof x !== 'number' || !Number.isInteger(x)) {
          throw bad('an integer')
        }
        if (x < r.min || x > r.max) {
          throw new ItemFailure(`${type} out of range[${r.min},${r.max}]:${x}`, 'value')
        }
        b.addField(TSDB_VALUE_FIELD, r.type, x === 0 ? 0 : x)
        return
      }
      case 'bigint': {
        let n: bigint
        if (typeof x === 'number' && Number.isSafeInteger(x)) {
          n = BigInt(x)
        } else if (typeof x === 'string' && /^[+-]?\d+$/.test(x)) {
          n = BigInt(x)
        } else {
          throw bad('a safe integer or a string of digits')
        }
        if (n < I64_MIN || n > I64_MAX) {
          throw new ItemFailure(`bigint out of range[${I64_MIN},${I64_MAX}]:${x}`, 'value')
        }
        b.addField(TSDB_VALUE_FIELD, 'BIGINT', n)
        return
      }
      case 'float':
        if (typeof x !== 'number') {
          throw bad('a number')
        }
        if (!(Math.abs(x) <= FLT_MAX)) {
          throw new ItemFailure(`float out of range[-3.402823466e+38,3.402823466e+38]:${x}`, 'value')
        }
        b.addField(TSDB_VALUE_FIELD, 'FLOAT', x)
        return
      case 'double':
        if (typeof x !== 'number' || !Number.isFinite(x)) {
          throw bad('a finite number')
        }
        b.addField(TSDB_VALUE_FIELD, 'DOUBLE', x)
        return
      case 'binary':
      case 'varchar':
      case 'nchar':
        if (typeof x !== 'string') {
          throw bad('a string')
        }
        b.addField(TSDB_VALUE_FIELD, type === 'nchar' ? 'NCHAR' : 'VARCHAR', x)
        return
      default:
        throw new ItemFailure(
          `unknown value type ${JSON.stringify(v.type)} (expected bool, tinyint, smallint, int, bigint, float, double, binary, varchar or nchar)`,
          'value',
        )
    }
  }
}

/** Seconds (10 digits) or milliseconds (13 digits) to ms; 0 -> null (server time). */
function timestampMs(t: unknown): bigint | null {
  let value: unknown = t
  let unit: 's' | 'ms' | undefined
  if (isObject(t)) {
    const type = typeof t.type === 'string' ? t.type.toLowerCase() : undefined
    if (type !== 's' && type !== 'ms') {
      throw new ItemFailure(
        `"timestamp" type must be "s" or "ms", got ${describe(t.type)}`,
        'timestamp',
      )
    }
    unit = type
    value = t.value
  }
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new ItemFailure(`"timestamp" must be a non-negative integer, got ${describe(value)}`, 'timestamp')
  }
  if (value === 0) {
    return null
  }
  if (unit === undefined) {
    const digits = String(value).length
    if (digits === 10) {
      unit = 's'
    } else if (digits === 13) {
      unit = 'ms'
    } else {
      throw new ItemFailure(
        `"timestamp" ${value} must have 10 digits (seconds) or 13 digits (milliseconds), or be 0 (now)`,
        'timestamp',
      )
    }
  }
  return unit === 's' ? BigInt(value) * 1000n : BigInt(value)
}

function describe(v: unknown): string {
  if (v === undefined) {
    return 'nothing'
  }
  if (v === null) {
    return 'null'
  }
  if (Array.isArray(v)) {
    return 'an array'
  }
  if (typeof v === 'object') {
    return 'an object'
  }
  return `${typeof v} ${JSON.stringify(v)}`
}

function quoteItem(item: unknown): string {
  try {
    return JSON.stringify(item) ?? String(item)
  } catch {
    // nested too deeply to print (String() of it recurses as deep): the client's fault, a 400
    return describe(item)
  }
}
