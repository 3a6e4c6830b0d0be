/**
 * @module
 * The Prometheus remote write/read stream layer: a snappy protobuf body (bytes or a Node
 * Readable) in; a write's result, or a read's snappy ReadResponse, out. Decoding (proto.ts) stays
 * pure; the remote store (store.ts) maps series to tables.
 */
import type { Readable } from 'node:stream'
import type { Storage } from '../../sql/catalog/types.js'
import { readAll } from '../read-all.js'
import { decodeReadRequest, decodeWriteRequest } from './proto.js'
import { createRemoteStore, type RemoteStore, type RemoteWriteResult } from './store.js'

export class RemoteStream {
  private readonly store: RemoteStore

  constructor(storage: Storage, opts: { autoCreateDb: boolean }) {
    this.store = createRemoteStore(storage, opts)
  }

  /** Decodes and writes a WriteRequest (RemoteDecodeError / MetricsSchemaError for bad ones). */
  write(db: string, body: Uint8Array, ttl: number): Promise<RemoteWriteResult> {
    return this.store.write(db, decodeWriteRequest(body), ttl)
  }

  /** Decodes a ReadRequest and answers it: at most `rowLimit` samples a query (-1: no limit). */
  read(db: string, body: Uint8Array, rowLimit: number): Promise<Buffer> {
    return this.store.read(db, decodeReadRequest(body), rowLimit)
  }

  /** `write` of everything `from` gives until it ends (past `limit` bytes it fails; 0: no cap). */
  async writeFrom(db: string, from: Readable, ttl: number, limit: number): Promise<RemoteWriteResult> {
    return this.write(db, await readAll(from, limit), ttl)
  }
}
