/**
 * @module
 * The columnar lane of schemaless writes, for line protocol parsed by the workers: a body whose
 * every line belongs to a child table that exists, with fields that are existing columns of the
 * same numeric, BIGINT or BOOL type, and whose timestamps rise per series, goes from the workers'
 * typed arrays (parsed-slice.ts) into typed columns per super table and on to the engine's
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
 * DuckDB's own append (in process: ~1.15-1.2 us per point through the rows, ~0.55-0.65 us here).
 */
import type { Catalog } from '../../sql/catalog-types.js'
import type { ColumnBatch, DatabaseInfo, Engine, StableInfo, TdType } from '../../storage/types.js'
import { KIND_BOOL, KIND_NUM, TS_NONE, TS_NUMBER, type ReceivedSlice, type SeriesDef, type ShapeDef } from '../lineproto/parsed-slice.js'
import { nowTicks, tickConverter, type RequestPrecision } from './precision.js'
import { WorkSlice } from '../../event-loop.js'
import type { WriteResult } from './schemaless.js'

export interface ColumnarDeps {
  catalog: Catalog
  engine: Engine
  /** the child table name of a series (the row path's cache) */
  childName(stable: string, seriesKey: string, tags: Array<[string, string]>): string
  /** the super table of a measurement (smlDot2Underline) */
  stableName(measurement: string): string
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
  /** the children of this request, in order of their first line */
  children: ChildLane[]
  byTid: Map<number, ChildLane>
  count: number
  /** shape plans per dictionary generation (the worker's shape array) */
  plans: Map<ShapeDef[], Array<ShapePlan | undefined>>
  /** the columns pass 2 fills (set between the passes) */
  batch?: ColumnBatch
}

interface ChildLane {
  stable: StableLane
  tid: number
  count: number
  /** its latest timestamp so far (pass 1) */
  last: bigint
  /** next row of this child in its stable's columns (pass 2) */
  row: number
}

interface ShapePlan {
  /** per field: its value column in the stable's lane */
  columns: Int32Array
  kinds: Uint8Array
}

/**
 * Writes the slices through the columnar lane; undefined (nothing written) when the row path must
 * take the body. `db` is already normalised.
 */
export async function writeColumnar(
  deps: ColumnarDeps,
  db: string,
  slices: ReceivedSlice[],
  precision: RequestPrecision,
  nowMs: number,
): Promise<WriteResult | undefined> {
  const dbInfo = deps.catalog.getDatabase(db)
  const append = deps.engine.appendColumns?.bind(deps.engine)
  // (PostgreSQL has no column append: its writes take the row path)
  if (append === undefined || dbInfo === undefined || slices.some((s) => s.message.errors.length > 0)) {
    return undefined
  }
  const lane = new Lane(deps, db, dbInfo, precision, nowMs)
  // the event loop gets a turn between slices (readiness probes wait for one slice at most)
  const turn = new WorkSlice()
  for (const s of slices) {
    if (!lane.count(s)) {
      return undefined
    }
    await turn.pause()
  }
  const batches = lane.batches()
  for (const s of slices) {
    lane.fill(s)
    await turn.pause()
  }
  if (batches.length === 0) {
    return undefined
  }
  const appended = await append(batches)
  if (appended === undefined) {
    return undefined
  }
  return { written: appended, rejected: 0, errors: [] }
}

class Lane {
  private readonly stables = new Map<string, StableLane>()
  private readonly order: StableLane[] = []
  /** resolved children per dictionary generation (the worker's series array) */
  private readonly seriesOf = new Map<SeriesDef[], Array<ChildLane | undefined>>()
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

  /** Pass 1: resolves and checks every point, counts rows per child and column. */
  count(slice: ReceivedSlice): boolean {
    const m = slice.message
    const children = this.childrenOf(slice.series)
    for (let i = 0; i < m.count; i++) {
      const sid = m.series[i]
      const child = children[sid] ?? this.resolveChild(slice.series, children, sid)
      if (child === undefined) {
        return false
      }
      const plan = this.planOf(child.stable, slice.shapes, m.shapes[i])
      if (plan === undefined) {
        return false
      }
      const ts = this.tsOf(slice, i)
      if (ts === undefined) {
        return false
      }
      if (child.count > 0 && !(ts > child.last)) {
        // a repeated or earlier timestamp: the row path merges and stages it
        return false
      }
      child.last = ts
      child.count++
      const st = child.stable
      st.count++
      for (let f = 0; f < plan.columns.length; f++) {
        st.carried[plan.columns[f]]++
      }
    }
    return true
  }

  /** After pass 1: each super table's (empty) columns, its children in order of their first line. */
  batches(): ColumnBatch[] {
    const batches: ColumnBatch[] = []
    for (const st of this.order) {
      if (st.count === 0) {
        continue
      }
      const k = st.children.length
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
      }
      let row = 0
      st.children.forEach((c, j) => {
        batch.tids[j] = c.tid
        batch.starts[j] = row
        c.row = row
        row += c.count
      })
      batch.starts[k] = row
      st.batch = batch
      batches.push(batch)
    }
    this.lastIn = NaN
    return batches
  }

  /** Pass 2, slice by slice in line order: each point into its child's next row. */
  fill(slice: ReceivedSlice): void {
    const m = slice.message
    const children = this.childrenOf(slice.series)
    let num = 0
    let big = 0
    // a body is mostly of one super table: its plans are looked up again only when it changes
    let st: StableLane | undefined
    let plans: ShapePlan[] = []
    for (let i = 0; i < m.count; i++) {
      const child = children[m.series[i]] as ChildLane
      if (child.stable !== st) {
        st = child.stable
        plans = st.plans.get(slice.shapes) as ShapePlan[]
      }
      const plan = plans[m.shapes[i]]
      const b = st.batch as ColumnBatch
      const r = child.row++
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
          ;(b.values[c] as BigInt64Array)[r] = m.bigs[big++]
        }
        const valid = b.valid[c]
        if (valid !== undefined) {
          valid[r] = 1
        }
      }
    }
  }

  private childrenOf(series: SeriesDef[]): Array<ChildLane | undefined> {
    let children = this.seriesOf.get(series)
    if (children === undefined) {
      children = []
      this.seriesOf.set(series, children)
    }
    return children
  }

  /** The existing child table of a series, or undefined when the row path must create it. */
  private resolveChild(series: SeriesDef[], children: Array<ChildLane | undefined>, sid: number): ChildLane | undefined {
    const def = series[sid]
    const name = this.deps.stableName(def.measurement)
    let st = this.stables.get(name)
    if (st === undefined) {
      const info = this.deps.catalog.getStable(this.db, name)
      if (info === undefined) {
        return undefined
      }
      st = { info, columns: [], types: [], byName: new Map(), carried: [], children: [], byTid: new Map(), count: 0, plans: new Map() }
      this.stables.set(name, st)
      this.order.push(st)
    }
    const table = this.deps.catalog.getTable(this.db, this.deps.childName(name, def.key, def.tags))
    if (table === undefined || table.kind !== 'child' || table.stable !== name) {
      return undefined
    }
    // two series of one child (tag sets that name the same table) share its rows
    let child = st.byTid.get(table.tid)
    if (child === undefined) {
      child = { stable: st, tid: table.tid, count: 0, last: 0n, row: 0 }
      st.children.push(child)
      st.byTid.set(table.tid, child)
    }
    children[sid] = child
    return child
  }

  /** How a field shape maps onto a super table's columns; undefined when the row path must take it. */
  private planOf(st: StableLane, shapes: ShapeDef[], id: number): ShapePlan | undefined {
    let plans = st.plans.get(shapes)
    if (plans === undefined) {
      plans = []
      st.plans.set(shapes, plans)
    }
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

