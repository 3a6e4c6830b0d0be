/**
 * Prometheus remote write and remote read over the catalog and the engine.
 *
 * Write (write.ts): series -> child tables of `metrics` (created in one catalog transaction when
 * new), all samples of a request in ONE engine call (one transaction), NaN and ±Inf (stale
 * markers among them) stored as NULL.
 *
 * Read: the matchers select series from the catalog's cached children of `metrics` (their labels
 * are the JSON tag), then one engine query reads the samples of just those `_tid`s in the time
 * range, so a read of a few series does not decode the whole table in JS and no backend-specific
 * JSON SQL is needed. Rows are streamed into the protobuf response as they come (bounded JS
 * memory for large reads). NULL samples are left out (Prometheus has no value for them).
 */
import type { Storage } from '../../sql/catalog/types.js'
import type { ColumnDef, Precision } from '../../storage/td-types.js'
import { dbNotExist } from '../../td-error.js'
import { normaliseDbName } from '../naming.js'
import { ReadResponseBuilder } from './proto.js'
import type { Label, ReadRequest } from './proto.js'
import { LABELS_TAG, MAX_LABELS_JSON_BYTES, METRICS_STABLE, compileMatchers, sortLabels } from './series.js'
import { SeriesCache, writeSeries, type RemoteWriteResult } from './write.js'
import type { ScannedWrite } from './write-scan.js'

export type { RemoteWriteResult } from './write.js'

const COLUMNS: ColumnDef[] = [
  { name: 'ts', type: 'TIMESTAMP', length: 8 },
  { name: 'v', type: 'DOUBLE', length: 8 },
]
const TAGS: ColumnDef[] = [{ name: LABELS_TAG, type: 'JSON', length: MAX_LABELS_JSON_BYTES }]

const TICKS_PER_MS: Record<Precision, bigint> = { ms: 1n, us: 1000n, ns: 1_000_000n }
const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n

function clampTicks(ms: bigint, precision: Precision): bigint {
  const t = ms * TICKS_PER_MS[precision]
  return t < INT64_MIN ? INT64_MIN : t > INT64_MAX ? INT64_MAX : t
}

/** A `metrics` super table that is not the one this protocol stores into: the request cannot be served. */
export class MetricsSchemaError extends Error {}

function checkMetricsStable(db: string, columns: ColumnDef[], tags: ColumnDef[]): void {
  const ok =
    columns.length >= 2 &&
    columns[1].name === 'v' &&
    columns[1].type === 'DOUBLE' &&
    tags.length === 1 &&
    tags[0].name === LABELS_TAG &&
    tags[0].type === 'JSON'
  if (!ok) {
    throw new MetricsSchemaError(
      `super table ${db}.${METRICS_STABLE} exists with another schema; remote write/read needs ${METRICS_STABLE}(ts TIMESTAMP, v DOUBLE) TAGS (${LABELS_TAG} JSON)`,
    )
  }
}

export interface RemoteStore {
  /** `user` creates the database when it is missing and may be created (its owner then) */
  write(db: string, scan: ScannedWrite, ttl: number, user: string): Promise<RemoteWriteResult>
  /** the response body: snappy ReadResponse, one QueryResult per query */
  read(db: string, req: ReadRequest, rowLimit: number): Promise<Buffer>
}

export function createRemoteStore(storage: Storage, opts: { autoCreateDb: boolean }): RemoteStore {
  const { catalog, engine } = storage
  const cache = new SeriesCache()

  async function ensureWritable(db: string, user: string): Promise<Precision> {
    let info = catalog.getDatabase(db)
    if (info === undefined) {
      if (!opts.autoCreateDb) {
        throw dbNotExist(db)
      }
      await catalog.createDatabase(db, { precision: 'ns' }, true, user)
      info = catalog.getDatabase(db)
      if (info === undefined) {
        throw dbNotExist(db)
      }
    }
    const st = catalog.getStable(db, METRICS_STABLE)
    if (st === undefined) {
      await catalog.createStable(db, METRICS_STABLE, COLUMNS, TAGS, true)
    } else {
      checkMetricsStable(db, st.columns, st.tags)
    }
    return info.precision
  }

  return {
    async write(rawDb, scan, ttl, user) {
      if (scan.count === 0) {
        // metadata-only requests (about one a minute) and empty ones: nothing to store
        return { series: 0, samples: 0, rejected: [], rejectedSamples: 0 }
      }
      const db = normaliseDbName(rawDb)
      const precision = await ensureWritable(db, user)
      return writeSeries({ catalog, engine, cache }, db, precision, scan, ttl)
    },

    async read(rawDb, req, rowLimit) {
      const db = normaliseDbName(rawDb)
      const info = catalog.getDatabase(db)
      if (info === undefined) {
        throw dbNotExist(db)
      }
      const out = new ReadResponseBuilder()
      const st = catalog.getStable(db, METRICS_STABLE)
      if (st !== undefined) {
        checkMetricsStable(db, st.columns, st.tags)
      }
      const children = st === undefined ? [] : catalog.listTables(db).filter((t) => t.kind === 'child' && t.stable === METRICS_STABLE)
      const d = engine.dialect
      const target = `${d.quoteIdent(d.schemaName(db))}.${d.quoteIdent(METRICS_STABLE)}`
      const ts = d.quoteIdent(st?.columns[0].name ?? 'ts')
      const tid = d.quoteIdent('_tid')
      const perMs = TICKS_PER_MS[info.precision]
      for (const q of req.queries) {
        const match = compileMatchers(q.matchers)
        const labelsOf = new Map<number, Label[]>()
        for (const c of children) {
          const labels = (c.tags?.[LABELS_TAG] ?? {}) as Record<string, unknown>
          if (match(labels)) {
            labelsOf.set(
              c.tid,
              sortLabels(Object.entries(labels).map(([name, value]) => ({ name, value: String(value) }))),
            )
          }
        }
        if (labelsOf.size > 0) {
          const tids = labelsOf.size === children.length ? '' : ` AND ${tid} IN (${[...labelsOf.keys()].join(',')})`
          const sql =
            `SELECT ${tid}, ${ts}, ${d.quoteIdent('v')} FROM ${target} ` +
            `WHERE ${ts} >= ${clampTicks(q.startMs, info.precision)} AND ${ts} <= ${clampTicks(q.endMs, info.precision)}` +
            `${tids} AND ${d.quoteIdent('v')} IS NOT NULL ORDER BY ${tid}, ${ts}` +
            (rowLimit >= 0 ? ` LIMIT ${rowLimit}` : '')
          // rows arrive grouped by series (ORDER BY _tid) and go straight into protobuf bytes
          let current: number | undefined
          for await (const chunk of engine.stream(sql, { chunkRows: 8192 })) {
            for (const [t, tick, v] of chunk as [number, bigint, number][]) {
              if (t !== current) {
                if (current !== undefined) {
                  out.endSeries()
                }
                current = Number(t)
                out.beginSeries(labelsOf.get(current) ?? [])
              }
              out.sample(v, Number(BigInt(tick) / perMs))
            }
          }
          if (current !== undefined) {
            out.endSeries()
          }
        }
        out.endQuery()
      }
      return out.finish()
    },
  }
}
