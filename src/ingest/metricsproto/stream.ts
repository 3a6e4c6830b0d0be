/**
 * @module
 * The Prometheus remote write/read stream layer: a snappy protobuf body (bytes or a Node
 * Readable) in; a write's result, or a read's snappy ReadResponse, out. Decoding stays pure (a
 * write's bytes scanned by write-scan.ts, a read decoded by proto.ts); the remote store
 * (store.ts, write.ts) maps series to tables.
 */
import type { Readable } from 'node:stream'
import type { Storage } from '../../sql/catalog/types.js'
import { requireAccess, requireIngest } from '../../sql/catalog/access.js'
import { findDatabase } from '../../sql/catalog/find-database.js'
import { normaliseDbName } from '../naming.js'
import { readAll } from '../read-all.js'
import { decodeReadRequest, inflateWriteRequest } from './proto.js'
import { createRemoteStore, type RemoteStore, type RemoteWriteResult } from './store.js'
import { scanWriteRequest } from './write-scan.js'

export class RemoteStream {
  private readonly store: RemoteStore

  constructor(
    private readonly storage: Storage,
    /** maxDecodedSize: snappy bodies announcing more are refused before inflating (0: no cap) */
    private readonly opts: { autoCreateDb: boolean; maxDecodedSize?: number },
  ) {
    this.store = createRemoteStore(storage, opts)
  }

  /**
   * Decodes and writes a WriteRequest as `user` (RemoteDecodeError / MetricsSchemaError for bad
   * ones; TdError 771, before decoding, when the user may not write the database).
   */
  async write(db: string, body: Uint8Array, ttl: number, user: string): Promise<RemoteWriteResult> {
    await this.admit(db, user, 'write')
    return this.store.write(db, scanWriteRequest(inflateWriteRequest(body, this.opts.maxDecodedSize)), ttl, user)
  }

  /**
   * Decodes a ReadRequest and answers it (snappy ReadResponse in pieces): at most `rowLimit`
   * samples a query (-1: no limit), at most maxDecodedSize bytes decoded (ReadTooLarge); READ needed.
   */
  async read(db: string, body: Uint8Array, rowLimit: number, user: string, signal?: AbortSignal): Promise<Buffer[]> {
    await this.admit(db, user, 'read')
    const maxBytes = this.opts.maxDecodedSize ?? 0
    return this.store.read(db, decodeReadRequest(body, maxBytes), { rowLimit, maxBytes, ...(signal ? { signal } : {}) })
  }

  /** the privilege rules, against the catalog as another replica may just have changed it */
  private async admit(rawDb: string, user: string, access: 'read' | 'write'): Promise<void> {
    const db = normaliseDbName(rawDb)
    await findDatabase(this.storage.catalog, db)
    if (access === 'read') {
      requireAccess(this.storage.catalog, user, db, 'read')
    } else {
      requireIngest(this.storage.catalog, user, db, this.opts.autoCreateDb)
    }
  }

  /** `write` of everything `from` gives until it ends (past `limit` bytes it fails; 0: no cap). */
  async writeFrom(db: string, from: Readable, ttl: number, limit: number, user: string): Promise<RemoteWriteResult> {
    await this.admit(db, user, 'write')
    return this.write(db, await readAll(from, limit), ttl, user)
  }
}
