import type { DeflatedPart } from '../../http/gzip-parts.js'
import type { Precision } from '../../storage/td-types.js'
import type { NumericVector } from '../../storage/types.js'

/**
 * The query body's offload contract: what query-body.ts hands to another thread (RowsJob), what
 * comes back (EncodedRows, inside a RowsAnswer from worker.ts), and the offload itself, which
 * the REST routes take and lifecycle.ts starts and closes (offload.ts).
 */

/** A numeric column of a chunk (the engine's values and NULL mask) with its value kind: what crosses to an encode worker. */
export interface NumericColumn extends Pick<NumericVector, 'values' | 'nulls'> {
  kind: number
}

/** Rows of one chunk to encode elsewhere (worker.ts), as `[..],[..]` without a leading comma. */
export interface RowsJob {
  id: number
  precision: Precision
  tz: string | undefined
  rows: number
  columns: NumericColumn[]
  /** deflate the bytes too (a gzip body: see src/http/gzip-parts.ts) */
  deflate: boolean
}

/** A job's bytes: deflated (with the plain bytes' CRC and length) when the job asked for it. */
export type EncodedRows = { bytes: Uint8Array; deflated: false } | (DeflatedPart & { deflated: true })

/** The worker's answer to a RowsJob of the same id. */
export type RowsAnswer = { id: number; encoded: EncodedRows } | { id: number; failure: string }

/**
 * Encodes chunks of rows on another thread while this one goes on with the next chunk
 * (offload.ts). `accepting` is false while the worker is full or cannot run.
 */
export interface RowsOffload {
  readonly accepting: boolean
  encode(job: Omit<RowsJob, 'id'>): Promise<EncodedRows>
}

/** An offload as lifecycle.ts holds it: closed when the service stops. */
export interface RowsOffloadHandle extends RowsOffload {
  close(): Promise<void>
}
