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
 *  1. a synchronous pass over the points against the cached catalog (request-state.ts). Known
 *     schema -> no awaits at all; what is missing (database, super tables, columns, widths, child
 *     tables) is collected;
 *  2. only when something is missing: under a per-database lock the schema changes are applied,
 *     re-checked against the catalog as it is now (schema-changes.ts; another request may have
 *     changed it). If another request made a column with another type meanwhile, pass 1 runs
 *     again under the lock (the point source is re-run; parsing is deterministic) so the lines
 *     get the right verdicts;
 *  3. one writeRows (row-batches.ts).
 * Worker-parsed line protocol may take the columnar lane instead (columnar.ts, writeColumnar).
 */
import { dbNotExist } from '../../td-error.js'
import { requireIngest } from '../../sql/catalog/access.js'
import { findDatabase } from '../../sql/catalog/find-database.js'
import { KeyedMutex } from '../../mutex.js'
import type { Storage } from '../../sql/catalog/types.js'
import { normaliseDbName, stableNameOf } from '../naming.js'
import type { Point } from '../point.js'
import type { PointSource, Schemaless, SchemalessOptions, WriteOptions } from '../types.js'
import { ChildNameCache } from './child-names.js'
import { writeColumnar, type ColumnarDeps } from './columnar.js'
import { RequestState } from './request-state.js'
import { rowBatches } from './row-batches.js'
import { SchemaChanged, applySchema } from './schema-changes.js'

/** rerunning pass 1 more often than this means the schema keeps changing under us: give up (transient) */
const MAX_SCHEMA_ATTEMPTS = 3

/** A point source over a list of points (line numbers are positions from 1). */
function pointsSource(points: Iterable<Point>): PointSource {
  // a one-shot iterator cannot be re-run: keep the points
  const list = Array.isArray(points) ? (points as Point[]) : [...points]
  return (onPoint) => {
    for (let i = 0; i < list.length; i++) {
      onPoint(list[i], i + 1)
    }
  }
}

export function createSchemaless(storage: Storage, opts: SchemalessOptions): Schemaless {
  const { catalog, engine } = storage
  const childNames = new ChildNameCache()
  const schemaLock = new KeyedMutex<string>()
  const limits = { maxStables: opts.maxStablesPerDatabase ?? 0, maxTables: opts.maxTablesPerDatabase ?? 0 }
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

  return {
    async write(rawDb, input, o) {
      const db = normaliseDbName(rawDb)
      await findDatabase(catalog, db)
      requireIngest(catalog, o.user, db, opts.autoCreateDb)
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
              await applySchema(catalog, opts.autoCreateDb, s, o.ttl ?? 0, o.user, limits)
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
      const batches = rowBatches(state)
      if (batches.length > 0) {
        await engine.writeRows(batches)
      }
      return state.result()
    },

    async writeColumnar(rawDb, slices, o) {
      const db = normaliseDbName(rawDb)
      await findDatabase(catalog, db)
      requireIngest(catalog, o.user, db, opts.autoCreateDb)
      return writeColumnar(columnarDeps, db, slices, o.precision, Date.now())
    },

    columnar: engine.appendColumns !== undefined,
  }
}
