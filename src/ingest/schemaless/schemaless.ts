/**
 * The schemaless core: parsed points (src/ingest/point.ts) in, rows out, for every ingestion path
 * (line protocol, OpenTSDB telnet/JSON, and later Prometheus and the receivers).
 *
 * Rules (adapter-behaviour 11, sql-dialect 9):
 *  - measurement -> super table (dots become `_`, smlDot2Underline); data columns `_ts` TIMESTAMP then the fields;
 *    tags are NCHAR; a measurement without tags gets the single tag `_tag_null` NCHAR(1);
 *  - tag set -> child table `t_<md5>` (naming.ts), created with the request's ttl (first wins);
 *  - new fields/tags add columns, longer strings widen them (power-of-two sizing, sizing.ts);
 *  - a field whose type differs from its column rejects that line only, naming line, field and
 *    both types; the other lines are written;
 *  - timestamps: request precision -> database precision, exactly; none -> the request's "now";
 *  - the same child and timestamp twice in one request: fields merge, later lines win (the same
 *    result as writing the lines one after another);
 *  - all rows of a request go to ONE `engine.writeRows` call (one transaction); `write` resolves
 *    only after it committed, so callers acknowledge committed data only.
 *
 * How a request runs:
 *  1. a synchronous pass over the points against the cached catalog. Known schema -> no awaits at
 *     all; what is missing (database, super tables, columns, widths, child tables) is collected;
 *  2. only when something is missing: under a per-database lock the schema changes are applied,
 *     re-checked against the catalog as it is now (another request may have changed it). If
 *     another request made a column with another type meanwhile, pass 1 runs again under the lock
 *     (the point source is re-run; parsing is deterministic) so the lines get the right verdicts;
 *  3. one writeRows.
 */
import type { Catalog } from '../../sql/catalog-types.js'
import { TD, TdError, dbNotExist } from '../../td-error.js'
import { FIXED_LENGTH } from '../../sql/types.js'
import type { Storage } from '../../storage/index.js'
import type { RowBatch } from '../../storage/types.js'
import type { ColumnDef, DatabaseInfo, Precision, StableInfo, TagValue, TdType } from '../../storage/td-types.js'
import { TAG_NULL_NAME, childTableName } from '../naming.js'
import { seriesKeyOf, type Field, type Point } from '../point.js'
import { ownedString } from '../../owned-string.js'
import { nowTicks, tickConverter, type RequestPrecision } from './precision.js'
import { fitsQuickly, maxVarLength, valueLength, varCapacity } from './sizing.js'
import { writeColumnar, type ColumnarDeps, type LaneMiss } from './columnar.js'
import type { ReceivedSlice } from '../lineproto/parsed-slice.js'

/** One rejected line (or JSON item, numbered from 1). */
export interface Rejection {
  line: number
  message: string
}

/**
 * Produces the points of one request. It may be called more than once per request (see step 2
 * above), so it must be deterministic, e.g. re-parse the same body. The point passed to `onPoint`
 * may be reused after the callback returns (the parsers' reuse contract). `onError` receives parse
 * errors (an `IngestParseError` fits).
 */
export type PointSource = (
  onPoint: (p: Point, line: number) => void,
  onError: (e: Rejection) => void,
) => void | Promise<void>

export interface WriteOptions {
  /** precision of the points' timestamps */
  precision: RequestPrecision
  /** days to live of child tables this request creates; used when > 0 */
  ttl?: number
  /** how messages name a point by its number (default `line <n>`; OpenTSDB JSON says `item <i>`) */
  where?: (n: number) => string
}

export interface WriteResult {
  /** points written (accepted lines) */
  written: number
  /** lines rejected: parse errors plus schema errors (type conflicts ...) */
  rejected: number
  /** the rejections in line order, at most MAX_REPORTED_ERRORS of them */
  errors: Rejection[]
}

export interface SchemalessOptions {
  /** smlAutoCreateDB: create a missing database (precision ns) instead of failing */
  autoCreateDb: boolean
}

export interface Schemaless {
  /**
   * Writes the points into database `db` (created when missing and autoCreateDb). Throws TdError
   * 904 ("Database not exist") when the database is missing and may not be created, TdError for
   * an unusable database name, and the storage's own errors (transient trouble) as they come.
   */
  write(db: string, source: PointSource | Iterable<Point>, opts: WriteOptions): Promise<WriteResult>
  /**
   * The columnar lane (columnar.ts) for worker-parsed line protocol: the same result as `write`
   * would give, or, with nothing written, why the body must take `write` instead.
   */
  writeColumnar(db: string, slices: ReceivedSlice[], opts: WriteOptions): Promise<WriteResult | LaneMiss>
  /** whether `writeColumnar` can write at all: the storage engine appends columns (PostgreSQL's does not) */
  readonly columnar: boolean
}

export const MAX_REPORTED_ERRORS = 100
/** TDengine limits (sql-dialect 1.3): table name 192 bytes, column/tag name 64, 128 tags, 4096 columns incl. tags */
const MAX_TABLE_NAME_BYTES = 192
const MAX_COLUMN_NAME_BYTES = 64
const MAX_TAGS = 128
const MAX_COLUMNS = 4096
const MAX_DB_NAME_BYTES = 64
const TS_COLUMN = '_ts'
/** names with control characters cannot be spelled in SQL (and TDengine refuses them) */
// eslint-disable-next-line no-control-regex
const CONTROL_CHAR = /[\u0000-\u001f\u007f]/
/**
 * Names no field or tag may take (compared lower-cased): `tbname` is the child-name pseudo
 * column (and a column of the tag table), `_tid` keys data and tag tables, `_seq` orders the
 * staging table. Storage would refuse them as duplicates, which surfaced as a 503 (retried
 * forever by agents) instead of a bad line.
 */
const RESERVED_NAMES = new Set(['tbname', '_tid', '_seq'])
/** rerunning pass 1 more often than this means the schema keeps changing under us: give up (transient) */
const MAX_SCHEMA_ATTEMPTS = 3
/** bound of the process-wide (stable, tag set) -> child name cache */
const CHILD_NAME_CACHE_MAX = 200_000

/** A column (or tag) as this request sees it: the catalog's state plus what the request needs. */
interface ColState {
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

interface StableAcc {
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
class RequestState {
  readonly stables = new Map<string, StableAcc>()
  /** measurement as sent -> stable acc (several spellings may map to one name) */
  readonly byMeasurement = new Map<string, StableAcc>()
  readonly errors: Rejection[] = []
  rejected = 0
  accepted = 0
  needsDdl = false
  /** points consumed so far (identifies the point being validated) */
  private seq = 0
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
    if (CONTROL_CHAR.test(name)) {
      st.error = `${this.where(line)}: measurement ${JSON.stringify(name)} contains a control character`
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
    let newCols = 0
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
      for (let j = 0; j < i; j++) {
        if (fields[j].name.toLowerCase() === f.name.toLowerCase()) {
          return `${this.where(line)}: field "${f.name}" appears twice (names are compared case-insensitively)`
        }
      }
      if (newChild) {
        for (const [k] of p.tags) {
          if (k.toLowerCase() === f.name.toLowerCase()) {
            return `${this.where(line)}: "${f.name}" is both a tag and a field`
          }
        }
      }
      if (RESERVED_NAMES.has(f.name.toLowerCase())) {
        return `${this.where(line)}: field name "${f.name}" is reserved (tbname, _tid and _seq cannot be fields)`
      }
      if (CONTROL_CHAR.test(f.name)) {
        return `${this.where(line)}: field name ${JSON.stringify(f.name)} contains a control character`
      }
      if (Buffer.byteLength(f.name, 'utf8') > MAX_COLUMN_NAME_BYTES) {
        return `${this.where(line)}: field name "${f.name}" is longer than ${MAX_COLUMN_NAME_BYTES} bytes`
      }
      if (typeof f.value === 'string') {
        const max = maxVarLength(f.type as 'VARCHAR' | 'NCHAR', false)
        if (valueLength(f.type, f.value) > max) {
          return `${this.where(line)}: field "${f.name}" value is longer than the ${f.type} maximum of ${max}`
        }
      }
      newCols++
    }
    if (newCols > 0 && 1 + st.cols.size + Math.max(st.tags.size, 1) + newCols > MAX_COLUMNS) {
      return `${this.where(line)}: super table "${st.name}" would have more than ${MAX_COLUMNS} columns and tags`
    }
    return undefined
  }

  /** A tag set seen first in this request: the existing child, or a new one to create. */
  private openChild(st: StableAcc, p: Point, line: number, tagKey: string): ChildAcc | string {
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
    let newTags = 0
    for (let i = 0; i < p.tags.length; i++) {
      const [k, v] = p.tags[i]
      for (let j = 0; j < i; j++) {
        if (p.tags[j][0].toLowerCase() === k.toLowerCase()) {
          return `${this.where(line)}: tag "${k}" appears twice (names are compared case-insensitively)`
        }
      }
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
        if (CONTROL_CHAR.test(k)) {
          return `${this.where(line)}: tag name ${JSON.stringify(k)} contains a control character`
        }
        if (k === '' || Buffer.byteLength(k, 'utf8') > MAX_COLUMN_NAME_BYTES) {
          return `${this.where(line)}: tag name "${k}" must be 1 to ${MAX_COLUMN_NAME_BYTES} bytes long`
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

  batches(): RowBatch[] {
    const out: RowBatch[] = []
    for (const st of this.stables.values()) {
      if (st.error !== undefined || st.children.length === 0) {
        continue
      }
      const width = st.slots.length + 1
      const allColumns = [st.tsName, ...st.slots.map((c) => c.name)]
      for (const child of st.children) {
        if (child.dead || child.rows.length === 0 || child.tid === undefined) {
          continue
        }
        const rows = child.unsorted ? mergeSameTs(child.rows) : child.rows
        let complete = true
        for (const r of rows) {
          if (r.length !== width || hasHole(r)) {
            complete = false
            break
          }
        }
        if (complete) {
          out.push({ db: this.db, table: st.name, tid: child.tid, columns: allColumns, rows })
          continue
        }
        // rows with different field sets: one batch per set, so absent fields keep their stored
        // values on overwrite instead of becoming NULL
        const bySig = new Map<string, { idx: number[]; rows: unknown[][] }>()
        for (const r of rows) {
          const idx: number[] = [0]
          for (let j = 1; j < r.length; j++) {
            if (r[j] !== undefined) {
              idx.push(j)
            }
          }
          const sig = idx.join(',')
          let g = bySig.get(sig)
          if (g === undefined) {
            g = { idx, rows: [] }
            bySig.set(sig, g)
          }
          g.rows.push(idx.map((j) => r[j]))
        }
        for (const g of bySig.values()) {
          out.push({ db: this.db, table: st.name, tid: child.tid, columns: g.idx.map((j) => allColumns[j]), rows: g.rows })
        }
      }
    }
    return out
  }

  result(): WriteResult {
    const errors = [...this.errors].sort((a, b) => a.line - b.line).slice(0, MAX_REPORTED_ERRORS)
    return { written: this.accepted, rejected: this.rejected, errors }
  }
}

/** smlDot2Underline (TDengine 3.x default): dots in a measurement become `_` (`meters.current` -> `meters_current`). */
export function stableNameOf(measurement: string): string {
  return measurement.includes('.') ? measurement.replaceAll('.', '_') : measurement
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

function hasHole(r: unknown[]): boolean {
  for (let j = 1; j < r.length; j++) {
    if (r[j] === undefined) {
      return true
    }
  }
  return false
}

/** Rows of one child with repeated timestamps: merged per timestamp, later rows' fields win. */
function mergeSameTs(rows: unknown[][]): unknown[][] {
  const byTs = new Map<bigint, unknown[]>()
  for (const r of rows) {
    const ts = r[0] as bigint
    const prev = byTs.get(ts)
    if (prev === undefined) {
      byTs.set(ts, r.slice())
      continue
    }
    for (let j = 1; j < r.length; j++) {
      if (r[j] !== undefined) {
        prev[j] = r[j]
      }
    }
  }
  return [...byTs.values()]
}

/** Database names as taosAdapter uses them: unquoted in `use <db>`, so case-folded identifiers. */
export function normaliseDbName(raw: string): string {
  const db = raw.toLowerCase()
  if (!/^[a-z_][a-z0-9_]*$/.test(db) || db.length > MAX_DB_NAME_BYTES) {
    throw new TdError(
      TD.MND_INVALID_DB,
      `Invalid database name "${raw}": letters, digits and _ only, not starting with a digit, at most ${MAX_DB_NAME_BYTES} characters`,
    )
  }
  return db
}

/** A point source over a list of points (line numbers are positions from 1). */
export function pointsSource(points: Iterable<Point>): PointSource {
  // a one-shot iterator cannot be re-run: keep the points
  const list = Array.isArray(points) ? (points as Point[]) : [...points]
  return (onPoint) => {
    for (let i = 0; i < list.length; i++) {
      onPoint(list[i], i + 1)
    }
  }
}

/**
 * (super table, tag set) -> child table name, process-wide: the MD5 of a tag set is computed
 * once. Two levels, so a lookup hashes the tag-set key as it is (a series key decoded once keeps
 * its hash) instead of a new concatenation per point.
 */
class ChildNameCache {
  private readonly byStable = new Map<string, Map<string, string>>()
  private size = 0

  get(stable: string, tagKey: string, tags: Array<[string, string]>): string {
    let names = this.byStable.get(stable)
    if (names === undefined) {
      names = new Map()
      // the cache outlives the request the name was parsed from (ownedString)
      this.byStable.set(ownedString(stable), names)
    }
    let name = names.get(tagKey)
    if (name === undefined) {
      name = childTableName(stable, tags)
      if (this.size >= CHILD_NAME_CACHE_MAX) {
        this.byStable.clear()
        this.size = 0
        names = new Map()
        this.byStable.set(ownedString(stable), names)
      }
      names.set(tagKey, name)
      this.size++
    }
    return name
  }
}

/** A tiny FIFO mutex per key. */
class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>()

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve()
    let release!: () => void
    const mine = new Promise<void>((r) => {
      release = r
    })
    const tail = prev.then(() => mine)
    this.tails.set(key, tail)
    await prev
    try {
      return await fn()
    } finally {
      release()
      if (this.tails.get(key) === tail) {
        this.tails.delete(key)
      }
    }
  }
}

class SchemaChanged extends Error {}

export function createSchemaless(storage: Storage, opts: SchemalessOptions): Schemaless {
  const { catalog, engine } = storage
  const childNames = new ChildNameCache()
  const schemaLock = new KeyedMutex()
  const columnarDeps: ColumnarDeps = {
    catalog,
    engine,
    childName: (stable, key, tags) => childNames.get(stable, key, tags),
    stableName: stableNameOf,
    targets: new WeakMap(),
  }

  async function pass1(db: string, source: PointSource, o: WriteOptions, nowMs: number): Promise<RequestState> {
    const state = new RequestState(db, catalog.getDatabase(db), catalog, childNames, o.precision, nowMs, o.where)
    await source(
      (p, line) => {
        state.consume(p, line)
      },
      (e) => {
        state.reject(e.line, e.message)
      },
    )
    return state
  }

  /** Applies the schema changes pass 1 collected; throws SchemaChanged when pass 1 must run again. */
  async function applySchema(state: RequestState, ttl: number): Promise<void> {
    const db = state.db
    if (catalog.getDatabase(db) === undefined) {
      if (state.dbInfo !== undefined) {
        throw new SchemaChanged()
      }
      if (!opts.autoCreateDb) {
        throw dbNotExist(db)
      }
      await catalog.createDatabase(db, { precision: 'ns' }, true)
      if (catalog.getDatabase(db)?.precision !== 'ns') {
        // another request created it with another precision: convert against that one
        throw new SchemaChanged()
      }
    } else if (state.dbInfo === undefined) {
      throw new SchemaChanged()
    }
    for (const st of state.stables.values()) {
      if (!st.dirty || st.error !== undefined || st.children.length === 0) {
        continue
      }
      try {
        await ensureStable(db, st)
      } catch (err) {
        if (err instanceof TdError) {
          state.rejectStable(st, `super table "${st.name}": ${err.message}`)
          continue
        }
        throw err
      }
      const missing = st.children.filter((c) => c.tid === undefined && !c.dead)
      if (missing.length > 1 && catalog.createChildTables !== undefined) {
        // one catalog transaction for all of them (~5 ms per child one by one); all or none, so
        // on a TdError the loop below retries one by one to reject only the offending children
        try {
          const infos = await catalog.createChildTables(
            db,
            missing.map((c) => ({ name: c.name, stable: st.name, tags: c.tags ?? {}, ttl: ttl > 0 ? ttl : 0 })),
            true,
          )
          infos.forEach((info, i) => {
            const child = missing[i]
            if (info.stable !== st.name || info.kind !== 'child') {
              state.rejectChild(st, child, `table "${child.name}" exists and is not a child table of super table "${st.name}"`)
              return
            }
            child.tid = info.tid
          })
        } catch (err) {
          if (!(err instanceof TdError)) {
            throw err
          }
        }
      }
      for (const child of st.children) {
        if (child.tid !== undefined || child.dead) {
          continue
        }
        try {
          const info = await catalog.createChildTable(db, child.name, st.name, child.tags ?? {}, true, ttl > 0 ? ttl : 0)
          if (info.stable !== st.name || info.kind !== 'child') {
            state.rejectChild(st, child, `table "${child.name}" exists and is not a child table of super table "${st.name}"`)
            continue
          }
          child.tid = info.tid
        } catch (err) {
          if (err instanceof TdError) {
            state.rejectChild(st, child, `child table "${child.name}": ${err.message}`)
            continue
          }
          throw err
        }
      }
    }
  }

  async function ensureStable(db: string, st: StableAcc): Promise<void> {
    let cur = catalog.getStable(db, st.name)
    if (cur === undefined) {
      if (st.existing !== undefined) {
        throw new SchemaChanged()
      }
      const columns: ColumnDef[] = [{ name: TS_COLUMN, type: 'TIMESTAMP', length: 8 }]
      for (const c of st.cols.values()) {
        columns.push({ name: c.name, type: c.type, length: c.want })
      }
      const tags: ColumnDef[] = []
      for (const t of st.tags.values()) {
        tags.push({ name: t.name, type: t.type, length: t.want })
      }
      if (tags.length === 0) {
        tags.push({ name: TAG_NULL_NAME, type: 'NCHAR', length: 1 })
      }
      await catalog.createStable(db, st.name, columns, tags, true)
      cur = catalog.getStable(db, st.name)
      if (cur === undefined) {
        throw new SchemaChanged()
      }
    }
    if (cur.columns[0].name !== st.tsName) {
      throw new SchemaChanged()
    }
    await ensureColumns(db, st.name, cur.columns, st.cols, false)
    cur = catalog.getStable(db, st.name) ?? cur
    await ensureColumns(db, st.name, cur.tags, st.tags, true)
  }

  async function ensureColumns(
    db: string,
    stable: string,
    have: ColumnDef[],
    want: Map<string, ColState>,
    isTag: boolean,
  ): Promise<void> {
    const byName = new Map(have.map((c) => [c.name, c]))
    for (const c of want.values()) {
      const cur = byName.get(c.name)
      if (cur === undefined) {
        if (c.known) {
          // dropped meanwhile
          throw new SchemaChanged()
        }
        await catalog.addStableColumn(db, stable, { name: c.name, type: c.type, length: c.want }, isTag)
        continue
      }
      if (cur.type !== c.type) {
        throw new SchemaChanged()
      }
      if ((cur.type === 'VARCHAR' || cur.type === 'NCHAR') && cur.length < c.want) {
        await catalog.widenColumn(db, stable, c.name, c.want)
      }
    }
  }

  return {
    async write(rawDb, input, o) {
      const db = normaliseDbName(rawDb)
      if (!opts.autoCreateDb && catalog.getDatabase(db) === undefined) {
        // answer before parsing a body that cannot be written anyway
        throw dbNotExist(db)
      }
      const source = typeof input === 'function' ? input : pointsSource(input)
      const nowMs = Date.now()
      let state = await pass1(db, source, o, nowMs)
      if (state.needsDdl && state.accepted > 0) {
        state = await schemaLock.run(db, async () => {
          let s = state
          for (let attempt = 1; ; attempt++) {
            try {
              await applySchema(s, o.ttl ?? 0)
              return s
            } catch (err) {
              if (!(err instanceof SchemaChanged) || attempt >= MAX_SCHEMA_ATTEMPTS) {
                if (err instanceof SchemaChanged) {
                  throw new Error(`the schema of database "${db}" kept changing during the write; retry`, { cause: err })
                }
                throw err
              }
              // the catalog moved under pass 1 (another request or SQL DDL): judge the lines again
              s = await pass1(db, source, o, nowMs)
            }
          }
        })
      }
      const batches = state.batches()
      if (batches.length > 0) {
        await engine.writeRows(batches)
      }
      return state.result()
    },

    async writeColumnar(rawDb, slices, o) {
      return writeColumnar(columnarDeps, normaliseDbName(rawDb), slices, o.precision, Date.now())
    },

    columnar: engine.appendColumns !== undefined,
  }
}
