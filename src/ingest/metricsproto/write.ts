/**
 * @module
 * Remote write into `metrics`: the series of a scanned WriteRequest (write-scan.ts) resolved to
 * their child tables, new ones created in one catalog call, and every sample of the request
 * written in ONE engine call: as typed columns through `Engine.appendColumns` (the line-protocol
 * lane's path), or as rows through `Engine.writeRows` when the engine has no column append or a
 * series' samples are not all newer than what it stores (resent, older or out of order samples:
 * the rows path stages and overwrites, last write wins). Both write the same rows.
 *
 * A series is known by the raw bytes of its labels: a series seen before costs one map lookup,
 * no label decoding, sorting or MD5. Entries are used while the catalog still holds the very same
 * super table and child table objects (it replaces them on any change), checked again only when
 * the catalog's version moved. Figures: bench/README.md (remote write).
 */
import type { Catalog, ChildTableSpec } from '../../sql/catalog/types.js'
import type { Precision, StableInfo } from '../../storage/td-types.js'
import type { ColumnBatch, Engine, RowBatch } from '../../storage/types.js'
import { LABELS_TAG, MAX_LABELS_JSON_BYTES, METRICS_STABLE, labelsObject, seriesKey, sortLabels } from './series.js'
import type { SeriesCache, SeriesTarget, Slot } from './series-cache.js'
import { labelsOf, type ScannedWrite } from './write-scan.js'

export { SeriesCache } from './series-cache.js'

export interface RemoteWriteResult {
  series: number
  samples: number
  /** series that could not be stored, with the reason (the others are written) */
  rejected: { labels: string; reason: string }[]
  /** samples of the request not written (a rejected series loses all its samples) */
  rejectedSamples: number
}

/** one array for every row batch, so the engine groups a request's thousands of series by identity */
const WRITE_COLUMNS = ['ts', 'v']
const TICKS_PER_MS: Record<Precision, bigint> = { ms: 1n, us: 1000n, ns: 1_000_000n }

/** A series of this request not in the cache: its table by name, existing or to be created. */
interface Pending {
  name: string
  target?: SeriesTarget
  /** its child index in this request */
  child: number
  /** the series of the request that name it */
  series: number[]
}

/**
 * Writes the samples of `scan` into `db` (already writable, its `metrics` checked); `ttl` > 0 is
 * given to the child tables created.
 */
export async function writeSeries(
  deps: { catalog: Catalog; engine: Engine; cache: SeriesCache },
  db: string,
  precision: Precision,
  scan: ScannedWrite,
  ttl: number,
): Promise<RemoteWriteResult> {
  const { catalog, engine, cache } = deps
  const result: RemoteWriteResult = { series: 0, samples: 0, rejected: [], rejectedSamples: 0 }
  const n = scan.count
  const known = cache.targets(db)
  const version = catalog.version
  // each series' child index + 1 in this request (0: rejected); children in order of first
  // appearance (the order the rows path always wrote them in), a new table's tid set once created
  const childOf = new Int32Array(n)
  const tids: number[] = []
  const request = cache.nextRequest()
  const child = (slot: Slot, tid: number): number => {
    if (slot.stamp !== request) {
      slot.stamp = request
      slot.child = tids.length
      tids.push(tid)
    }
    return slot.child
  }
  const pendingByName = new Map<string, Pending>()
  const missing: ChildTableSpec[] = []
  const stable = catalog.getStable(db, METRICS_STABLE) as StableInfo
  const { bytes, keyFrom, keyTo, hashes, joined } = scan
  for (let i = 0; i < n; i++) {
    const own = joined?.get(i)
    const kept = own === undefined ? known.get(hashes[i], bytes, keyFrom[i], keyTo[i]) : known.get(hashes[i], own, 0, own.length)
    if (kept !== undefined && (kept.checked === version || isCurrent(catalog, db, kept, version))) {
      childOf[i] = child(kept.slot, kept.table.tid) + 1
      continue
    }
    // not known (or the catalog changed under it): decode, sort and name as the original adapter does
    const sorted = sortLabels(labelsOf(scan, i))
    const skey = seriesKey(sorted)
    const name = cache.nameOf(skey)
    let p = pendingByName.get(name)
    if (p === undefined) {
      const table = catalog.getTable(db, name)
      if (table !== undefined) {
        if (table.kind !== 'child' || table.stable !== METRICS_STABLE) {
          result.rejected.push({ labels: skey, reason: `table ${name} exists and is not a child table of ${METRICS_STABLE}` })
          continue
        }
        const slot = cache.slotOf(table)
        p = { name, series: [], target: { stable, table, checked: version, slot }, child: child(slot, table.tid) }
      } else {
        const labels = labelsObject(sorted)
        if (Buffer.byteLength(JSON.stringify(labels), 'utf8') > MAX_LABELS_JSON_BYTES) {
          result.rejected.push({ labels: skey.slice(0, 200), reason: `labels are longer than ${MAX_LABELS_JSON_BYTES} bytes as JSON` })
          continue
        }
        missing.push({ name, stable: METRICS_STABLE, tags: { [LABELS_TAG]: labels }, ...(ttl > 0 ? { ttl } : {}) })
        p = { name, series: [], child: tids.length }
        tids.push(-1)
      }
      pendingByName.set(name, p)
    }
    p.series.push(i)
    childOf[i] = p.child + 1
  }
  if (missing.length > 0) {
    const created = catalog.createChildTables
      ? await catalog.createChildTables(db, missing, true)
      : await Promise.all(missing.map((m) => catalog.createChildTable(db, m.name, m.stable, m.tags, true, m.ttl)))
    const now = catalog.version
    const current = catalog.getStable(db, METRICS_STABLE) as StableInfo
    for (const info of created) {
      const p = pendingByName.get(info.name)
      if (p !== undefined && p.target === undefined) {
        p.target = { stable: current, table: info, checked: now, slot: cache.slotOf(info) }
        tids[p.child] = info.tid
      }
    }
    for (const p of pendingByName.values()) {
      if (p.target === undefined) {
        throw new Error(`remote write: creating child table ${db}.${p.name} answered no table`)
      }
    }
  }
  for (const p of pendingByName.values()) {
    for (const i of p.series) {
      const own = joined?.get(i)
      if (own === undefined) {
        cache.remember(known, hashes[i], bytes, keyFrom[i], keyTo[i], p.target as SeriesTarget)
      } else {
        cache.remember(known, hashes[i], own, 0, own.length, p.target as SeriesTarget)
      }
    }
  }
  await writeSamples(engine, db, TICKS_PER_MS[precision], scan, childOf, tids, result)
  result.rejectedSamples = scan.samples - result.samples
  return result
}

/** The catalog still holds the target's very objects (checked once per catalog version). */
function isCurrent(catalog: Catalog, db: string, t: SeriesTarget, version: number): boolean {
  if (catalog.getStable(db, METRICS_STABLE) === t.stable && catalog.getTable(db, t.table.name) === t.table) {
    t.checked = version
    return true
  }
  return false
}

/**
 * The samples of every series with a child (childOf[i] > 0) as one column batch of `metrics`,
 * children in order of first appearance, each child's rows in request order.
 */
async function writeSamples(
  engine: Engine,
  db: string,
  perMs: bigint,
  scan: ScannedWrite,
  childOf: Int32Array,
  tids: number[],
  result: RemoteWriteResult,
): Promise<void> {
  const k = tids.length
  if (k === 0) {
    return
  }
  const counts = new Int32Array(k + 1)
  for (let i = 0; i < scan.count; i++) {
    const c = childOf[i]
    if (c > 0) {
      counts[c] += scan.sampleEnds[i] - (i === 0 ? 0 : scan.sampleEnds[i - 1])
    }
  }
  // starts[c] = first row of child c; counts becomes each child's next row
  const starts = new Int32Array(k + 1)
  for (let c = 0; c < k; c++) {
    starts[c + 1] = starts[c] + counts[c + 1]
  }
  const total = starts[k]
  const next = starts.slice(0, k)
  const ts = new BigInt64Array(total)
  const v = new Float64Array(total)
  let valid: Uint8Array | undefined
  const lastMs = new Float64Array(k).fill(Number.NEGATIVE_INFINITY)
  const first: bigint[] = new Array<bigint>(k).fill(0n)
  const last: bigint[] = new Array<bigint>(k).fill(0n)
  let ordered = true
  // a scrape's samples share their timestamp: one bigint serves them all
  let inMs = Number.NaN
  let ticks = 0n
  for (let i = 0; i < scan.count; i++) {
    const c = childOf[i] - 1
    if (c < 0) {
      continue
    }
    for (let s = i === 0 ? 0 : scan.sampleEnds[i - 1]; s < scan.sampleEnds[i]; s++) {
      const ms = scan.timestamps[s]
      if (ms !== inMs) {
        inMs = ms
        ticks = BigInt(ms) * perMs
      }
      const r = next[c]++
      if (r === starts[c]) {
        first[c] = ticks
      } else if (!(ms > lastMs[c])) {
        ordered = false
      }
      lastMs[c] = ms
      last[c] = ticks
      ts[r] = ticks
      const value = scan.values[s]
      if (Number.isFinite(value)) {
        v[r] = value
      } else {
        // NaN and ±Inf (stale markers among them) are stored as NULL
        valid ??= new Uint8Array(total).fill(1)
        valid[r] = 0
      }
    }
  }
  result.series += k
  result.samples += total
  const batch: ColumnBatch = {
    db,
    table: METRICS_STABLE,
    columns: WRITE_COLUMNS,
    count: total,
    tids: Int32Array.from(tids),
    starts,
    ts,
    values: [v],
    valid: [valid],
    first,
    last,
  }
  if (ordered && engine.appendColumns !== undefined && (await engine.appendColumns([batch])) !== undefined) {
    return
  }
  await engine.writeRows(rowBatches(batch))
}

/** The same rows as RowBatches, one per child (the rows path stages what is not newer than stored). */
function rowBatches(b: ColumnBatch): RowBatch[] {
  const v = b.values[0] as Float64Array
  const valid = b.valid[0]
  const batches: RowBatch[] = []
  for (let c = 0; c < b.tids.length; c++) {
    const rows: unknown[][] = []
    for (let r = b.starts[c]; r < b.starts[c + 1]; r++) {
      rows.push([b.ts[r], valid === undefined || valid[r] === 1 ? v[r] : null])
    }
    batches.push({ db: b.db, table: METRICS_STABLE, tid: b.tids[c], columns: WRITE_COLUMNS, rows })
  }
  return batches
}
