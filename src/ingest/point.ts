/**
 * The parsed point every wire format produces (line protocol, OpenTSDB telnet and JSON, and later
 * Prometheus and the receivers). The schemaless core turns points into rows; parsers never touch
 * storage.
 *
 * Reuse contract: parsers hand each point to a callback and REUSE the same Point object (and its
 * `tags` / `fields` arrays and entries) for the next line, like VictoriaMetrics' `Rows.Reset()`.
 * A point is therefore valid only until the callback returns; copy what you keep (`clonePoint`).
 */
import type { IngestParseError } from './errors.js'

/** What a parse call saw; every format returns it. */
export interface ParseStats {
  /** physical lines seen (a final newline does not start another line); JSON: items */
  lines: number
  /** points delivered to onPoint */
  points: number
  /** lines (or JSON items) delivered to onError */
  errors: number
}

/**
 * Receives each good line (or JSON item). `p` is reused for the next one: it is valid only until
 * the callback returns (copy with `clonePoint` to keep it). `lineNo` is 1-based; for OpenTSDB JSON
 * it is the 0-based array index.
 */
export type OnPoint = (p: Point, lineNo: number) => void
/** Receives each rejected line; parsing continues after it. */
export type OnError = (e: IngestParseError) => void

/** Column types a field value can carry, named as TDengine names them (see sql-dialect 9.1). */
export type NumberFieldType =
  | 'DOUBLE'
  | 'FLOAT'
  | 'TINYINT'
  | 'SMALLINT'
  | 'INT'
  | 'TINYINT UNSIGNED'
  | 'SMALLINT UNSIGNED'
  | 'INT UNSIGNED'
export type BigIntFieldType = 'BIGINT' | 'BIGINT UNSIGNED'
export type StringFieldType = 'VARCHAR' | 'NCHAR'
export type FieldType = NumberFieldType | BigIntFieldType | StringFieldType | 'BOOL'

/**
 * One typed field. 64-bit integers are bigint so no precision is lost; the narrower integer types
 * and floats are numbers (already range-checked by the parser).
 */
export type Field =
  | { name: string; type: NumberFieldType; value: number }
  | { name: string; type: BigIntFieldType; value: bigint }
  | { name: string; type: 'BOOL'; value: boolean }
  | { name: string; type: StringFieldType; value: string }

export type FieldValue = Field['value']

export interface Point {
  /** super table name as sent (dot->underscore replacement is the core's job) */
  measurement: string
  /** tag key/value pairs in the order sent; tags are always NCHAR */
  tags: Array<[string, string]>
  fields: Field[]
  /**
   * Timestamp as sent, null when absent (the core uses the server time). Line protocol: in the
   * request precision. OpenTSDB telnet/JSON: always milliseconds (`TSDB_TS_PRECISION`), because
   * those formats infer seconds or milliseconds per value from its digit count.
   */
  ts: bigint | null
  /**
   * `seriesKeyOf(tags)` when the producer already knows it (a series decoded once for many
   * points); undefined otherwise, and then the schemaless core computes it.
   */
  seriesKey?: string | undefined
}

/** An injective key of a tag list in the order sent (length-prefixed, so no separator can clash). */
export function seriesKeyOf(tags: ReadonlyArray<readonly [string, string]>): string {
  let key = ''
  for (let i = 0; i < tags.length; i++) {
    const t = tags[i]
    key += `${t[0].length}:${t[0]}${t[1].length}:${t[1]}`
  }
  return key
}

/** A mutable field slot that parsers reuse; exposed to callbacks as `Field`. */
interface FieldSlot {
  name: string
  type: FieldType
  value: FieldValue
}

/**
 * Reusable parse state: one Point plus pools of tag pairs and field slots. `reset()` empties the
 * point without freeing the pooled objects, so parsing a million lines allocates only the strings.
 */
export class PointBuilder {
  readonly point: Point = { measurement: '', tags: [], fields: [], ts: null, seriesKey: undefined }
  private readonly tagPool: Array<[string, string]> = []
  private readonly fieldPool: FieldSlot[] = []

  reset(): void {
    const p = this.point
    p.measurement = ''
    // pop() is inlined by V8; assigning `length` is a runtime call that showed in profiles.
    const tags = p.tags
    while (tags.length > 0) {
      tags.pop()
    }
    const fields = p.fields
    while (fields.length > 0) {
      fields.pop()
    }
    p.ts = null
  }

  addTag(key: string, value: string): void {
    const tags = this.point.tags
    const n = tags.length
    let pair = this.tagPool[n]
    if (pair === undefined) {
      pair = [key, value]
      this.tagPool.push(pair)
    } else {
      pair[0] = key
      pair[1] = value
    }
    tags.push(pair)
  }

  addField(name: string, type: FieldType, value: FieldValue): void {
    const fields = this.point.fields
    const n = fields.length
    let slot = this.fieldPool[n]
    if (slot === undefined) {
      slot = { name, type, value }
      this.fieldPool.push(slot)
    } else {
      slot.name = name
      slot.type = type
      slot.value = value
    }
    // The parser pairs type and value correctly; FieldSlot is the non-discriminated view of Field.
    fields.push(slot as Field)
  }
}

/** A deep copy that stays valid after the parser moves on. */
export function clonePoint(p: Point): Point {
  return {
    measurement: p.measurement,
    tags: p.tags.map(([k, v]): [string, string] => [k, v]),
    fields: p.fields.map((f) => ({ ...f })),
    ts: p.ts,
  }
}
