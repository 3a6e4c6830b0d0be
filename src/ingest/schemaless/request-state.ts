/**
 * Pass 1 of a schemaless write (schemaless.ts): a synchronous pass over the points against the
 * cached catalog that groups them by super table and child table, validates names, types, widths
 * and limits, converts timestamps and collects what the schema lacks. Rows of rejected lines are
 * dropped; rows of lines whose schema change fails later are dropped by rejectStable/rejectChild.
 */
import type { Catalog } from '../../sql/catalog/types.js'
import { FIXED_LENGTH } from '../../sql/types.js'
import type { ColumnDef, DatabaseInfo, Precision, StableInfo, TagValue, TdType } from '../../storage/td-types.js'
import { identifierProblem } from '../../identifier.js'
import { MAX_COLUMN_NAME_BYTES, MAX_COLUMNS, MAX_LINE_FIELDS, MAX_TABLE_NAME_BYTES, MAX_TAGS } from '../limits.js'
import { stableNameOf } from '../naming.js'
import { seriesKeyOf, type Field, type Point } from '../point.js'
import type { Rejection, WriteResult } from '../types.js'
import type { ChildNameCache } from './child-names.js'
import { nowTicks, tickConverter, type RequestPrecision } from './precision.js'
import { fitsQuickly, maxVarLength, valueLength, varCapacity } from './sizing.js'

/** rejections a result lists (WriteResult.errors); the count covers all of them */
const MAX_REPORTED_ERRORS = 100
/** the timestamp column of a super table the core creates */
export const TS_COLUMN = '_ts'
/**
 * Names no field or tag may take (compared lower-cased): `tbname` is the child-name pseudo
 * column (and a column of the tag table), `_tid` keys data and tag tables, `_seq` orders the
 * staging table. Storage would refuse them as duplicates, which surfaced as a 503 (retried
 * forever by agents) instead of a bad line.
 */
const RESERVED_NAMES = new Set(['tbname', '_tid', '_seq'])

/** A column (or tag) as this request sees it: the catalog's state plus what the request needs. */
export interface ColState {
  name: string
  type: TdType
  /** declared length the request needs (the catalog length, or more when a value is longer) */
  want: number
  /** false while the column exists only in this request */
  known: boolean
  /** first line that introduced it (for "created by line N" messages) */
  sinceLine: number
  /** index of this field in the request's rows (data columns only), -1 when unused */
  slot: number
  /** sequence number of the last point that validated this field (duplicate-field detection) */
  seenPoint: number
}

interface ChildAcc {
  name: string
  /** undefined until the child exists */
  tid: number | undefined
  /** tag values for creating it (new children only) */
  tags: Record<string, TagValue> | undefined
  /** row = [ts, ...values by slot]; missing fields are undefined */
  rows: unknown[][]
  lastTs: bigint | undefined
  unsorted: boolean
  points: number
  firstLine: number
  dead: boolean
}

export interface StableAcc {
  name: string
  /** catalog info when pass 1 started; undefined for a new super table */
  existing: StableInfo | undefined
  tsName: string
  cols: Map<string, ColState>
  tags: Map<string, ColState>
  /** lower-cased column/tag names (DuckDB matches identifiers case-insensitively) */
  lower: Map<string, string>
  /** data columns used by this request, by slot */
  slots: ColState[]
  /** tag set key -> child (or the error that rejects its lines) */
  series: Map<string, ChildAcc | string>
  /** child name -> child (two orders of one tag set are one child) */
  byName: Map<string, ChildAcc>
  children: ChildAcc[]
  /** needs schema work: creation, new columns or tags, widening, new children */
  dirty: boolean
  points: number
  firstLine: number
  /** set when the whole super table is unusable (name clash ...) */
  error: string | undefined
}

/** Everything pass 1 learned about one request. */
export class RequestState {
  readonly stables = new Map<string, StableAcc>()
  /** measurement as sent -> stable acc (several spellings may map to one name) */
  readonly byMeasurement = new Map<string, StableAcc>()
  readonly errors: Rejection[] = []
  rejected = 0
  accepted = 0
  needsDdl = false
  /** points consumed so far (identifies the point being validated) */
  private seq = 0
  /** lower-cased names of the new fields (or tags) of the point being checked -> its seq */
  private readonly newNames = new Map<string, number>()
  /** lower-cased tag names of the point being checked -> its seq (when a field is new) */
  private readonly tagNames = new Map<string, number>()
  private lastTsIn: bigint | undefined
  private lastTsOut = 0n
  readonly toDb: (ts: bigint) => bigint | undefined
  readonly now: bigint
  readonly where: (n: number) => string

  constructor(
    readonly db: string,
    readonly dbInfo: DatabaseInfo | undefined,
    readonly catalog: Catalog,
    readonly childNames: ChildNameCache,
    precision: RequestPrecision,
    nowMs: number,
    where: ((n: number) => string) | undefined,
  ) {
    this.where = where ?? lineLabel
    // a database created by this request is created with precision ns
    const dbPrecision: Precision = dbInfo?.precision ?? 'ns'
    this.toDb = tickConverter(precision, dbPrecision)
    this.now = nowTicks(dbPrecision, nowMs)
    if (dbInfo === undefined) {
      this.needsDdl = true
    }
  }

  reject(line: number, message: string, count = 1): void {
    this.rejected += count
    if (this.errors.length < MAX_REPORTED_ERRORS * 4) {
      this.errors.push({ line, message })
    }
  }

  // ---- pass 1 --------------------------------------------------------------------------------

  consume(p: Point, line: number): void {
    this.seq++
    let st = this.byMeasurement.get(p.measurement)
    if (st === undefined) {
      st = this.openStable(p.measurement, line)
      this.byMeasurement.set(p.measurement, st)
    }
    if (st.error !== undefined) {
      this.reject(line, st.error)
      return
    }
    const tagKey = p.seriesKey ?? seriesKeyOf(p.tags)
    let child = st.series.get(tagKey)
    if (typeof child === 'string') {
      this.reject(line, child)
      return
    }
    const fieldError = this.checkFields(st, p, line, child === undefined)
    if (fieldError !== undefined) {
      this.reject(line, fieldError)
      return
    }
    let ts: bigint
    if (p.ts === null) {
      ts = this.now
    } else if (p.ts === this.lastTsIn) {
      // time-major bodies: many series in a row share a timestamp, so one conversion serves them
      ts = this.lastTsOut
    } else {
      const v = this.toDb(p.ts)
      if (v === undefined) {
        this.reject(line, `${this.where(line)}: timestamp ${p.ts} is out of range for the database precision`)
        return
      }
      this.lastTsIn = p.ts
      this.lastTsOut = v
      ts = v
    }
    if (child === undefined) {
      const opened = this.openChild(st, p, line, tagKey)
      st.series.set(tagKey, opened)
      if (typeof opened === 'string') {
        this.reject(line, opened)
        return
      }
      child = opened
    }
    this.addRow(st, child, p.fields, ts, line)
  }

  private openStable(measurement: string, line: number): StableAcc {
    const name = stableNameOf(measurement)
    const same = this.stables.get(name)
    if (same !== undefined) {
      return same
    }
    const st: StableAcc = {
      name,
      existing: undefined,
      tsName: TS_COLUMN,
      cols: new Map(),
      tags: new Map(),
      lower: new Map(),
      slots: [],
      series: new Map(),
      byName: new Map(),
      children: [],
      dirty: false,
      points: 0,
      firstLine: line,
      error: undefined,
    }
    this.stables.set(name, st)
    if (name === '' || Buffer.byteLength(name, 'utf8') > MAX_TABLE_NAME_BYTES) {
      st.error = `${this.where(line)}: measurement name must be 1 to ${MAX_TABLE_NAME_BYTES} bytes long`
      return st
    }
    const bad = identifierProblem(name, MAX_TABLE_NAME_BYTES)
    if (bad !== undefined) {
      st.error = `${this.where(line)}: measurement ${JSON.stringify(name)} ${bad}`
      return st
    }
    if (name.endsWith('$tags')) {
      st.error = `${this.where(line)}: measurement "${name}": names ending in "$tags" are reserved`
      return st
    }
    const existing = this.dbInfo ? this.catalog.getStable(this.db, name) : undefined
    if (existing === undefined) {
      st.dirty = true
      this.needsDdl = true
      const lower = name.toLowerCase()
      if (this.dbInfo) {
        const table = this.catalog.getTable(this.db, name)
        if (table !== undefined) {
          st.error = `${this.where(line)}: measurement "${name}": a ${table.kind} table of that name exists, not a super table`
          return st
        }
        const clash = this.catalog.listStables(this.db).find((s) => s.name.toLowerCase() === lower)
        if (clash !== undefined) {
          st.error = `${this.where(line)}: measurement "${name}" clashes with super table "${clash.name}" (names differing only in case are one table in storage)`
          return st
        }
      }
      // two new measurements of this request may clash too; the first one seen is created
      for (const other of this.stables.values()) {
        if (other !== st && other.error === undefined && other.name.toLowerCase() === lower) {
          st.error = `${this.where(line)}: measurement "${name}" clashes with measurement "${other.name}" of line ${other.firstLine} (names differing only in case are one table in storage)`
          return st
        }
      }
      st.lower.set(TS_COLUMN, TS_COLUMN)
      return st
    }
    st.existing = existing
    st.tsName = existing.columns[0].name
    st.lower.set(st.tsName.toLowerCase(), st.tsName)
    for (let i = 1; i < existing.columns.length; i++) {
      const c = existing.columns[i]
      st.cols.set(c.name, knownCol(c))
      st.lower.set(c.name.toLowerCase(), c.name)
    }
    for (const t of existing.tags) {
      st.tags.set(t.name, knownCol(t))
      st.lower.set(t.name.toLowerCase(), t.name)
    }
    return st
  }

  /** Validates the fields of one line without changing anything; returns the error text. */
  private checkFields(st: StableAcc, p: Point, line: number, newChild: boolean): string | undefined {
    const fields = p.fields
    if (fields.length === 0) {
      return `${this.where(line)}: no fields`
    }
    // a line wider than any super table may be is refused before its fields are looked at
    if (fields.length > MAX_LINE_FIELDS) {
      return `${this.where(line)}: ${fields.length} fields: a super table has at most ${MAX_COLUMNS} columns and tags`
    }
    let newCols = 0
    let tagsIndexed = false
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i]
      const col = st.cols.get(f.name)
      if (col !== undefined) {
        if (col.seenPoint === this.seq) {
          return `${this.where(line)}: field "${f.name}" appears twice`
        }
        col.seenPoint = this.seq
        if (col.type !== f.type) {
          return col.known
            ? `${this.where(line)}: field "${f.name}" type mismatch: the column in super table "${st.name}" is ${col.type}, this line sent ${f.type}`
            : `${this.where(line)}: field "${f.name}" type mismatch: ${this.where(col.sinceLine)} of this request sent ${col.type}, this line sent ${f.type}`
        }
        if (typeof f.value === 'string' && !fitsQuickly(col.type, f.value, col.want)) {
          const max = maxVarLength(col.type as 'VARCHAR' | 'NCHAR', false)
          if (valueLength(col.type, f.value) > max) {
            return `${this.where(line)}: field "${f.name}" value is longer than the ${col.type} maximum of ${max}`
          }
        }
        continue
      }
      // a new column
      if (st.tags.has(f.name)) {
        return `${this.where(line)}: field "${f.name}" has the name of a tag of super table "${st.name}"`
      }
      const lowerHit = st.lower.get(f.name.toLowerCase())
      if (lowerHit !== undefined) {
        return lowerHit === st.tsName
          ? `${this.where(line)}: field "${f.name}" has the name of the timestamp column "${st.tsName}"`
          : `${this.where(line)}: field "${f.name}" clashes with column or tag "${lowerHit}" of super table "${st.name}" (names differing only in case are one column in storage)`
      }
      // duplicates among new names through maps keyed by this point's seq: linear in the line
      const lower = f.name.toLowerCase()
      if (this.newNames.get(lower) === this.seq) {
        return `${this.where(line)}: field "${f.name}" appears twice (names are compared case-insensitively)`
      }
      this.newNames.set(lower, this.seq)
      if (newChild) {
        if (!tagsIndexed) {
          tagsIndexed = true
          for (const [k] of p.tags) {
            this.tagNames.set(k.toLowerCase(), this.seq)
          }
        }
        if (this.tagNames.get(lower) === this.seq) {
          return `${this.where(line)}: "${f.name}" is both a tag and a field`
        }
      }
      if (RESERVED_NAMES.has(f.name.toLowerCase())) {
        return `${this.where(line)}: field name "${f.name}" is reserved (tbname, _tid and _seq cannot be fields)`
      }
      const bad = identifierProblem(f.name, MAX_COLUMN_NAME_BYTES)
      if (bad !== undefined) {
        return `${this.where(line)}: field name ${JSON.stringify(f.name)} ${bad}`
      }
      if (typeof f.value === 'string') {
        const max = maxVarLength(f.type as 'VARCHAR' | 'NCHAR', false)
        if (valueLength(f.type, f.value) > max) {
          return `${this.where(line)}: field "${f.name}" value is longer than the ${f.type} maximum of ${max}`
        }
      }
      newCols++
    }
    // the tags a new child brings count too (a new super table has none yet)
    let tagCount = st.tags.size
    if (newCols > 0 && newChild) {
      for (let i = 0; i < p.tags.length; i++) {
        if (!st.tags.has(p.tags[i][0])) {
          tagCount++
        }
      }
    }
    if (newCols > 0 && 1 + st.cols.size + Math.max(tagCount, 1) + newCols > MAX_COLUMNS) {
      return `${this.where(line)}: super table "${st.name}" would have more than ${MAX_COLUMNS} columns and tags`
    }
    return undefined
  }

  /** A tag set seen first in this request: the existing child, or a new one to create. */
  private openChild(st: StableAcc, p: Point, line: number, tagKey: string): ChildAcc | string {
    if (p.tags.length > MAX_TAGS) {
      // before the name is hashed: no child may have more tags than a super table
      return `${this.where(line)}: ${p.tags.length} tags: a super table has at most ${MAX_TAGS} tags`
    }
    const name = this.childNames.get(st.name, tagKey, p.tags)
    const same = st.byName.get(name)
    if (same !== undefined) {
      return same
    }
    const child: ChildAcc = {
      name,
      tid: undefined,
      tags: undefined,
      rows: [],
      lastTs: undefined,
      unsorted: false,
      points: 0,
      firstLine: line,
      dead: false,
    }
    const info = this.dbInfo ? this.catalog.getTable(this.db, name) : undefined
    if (info !== undefined) {
      if (info.kind !== 'child' || info.stable !== st.name) {
        return `${this.where(line)}: table "${name}" exists and is not a child table of super table "${st.name}"`
      }
      child.tid = info.tid
    } else {
      const err = this.checkTags(st, p, line)
      if (err !== undefined) {
        return err
      }
      const tags: Record<string, TagValue> = {}
      for (const [k, v] of p.tags) {
        tags[k] = v
        const len = valueLength('NCHAR', v)
        let t = st.tags.get(k)
        if (t === undefined) {
          t = newCol(k, 'NCHAR', varCapacity(len, maxVarLength('NCHAR', true)), line, this.seq)
          st.tags.set(k, t)
          st.lower.set(k.toLowerCase(), k)
        } else if (len > t.want) {
          t.want = varCapacity(len, maxVarLength(t.type as 'VARCHAR' | 'NCHAR', true))
        }
      }
      child.tags = tags
      st.dirty = true
      this.needsDdl = true
    }
    st.byName.set(name, child)
    st.children.push(child)
    return child
  }

  private checkTags(st: StableAcc, p: Point, line: number): string | undefined {
    if (p.tags.length > MAX_TAGS) {
      return `${this.where(line)}: ${p.tags.length} tags: a super table has at most ${MAX_TAGS} tags`
    }
    let newTags = 0
    // a fresh seq so the names of this check never meet those of checkFields for the same point
    const mark = -this.seq
    for (let i = 0; i < p.tags.length; i++) {
      const [k, v] = p.tags[i]
      const lower = k.toLowerCase()
      if (this.newNames.get(lower) === mark) {
        return `${this.where(line)}: tag "${k}" appears twice (names are compared case-insensitively)`
      }
      this.newNames.set(lower, mark)
      const t = st.tags.get(k)
      if (t !== undefined) {
        if (t.type !== 'NCHAR' && t.type !== 'VARCHAR') {
          return `${this.where(line)}: tag "${k}" type mismatch: the tag of super table "${st.name}" is ${t.type}, schemaless tags are NCHAR`
        }
      } else {
        if (st.cols.has(k)) {
          return `${this.where(line)}: tag "${k}" has the name of a field of super table "${st.name}"`
        }
        const lowerHit = st.lower.get(k.toLowerCase())
        if (lowerHit !== undefined) {
          return lowerHit === st.tsName
            ? `${this.where(line)}: tag "${k}" has the name of the timestamp column "${st.tsName}"`
            : `${this.where(line)}: tag "${k}" clashes with column or tag "${lowerHit}" of super table "${st.name}" (names differing only in case are one column in storage)`
        }
        if (RESERVED_NAMES.has(k.toLowerCase())) {
          return `${this.where(line)}: tag name "${k}" is reserved (tbname, _tid and _seq cannot be tags)`
        }
        if (k === '' || Buffer.byteLength(k, 'utf8') > MAX_COLUMN_NAME_BYTES) {
          return `${this.where(line)}: tag name "${k}" must be 1 to ${MAX_COLUMN_NAME_BYTES} bytes long`
        }
        const bad = identifierProblem(k, MAX_COLUMN_NAME_BYTES)
        if (bad !== undefined) {
          return `${this.where(line)}: tag name ${JSON.stringify(k)} ${bad}`
        }
        newTags++
      }
      if (v.includes('\u0000')) {
        return `${this.where(line)}: tag "${k}" value contains a NUL character`
      }
      const max = maxVarLength(t === undefined ? 'NCHAR' : (t.type as 'VARCHAR' | 'NCHAR'), true)
      if (!fitsQuickly('NCHAR', v, max) && valueLength(t?.type ?? 'NCHAR', v) > max) {
        return `${this.where(line)}: tag "${k}" value is longer than the maximum of ${max}`
      }
    }
    if (newTags > 0 && st.tags.size + newTags > MAX_TAGS) {
      return `${this.where(line)}: super table "${st.name}" would have more than ${MAX_TAGS} tags`
    }
    return undefined
  }

  private addRow(st: StableAcc, child: ChildAcc, fields: Field[], ts: bigint, line: number): void {
    const row: unknown[] = new Array(st.slots.length + 1)
    row[0] = ts
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i]
      let col = st.cols.get(f.name)
      if (col === undefined) {
        col = newCol(f.name, f.type, 0, line, this.seq)
        if (typeof f.value !== 'string') {
          col.want = FIXED_LENGTH[f.type] ?? 0
        }
        st.cols.set(f.name, col)
        st.lower.set(f.name.toLowerCase(), f.name)
        st.dirty = true
        this.needsDdl = true
      }
      if (col.slot < 0) {
        col.slot = st.slots.length
        st.slots.push(col)
      }
      const v = f.value
      if (typeof v === 'string' && !fitsQuickly(col.type, v, col.want)) {
        const len = valueLength(col.type, v)
        if (len > col.want) {
          col.want = varCapacity(len, maxVarLength(col.type as 'VARCHAR' | 'NCHAR', false))
          st.dirty = true
          this.needsDdl = true
        }
      }
      row[col.slot + 1] = v
    }
    if (child.lastTs !== undefined && ts <= child.lastTs) {
      child.unsorted = true
    }
    child.lastTs = ts
    child.rows.push(row)
    child.points++
    st.points++
    this.accepted++
  }

  // ---- after pass 2 --------------------------------------------------------------------------

  /** Drops a whole super table's lines (its schema change failed). */
  rejectStable(st: StableAcc, message: string): void {
    const live = st.children.filter((c) => !c.dead)
    let n = 0
    for (const c of live) {
      n += c.points
      c.dead = true
    }
    this.accepted -= n
    if (n > 0) {
      this.reject(st.firstLine, `${message} (${n} line(s) of super table "${st.name}" rejected, first at ${this.where(st.firstLine)})`, n)
    }
  }

  rejectChild(st: StableAcc, c: ChildAcc, message: string): void {
    if (c.dead) {
      return
    }
    c.dead = true
    this.accepted -= c.points
    this.reject(c.firstLine, `${message} (${c.points} line(s) of child table "${c.name}" rejected, first at ${this.where(c.firstLine)})`, c.points)
  }

  result(): WriteResult {
    const errors = [...this.errors].sort((a, b) => a.line - b.line).slice(0, MAX_REPORTED_ERRORS)
    return { written: this.accepted, rejected: this.rejected, errors }
  }
}

function lineLabel(n: number): string {
  return `line ${n}`
}

function knownCol(c: ColumnDef): ColState {
  return { name: c.name, type: c.type, want: c.length, known: true, sinceLine: 0, slot: -1, seenPoint: 0 }
}

function newCol(name: string, type: TdType, want: number, line: number, seq: number): ColState {
  return { name, type, want, known: false, sinceLine: line, slot: -1, seenPoint: seq }
}
