/**
 * What replicas sharing one database use to stay in step (see the engine's onCatalogChange,
 * notifyCatalogChange and withAdvisoryLock): the catalog's NOTIFY channel, its listening
 * connection and advisory lock ids.
 */
import { createHash } from 'node:crypto'
import pg from 'pg'
import type { ClientConfig } from 'pg'
import { noop } from './connection-errors.js'

/** NOTIFY channel for catalog changes between replicas. */
export const CATALOG_CHANNEL = 'db_adapter_catalog'

/** A catalog change seen on the NOTIFY channel. */
export interface CatalogChange {
  /** what `notifyCatalogChange(payload)` sent ('' on resync) */
  payload: string
  /** sent by this engine (its own cache is already current) */
  fromSelf: boolean
  /**
   * the listener (re)connected: notifications may have been missed while it was not listening,
   * so re-read everything. Also fired once when listening starts.
   */
  resync: boolean
}

/** A stable 64-bit advisory lock id for a text key (same on every replica and version). */
export function advisoryLockId(key: string): bigint {
  return createHash('sha256').update(key, 'utf8').digest().readBigInt64BE(0)
}

/** One dedicated connection that LISTENs on the catalog channel and reconnects by itself. */
export class CatalogListener {
  private client: pg.Client | undefined
  private timer: NodeJS.Timeout | undefined
  private stopped = false
  private backoffMs = 250

  constructor(
    private readonly config: ClientConfig,
    private readonly emit: (payload: string, resync: boolean) => void,
  ) {}

  start(): void {
    void this.connect()
  }

  private async connect(): Promise<void> {
    if (this.stopped) {
      return
    }
    const c = new pg.Client(this.config)
    const lost = (): void => {
      this.lost(c)
    }
    c.on('error', lost)
    c.on('end', lost)
    c.on('notification', (m) => {
      if (m.channel === CATALOG_CHANNEL) {
        this.emit(m.payload ?? '', false)
      }
    })
    try {
      await c.connect()
      await c.query(`LISTEN ${CATALOG_CHANNEL}`)
    } catch {
      c.removeListener('end', lost)
      c.end().catch(noop)
      this.schedule()
      return
    }
    if (this.stopped) {
      c.end().catch(noop)
      return
    }
    this.client = c
    this.backoffMs = 250
    // anything may have changed while nobody was listening
    this.emit('', true)
  }

  private lost(c: pg.Client): void {
    if (this.client !== c) {
      return
    }
    this.client = undefined
    c.end().catch(noop)
    this.schedule()
  }

  private schedule(): void {
    if (this.stopped || this.timer) {
      return
    }
    this.timer = setTimeout(() => {
      this.timer = undefined
      void this.connect()
    }, this.backoffMs)
    this.timer.unref()
    this.backoffMs = Math.min(this.backoffMs * 2, 5_000)
  }

  async stop(): Promise<void> {
    this.stopped = true
    if (this.timer) {
      clearTimeout(this.timer)
      this.timer = undefined
    }
    const c = this.client
    this.client = undefined
    if (c) {
      await c.end().catch(noop)
    }
  }
}
