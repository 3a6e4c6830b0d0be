/**
 * @module
 * One batch of a receiver's points into its database, as its configured user: the login is
 * checked, the privileges applied (requireIngest, as every write path), the database created on
 * first use, the points written through the schemaless core and counted. Errors are classified so
 * the caller knows whether waiting and retrying can help; PointWriter (UDP receivers) and the
 * telnet connections (TCP) share it.
 */
import type { PointSource, Schemaless, WriteResult } from '../ingest/types.js'
import type { RequestPrecision } from '../ingest/schemaless/precision.js'
import type { Point } from '../ingest/point.js'
import { TdError } from '../td-error.js'
import { isStorageUnavailable } from '../storage/errors.js'
import type { Storage } from '../sql/catalog/types.js'
import { requireIngest } from '../sql/catalog/access.js'
import type { ReceiverMetrics, ThrottledLog } from './receiver-log.js'

export interface ReceiverSinkOptions {
  /** metrics label and log prefix, the flag prefix (`collagent`) */
  receiver: string
  db: string
  user: string
  password: string
  /** days to live of the child tables created; 0 = none */
  ttl: number
  storage: Storage
  schemaless: Schemaless
  metrics: ReceiverMetrics
  log: ThrottledLog
  /** of the points' timestamps (default ns) */
  precision?: RequestPrecision
}

export type SinkOutcome = { outcome: 'done'; result?: WriteResult } | { outcome: 'retry' }

export class ReceiverSink {
  #dbReady = false
  constructor(private readonly o: ReceiverSinkOptions) {}

  /**
   * 'done' when the batch is accounted for (written, rejected or dropped: `count` points then),
   * 'retry' on storage trouble (nothing counted yet). `parseErrors`: how many of the rejections
   * were the caller's own parse errors (it counts and logs those); the rest are logged here.
   */
  async write(batch: PointSource | Iterable<Point>, count: number, parseErrors?: () => number): Promise<SinkOutcome> {
    const o = this.o
    const { catalog } = o.storage
    try {
      if (!(await catalog.verifyUser(o.user, o.password, `receiver:${o.receiver}`))) {
        o.metrics.points.inc({ receiver: o.receiver, result: 'dropped' }, count)
        o.log.error('auth', { receiver: o.receiver, user: o.user }, `${o.receiver}: user "${o.user}" cannot log in; check ${o.receiver}.user and ${o.receiver}.password`)
        return { outcome: 'done' }
      }
      // the same rules as every write path: WRITE on the database, or CREATEDB while it is missing
      requireIngest(catalog, o.user, o.db, true)
      if (!this.#dbReady) {
        // the receiver's database is its own: created on first use, like the original's
        await catalog.createDatabase(o.db, { precision: 'ns' }, true, o.user)
        this.#dbReady = true
      }
      const r = await o.schemaless.write(o.db, batch, { user: o.user, precision: o.precision ?? 'ns', ...(o.ttl > 0 ? { ttl: o.ttl } : {}) })
      o.metrics.points.inc({ receiver: o.receiver, result: 'written' }, r.written)
      if (r.rejected > 0) {
        o.metrics.points.inc({ receiver: o.receiver, result: 'rejected' }, r.rejected)
        const bySchema = r.rejected - (parseErrors?.() ?? 0)
        if (bySchema > 0) {
          o.log.error('rejected', { receiver: o.receiver, db: o.db, rejected: bySchema, first: r.errors[0]?.message }, `${o.receiver}: points rejected by the schema of database "${o.db}"`)
        }
      }
      return { outcome: 'done', result: r }
    } catch (err) {
      if (isStorageUnavailable(err)) {
        o.log.error('storage', { receiver: o.receiver, err: err.message }, `${o.receiver}: storage unavailable, retrying`)
        return { outcome: 'retry' }
      }
      // not transient (a bad database name, a clash with an existing table): retrying cannot help
      o.metrics.points.inc({ receiver: o.receiver, result: 'dropped' }, count)
      const detail = err instanceof TdError ? { code: err.code, desc: err.desc } : { err }
      o.log.error('write', { receiver: o.receiver, db: o.db, ...detail }, `${o.receiver}: write into "${o.db}" failed`)
      return { outcome: 'done' }
    }
  }
}
