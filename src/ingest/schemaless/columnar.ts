/**
 * @module
 * The columnar lane of schemaless writes, for line protocol parsed by the workers: a body whose
 * every line belongs to a child table that exists, with fields that are existing columns of the
 * same numeric, BIGINT or BOOL type, and whose timestamps rise per series, goes from the workers'
 * typed arrays (lineproto/slice-encoder.ts) into typed columns per super table and on to the engine's
 * appendColumns, without a point object, a row array or a boxed number per line.
 *
 * The lane only writes what the row path (schemaless.ts) would write for the same body: the same
 * rows, children in order of their first line, a child's rows in line order (the row path appends
 * a child's rows with different field sets apart). Anything else the row path handles (bad lines,
 * new tables, columns or wider strings, string fields, rewrites of stored timestamps, out-of-order
 * or repeated timestamps, a missing database) makes the lane answer undefined before anything is
 * written, and the caller takes the row path. columnar.test.ts compares both on the same bodies.
 *
 * Why: with concurrent writes the main thread is the bottleneck of line-protocol ingest, and
 * turning each parsed point back into a Point, a row and a DuckDB chunk value cost it more than
 * DuckDB's own append (figures: bench/README.md).
 */
import type { Catalog } from '../../sql/catalog/types.js'
import type { DatabaseInfo, StableInfo, TableInfo, TdType } from '../../storage/td-types.js'
import type { ColumnBatch, Engine } from '../../storage/types.js'
import { KIND_BOOL, KIND_NUM, TS_NONE, TS_NUMBER, halvesOf } from '../lineproto/slice-format.js'
import { nowTicks, tickConverter, type RequestPrecision } from './precision.js'
import { WorkSlice } from '../../event-loop.js'
import type { LaneMiss, ReceivedSlice, SeriesDef, ShapeDef, WriteResult } from '../types.js'

export interface ColumnarDeps {
  catalog: Catalog
  engine: Engine
  /** the child table name of a series (the row path's cache) */
  childName(stable: string, seriesKey: string, tags: Array<[string, string]>): string
  /** the super table of a measurement (smlDot2Underline) */
  stableName(measurement: string): string
  /** series resolved in earlier requests, per worker dictionary generation and database (see SeriesTargets) */
  targets: WeakMap<SeriesDef[], Map<string, SeriesTargets>>
}

/** The child table a series of a worker's dictionary resolved to, in one database. */
interface SeriesTarget {
  stable: StableInfo
  table: TableInfo
  /** the catalog version it was last found current at */
  checked: number
}

/**
 * What the series of one worker dictionary resolved to in one database, kept across requests: a
 * worker sends a series once, and resolving 1000 series again for every 5000-line body (names,
 * child-name cache, catalog lookups, one object and map entry each) was the main thread's largest
 * source of garbage under concurrent ingest. A target is used again only while the catalog still
 * holds the very same super table and child table objects (the catalog replaces them on every
 * change), so DDL in between is seen; checking that is skipped while the catalog's version is the
 * one it was last checked at (the lookups showed in profiles).
 */
export class SeriesTargets {
  readonly targets: Array<SeriesTarget | undefined> = []
}

/** Column types the lane writes, with the typed array of their physical type. */
const LANE_TYPES: Partial<Record<TdType, (n: number) => ColumnBatch['values'][number]>> = {
  DOUBLE: (n) => new Float64Array(n),
  BOOL: (n) => new Uint8Array(n),
  BIGINT: (n) => new BigInt64Array(n),
  'BIGINT UNSIGNED': (n) => new BigUint64Array(n),
}

interface StableLane {
  info: StableInfo
  /** value columns this request writes, in order of first use */
  columns: string[]
  types: TdType[]
  byName: Map<string, number>
  /** per value column: how many of the stable's points carry it */
  carried: number[]
  /** how many children of this request it has */
  children: number
  /**
   * its children's indexes by table id: a table is one child (one ordering check, one newest
   * timestamp) whether two series of a dictionary name it (tags in another order) or the body
   * came split between workers as slices of several dictionaries, each with its own series ids
   */
  childOfTid: Map<number, number>
  count: number
  /** its index in the lane's `order` */
  index: number
  /** pass 2 set-up: the next child's index in the batch and its first row */
  nextChild: number
  nextRow: number
  /** shape plans per dictionary generation (the worker's shape array) */
  plans: Map<ShapeDef[], Array<ShapePlan | undefined>>
  /** the columns pass 2 fills (set between the passes) */
  batch?: ColumnBatch
  /** the batch's 64-bit value columns as 32-bit halves (pass 2 copies those values half by half) */
  halves: Array<Int32Array | undefined>
}

interface ShapePlan {
  /** per field: its value column in the stable's lane */
  columns: Int32Array
  kinds: Uint8Array
}

/** Writes the slices through the columnar lane, or says why the row path must take the body. `db` is already normalised. */
export async function writeColumnar(
  deps: ColumnarDeps,
  db: string,
  slices: ReceivedSlice[],
  precision: RequestPrecision,
  nowMs: number,
): Promise<WriteResult | LaneMiss> {
  const dbInfo = deps.catalog.getDatabase(db)
  const append = deps.engine.appendColumns?.bind(deps.engine)
  // (PostgreSQL has no column append: its writes take the row path)
  if (append === undefined || slices.some((s) => s.message.errors.length > 0)) {
    return 'body'
  }
  if (dbInfo === undefined) {
    return 'tables'
  }
  const lane = new Lane(deps, db, dbInfo, precision, nowMs)
  // the event loop gets a turn between slices (readiness probes wait for one slice at most)
  const turn = new WorkSlice()
  for (const s of slices) {
    const missed = lane.count(s)
    if (missed !== undefined) {
      return missed
    }
    await turn.pause()
  }
  const batches = lane.batches()
  for (const s of slices) {
    lane.fill(s)
    await turn.pause()
  }
  if (batches.length === 0) {
    return 'body'
  }
  const appended = await append(batches)
  if (appended === undefined) {
    return 'body'
  }
  return { written: appended, rejected: 0, errors: [] }
}

class Lane {
  private readonly stables = new Map<string, StableLane>()
  private readonly order: StableLane[] = []
  /** per dictionary generation (the worker's series array): each series' child index + 1, 0 while unknown */
  private readonly slotsOf = new Map<SeriesDef[], Int32Array>()
  // the children of this request, in order of their first line, column-wise: no object or map
  // entry per child, and arrays sized once per request (one per series, at most) instead of grown
  private childTid: Int32Array = new Int32Array(0)
  private childCount: Int32Array = new Int32Array(0)
  /** next row of each child in its stable's columns (pass 2) */
  private childRow: Int32Array = new Int32Array(0)
  /** each child's first and latest timestamp so far (pass 1) */
  private childFirst: bigint[] = []
  private childLast: bigint[] = []
  /** each child's super table, as its index in `order` */
  private childStable: Int32Array = new Int32Array(0)
  private children = 0
  private readonly toDb: (ts: bigint) => bigint | undefined
  private readonly now: bigint
  // time-major bodies repeat a timestamp for many series: one conversion serves them
  private lastIn = NaN
  private lastOut = 0n

  constructor(
    private readonly deps: ColumnarDeps,
    private readonly db: string,
    dbInfo: DatabaseInfo,
    precision: RequestPrecision,
    nowMs: number,
  ) {
    this.toDb = tickConverter(precision, dbInfo.precision)
    this.now = nowTicks(dbInfo.precision, nowMs)
  }

  /** Pass 1: resolves and checks every point, counts rows per child and column; or why the row path must take the body. */
  count(slice: ReceivedSlice): LaneMiss | undefined {
    const m = slice.message
    const slots = this.slotsFor(slice.series)
    const known = this.knownTargets(slice.series)
    // a body is mostly of one super table: its plans are looked up again only when it changes
    let plansOf: StableLane | undefined
    let plans: Array<ShapePlan | undefined> = []
    for (let i = 0; i < m.count; i++) {
      const sid = m.series[i]
      let child = slots[sid] - 1
      if (child < 0) {
        const resolved = this.resolveChild(slice.series, known, slots, sid)
        if (typeof resolved === 'string') {
          return resolved
        }
        child = resolved
      }
      const st = this.order[this.childStable[child]]
      if (st !== plansOf) {
        plansOf = st
        plans = this.plansFor(st, slice.shapes)
      }
      const plan = plans[m.shapes[i]] ?? this.planOf(st, slice.shapes, m.shapes[i])
      if (plan === undefined) {
        return 'body'
      }
      const ts = this.tsOf(slice, i)
      if (ts === undefined) {
        return 'body'
      }
      if (this.childCount[child] > 0 && !(ts > this.childLast[child])) {
        // a repeated or earlier timestamp: the row path merges and stages it
        return 'body'
      }
      if (this.childCount[child] === 0) {
        this.childFirst[child] = ts
      }
      this.childLast[child] = ts
      this.childCount[child]++
      st.count++
      for (let f = 0; f < plan.columns.length; f++) {
        st.carried[plan.columns[f]]++
      }
    }
    return undefined
  }

  /** After pass 1: each super table's (empty) columns, its children in order of their first line. */
  batches(): ColumnBatch[] {
    const batches: ColumnBatch[] = []
    for (const st of this.order) {
      if (st.count === 0) {
        continue
      }
      const k = st.children
      const batch: ColumnBatch = {
        db: this.db,
        table: st.info.name,
        columns: [st.info.columns[0].name, ...st.columns],
        count: st.count,
        tids: new Int32Array(k),
        starts: new Int32Array(k + 1),
        ts: new BigInt64Array(st.count),
        values: st.types.map((t) => (LANE_TYPES[t] as (n: number) => ColumnBatch['values'][number])(st.count)),
        valid: st.carried.map((c) => (c === st.count ? undefined : new Uint8Array(st.count))),
        first: new Array<bigint>(k).fill(0n),
        last: new Array<bigint>(k).fill(0n),
      }
      batch.starts[k] = st.count
      st.batch = batch
      st.halves = batch.values.map((v) => (v instanceof BigInt64Array || v instanceof BigUint64Array ? halvesOf(v) : undefined))
      st.nextChild = 0
      st.nextRow = 0
      batches.push(batch)
    }
    // each stable's children in order of their first line, each taking its rows in turn
    for (let c = 0; c < this.children; c++) {
      const st = this.order[this.childStable[c]]
      const b = st.batch as ColumnBatch
      const j = st.nextChild++
      b.tids[j] = this.childTid[c]
      b.first[j] = this.childFirst[c]
      b.last[j] = this.childLast[c]
      b.starts[j] = st.nextRow
      this.childRow[c] = st.nextRow
      st.nextRow += this.childCount[c]
    }
    this.lastIn = NaN
    return batches
  }

  /** Pass 2, slice by slice in line order: each point into its child's next row. */
  fill(slice: ReceivedSlice): void {
    const m = slice.message
    const slots = this.slotsFor(slice.series)
    // 64-bit values are copied as two 32-bit halves: reading one as a bigint would make an object
    const bigHalves = halvesOf(m.bigs)
    let num = 0
    let big = 0
    // a body is mostly of one super table: its plans are looked up again only when it changes
    let st: StableLane | undefined
    let plans: ShapePlan[] = []
    for (let i = 0; i < m.count; i++) {
      const child = slots[m.series[i]] - 1
      if (this.order[this.childStable[child]] !== st) {
        st = this.order[this.childStable[child]]
        plans = this.plansFor(st, slice.shapes) as ShapePlan[]
      }
      const plan = plans[m.shapes[i]]
      const b = st.batch as ColumnBatch
      const r = this.childRow[child]++
      b.ts[r] = this.tsOf(slice, i) as bigint
      const { columns, kinds } = plan
      for (let f = 0; f < columns.length; f++) {
        const c = columns[f]
        const kind = kinds[f]
        if (kind === KIND_NUM) {
          ;(b.values[c] as Float64Array)[r] = m.nums[num++]
        } else if (kind === KIND_BOOL) {
          ;(b.values[c] as Uint8Array)[r] = m.nums[num++] !== 0 ? 1 : 0
        } else {
          // the bits as they are (a BIGINT UNSIGNED column's too)
          const halves = st.halves[c] as Int32Array
          halves[2 * r] = bigHalves[2 * big]
          halves[2 * r + 1] = bigHalves[2 * big + 1]
          big++
        }
        const valid = b.valid[c]
        if (valid !== undefined) {
          valid[r] = 1
        }
      }
    }
  }

  private slotsFor(series: SeriesDef[]): Int32Array {
    let slots = this.slotsOf.get(series)
    if (slots === undefined || slots.length < series.length) {
      // the worker's dictionary grows between slices: keep what this request knows
      const grown = new Int32Array(series.length)
      if (slots !== undefined) {
        grown.set(slots)
      }
      slots = grown
      this.slotsOf.set(series, slots)
      this.reserveChildren(series.length)
    }
    return slots
  }

  /** Room for `more` children beyond those of the dictionaries seen so far (each series is one at most). */
  private reserveChildren(more: number): void {
    const need = this.children + more
    if (need <= this.childTid.length) {
      return
    }
    const cap = Math.max(need, 64)
    const widen = (a: Int32Array): Int32Array => {
      const b = new Int32Array(cap)
      b.set(a.subarray(0, this.children))
      return b
    }
    this.childTid = widen(this.childTid)
    this.childCount = widen(this.childCount)
    this.childRow = widen(this.childRow)
    this.childStable = widen(this.childStable)
    this.childFirst = widenArray(this.childFirst, cap)
    this.childLast = widenArray(this.childLast, cap)
  }

  /** The child index of a series (its slot set), or why the row path must take the body. */
  private resolveChild(series: SeriesDef[], known: SeriesTargets, slots: Int32Array, sid: number): number | LaneMiss {
    const target = this.targetOf(series, known, sid)
    if (typeof target === 'string') {
      return target
    }
    const child = this.childOf(target)
    slots[sid] = child + 1
    return child
  }

  /** The table's child in this request, added on its first line. */
  private childOf(target: SeriesTarget): number {
    const name = target.stable.name
    let st = this.stables.get(name)
    if (st === undefined) {
      st = { index: this.order.length, info: target.stable, columns: [], types: [], byName: new Map(), carried: [], children: 0, childOfTid: new Map(), count: 0, nextChild: 0, nextRow: 0, plans: new Map(), halves: [] }
      this.stables.set(name, st)
      this.order.push(st)
    }
    const tid = target.table.tid
    const known = st.childOfTid.get(tid)
    if (known !== undefined) {
      return known
    }
    const child = this.children++
    this.childTid[child] = tid
    st.childOfTid.set(tid, child)
    this.childStable[child] = st.index
    st.children++
    return child
  }

  /** The series' existing child table, from earlier requests while the catalog is unchanged; else why the row path takes it. */
  private targetOf(series: SeriesDef[], known: SeriesTargets, sid: number): SeriesTarget | LaneMiss {
    const { catalog } = this.deps
    const kept = known.targets[sid]
    const version = catalog.version
    if (kept !== undefined && kept.checked === version) {
      return kept
    }
    if (kept !== undefined && catalog.getStable(this.db, kept.stable.name) === kept.stable && catalog.getTable(this.db, kept.table.name) === kept.table) {
      kept.checked = version
      return kept
    }
    if (kept !== undefined) {
      // the catalog changed: what this dictionary resolved before may all be stale
      known.targets.length = 0
    }
    const def = series[sid]
    const stable = catalog.getStable(this.db, this.deps.stableName(def.measurement))
    if (stable === undefined) {
      return 'tables'
    }
    const table = catalog.getTable(this.db, this.deps.childName(stable.name, def.key, def.tags))
    if (table === undefined) {
      return 'tables'
    }
    if (table.kind !== 'child' || table.stable !== stable.name) {
      return 'body'
    }
    const target: SeriesTarget = { stable, table, checked: version }
    known.targets[sid] = target
    return target
  }

  /** What the series of a dictionary resolved to in this database (looked up once a slice). */
  private knownTargets(series: SeriesDef[]): SeriesTargets {
    const all = this.deps.targets
    let byDb = all.get(series)
    if (byDb === undefined) {
      byDb = new Map()
      all.set(series, byDb)
    }
    let known = byDb.get(this.db)
    if (known === undefined) {
      known = new SeriesTargets()
      byDb.set(this.db, known)
    }
    return known
  }

  /** A super table's shape plans for one dictionary generation's shapes. */
  private plansFor(st: StableLane, shapes: ShapeDef[]): Array<ShapePlan | undefined> {
    let plans = st.plans.get(shapes)
    if (plans === undefined) {
      plans = []
      st.plans.set(shapes, plans)
    }
    return plans
  }

  /** How a field shape maps onto a super table's columns; undefined when the row path must take it. */
  private planOf(st: StableLane, shapes: ShapeDef[], id: number): ShapePlan | undefined {
    const plans = this.plansFor(st, shapes)
    const known = plans[id]
    if (known !== undefined) {
      return known
    }
    const shape = shapes[id]
    const fields = shape.slots
    if (fields.length === 0) {
      return undefined
    }
    const columns = new Int32Array(fields.length)
    for (let f = 0; f < fields.length; f++) {
      const { name, type } = fields[f]
      const col = st.info.columns.find((c, i) => i > 0 && c.name === name)
      // a new column, another type, a string (width checks), or a name twice: the row path
      if (col === undefined || col.type !== type || LANE_TYPES[type] === undefined || fields.findIndex((x) => x.name === name) !== f) {
        return undefined
      }
      let c = st.byName.get(name)
      if (c === undefined) {
        c = st.columns.length
        st.columns.push(name)
        st.types.push(type)
        st.carried.push(0)
        st.byName.set(name, c)
      }
      columns[f] = c
    }
    const plan = { columns, kinds: shape.kinds }
    plans[id] = plan
    return plan
  }

  private tsOf(slice: ReceivedSlice, i: number): bigint | undefined {
    const m = slice.message
    const kind = m.tsKind[i]
    if (kind === TS_NONE) {
      return this.now
    }
    if (kind === TS_NUMBER) {
      const t = m.tsNum[i]
      if (t === this.lastIn) {
        return this.lastOut
      }
      const v = this.toDb(BigInt(t))
      if (v !== undefined) {
        this.lastIn = t
        this.lastOut = v
      }
      return v
    }
    return this.toDb(m.tsBig[i])
  }
}

/** The items of `a` in an array of `cap` bigints (allocated once, not grown). */
function widenArray(a: bigint[], cap: number): bigint[] {
  const b = new Array<bigint>(cap).fill(0n)
  for (let i = 0; i < a.length; i++) {
    b[i] = a[i]
  }
  return b
}
