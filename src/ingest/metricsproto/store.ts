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
 * JSON SQL is needed. Rows are read in chunks and encoded as they come into compressed protobuf
 * (read-response.ts): what is held is the compressed answer, capped by `maxBytes` decoded. NULL
 * samples are left out (Prometheus has no value for them).
 */
import type { Storage } from '../../sql/catalog/types.js'
import type { ColumnDef, Precision } from '../../storage/td-types.js'
import { dbNotExist } from '../../td-error.js'
import { normaliseDbName } from '../naming.js'
import { SnappyReadResponse } from './read-response.js'
import { RemoteDecodeError } from './proto.js'
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

export interface ReadOptions {
  /** samples a query may return at most (restfulRowLimit; -1: no limit) */
  rowLimit: number
  /** decoded bytes the answer may reach (0: no cap); past it ReadTooLarge */
  maxBytes: number
  /** the client went away: the query is cancelled */
  signal?: AbortSignal
}

/** An answer only SAMPLES can carry: refused when the client accepts none of it (400). */
function checkResponseTypes(accepted: readonly number[]): void {
  // empty means SAMPLES (what Prometheus up to 2.x sends); STREAMED_XOR_CHUNKS is not produced
  if (accepted.length > 0 && !accepted.includes(0)) {
    throw new RemoteDecodeError(`remote read: only the SAMPLES response type is answered; the request accepts only [${accepted.join(', ')}] (1 = STREAMED_XOR_CHUNKS)`)
  }
}

export interface RemoteStore {
  /** `user` creates the database when it is missing and may be created (its owner then) */
  write(db: string, scan: ScannedWrite, ttl: number, user: string): Promise<RemoteWriteResult>
  /** the response body, one snappy ReadResponse in pieces to send in order: one QueryResult per query */
  read(db: string, req: ReadRequest, opts: ReadOptions): Promise<Buffer[]>
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

    async read(rawDb, req, opts) {
      const db = normaliseDbName(rawDb)
      const info = catalog.getDatabase(db)
      if (info === undefined) {
        throw dbNotExist(db)
      }
      checkResponseTypes(req.acceptedResponseTypes)
      const out = new SnappyReadResponse(opts.maxBytes)
      const st = catalog.getStable(db, METRICS_STABLE)
      if (st !== undefined) {
        checkMetricsStable(db, st.columns, st.tags)
      }
      const children = st === undefined ? [] : catalog.listTables(db).filter((t) => t.kind === 'child' && t.stable === METRICS_STABLE)
      const d = engine.dialect
      const target = `${d.quoteIdent(d.schemaName(db))}.${d.quoteIdent(METRICS_STABLE)}`
      const ts = d.quoteIdent(st?.columns[0].name ?? 'ts')
      const tid = d.quoteIdent('_tid')
      const perMs = Number(TICKS_PER_MS[info.precision])
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
            (opts.rowLimit >= 0 ? ` LIMIT ${opts.rowLimit}` : '')
          // rows arrive grouped by series (ORDER BY _tid), in chunks, and go straight into
          // compressed protobuf bytes; numeric columns where the backend has them (no JS value per cell)
          let current: number | undefined
          const next = (t: number): void => {
            if (current !== undefined) {
              out.endSeries()
            }
            current = t
            out.beginSeries(labelsOf.get(t) ?? [])
          }
          const streamOpts = { chunkRows: 8192, ...(opts.signal ? { signal: opts.signal } : {}) }
          const chunks = engine.streamNumeric?.(sql, streamOpts) ?? engine.stream(sql, streamOpts)
          for await (const chunk of chunks) {
            if (Array.isArray(chunk)) {
              for (const [t, tick, v] of chunk as [number, bigint | number, number][]) {
                if (Number(t) !== current) {
                  next(Number(t))
                }
                out.sample(v, Number(BigInt(tick) / BigInt(perMs)))
              }
              continue
            }
            const [t, tick, v] = chunk.columns
            for (let r = 0; r < chunk.rowCount; r++) {
              if (t.values[r] !== current) {
                next(t.values[r])
              }
              // exact: ticks are integers within 2^53 here, and a quotient rounds to an integer
              // only when it is one (ms: ~2^41, a thousandth apart at most)
              out.sample(v.values[r], perMs === 1 ? tick.values[r] : Math.trunc(tick.values[r] / perMs))
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
