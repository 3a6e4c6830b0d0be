/**
 * @module
 * Events in the storage backend: one table in a system schema of its own (no TDengine database
 * maps onto it: theirs are `td_*`), written with plain SQL through the Engine, so DuckDB keeps
 * them across restarts and replicas over PostgreSQL share one list.
 *
 * An open event (active or acknowledged) carries its condition's key in `open_key`, under a
 * unique index: reporting the condition again bumps `count` instead of opening a second event,
 * also when two replicas report it at once (the loser of the insert retries as an update).
 * Resolving clears the key. Every change is one conditional statement with RETURNING, so no
 * transaction or row lock is needed and a concurrent change is seen, never overwritten.
 */
import { randomUUID } from 'node:crypto'
import type { Engine } from '../storage/types.js'
import type { EventDTO, EventFilter, EventSeverity, EventStatus, PageOfEventDTO, PageRequest, RaisedCondition } from './event-types.js'

/** The schema of the events table (beside the catalog's; never a TDengine database's `td_*`). */
export const EVENTS_SCHEMA = 'db_adapter_events'
const TABLE = 'events'

const COLUMNS = [
  'id', 'status', 'severity', 'element_id', 'source', 'title', 'message', 'labels', 'created_at',
  'updated_at', 'acknowledged_at', 'acknowledged_by', 'resolved_at', 'resolved_by', 'count',
] as const

/** What a change did, for the API's statuses and /metrics. */
export type ChangeOutcome = { event: EventDTO; changed: boolean } | 'missing' | 'conflict'

export interface RaiseResult {
  event: EventDTO
  /** false: an open event of the same condition was counted again */
  opened: boolean
}

export class EventStore {
  readonly #engine: Engine

  readonly #table: string

  #ready: Promise<void> | undefined

  constructor(engine: Engine) {
    this.#engine = engine
    const q = (n: string): string => engine.dialect.quoteIdent(n)
    this.#table = `${q(EVENTS_SCHEMA)}.${q(TABLE)}`
  }

  /**
   * Creates the schema, table and indexes when missing (idempotent; replicas may race). Every
   * other method calls it first, once: storage that is down at start is tried again on next use.
   */
  init(): Promise<void> {
    this.#ready ??= this.#create().catch((err: unknown) => {
      this.#ready = undefined
      throw err
    })
    return this.#ready
  }

  async #create(): Promise<void> {
    const q = (n: string): string => this.#engine.dialect.quoteIdent(n)
    const statements = [
      `CREATE SCHEMA IF NOT EXISTS ${q(EVENTS_SCHEMA)}`,
      `CREATE TABLE IF NOT EXISTS ${this.#table} (id VARCHAR PRIMARY KEY, open_key VARCHAR, status VARCHAR NOT NULL, ` +
        'severity VARCHAR NOT NULL, element_id VARCHAR NOT NULL, source VARCHAR NOT NULL, title VARCHAR NOT NULL, ' +
        'message VARCHAR NOT NULL, labels VARCHAR NOT NULL, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, ' +
        'acknowledged_at BIGINT, acknowledged_by VARCHAR, resolved_at BIGINT, resolved_by VARCHAR, count INTEGER NOT NULL)',
      // one open event per condition; NULL (resolved) keys never collide
      `CREATE UNIQUE INDEX IF NOT EXISTS events_open_key ON ${this.#table} (open_key)`,
      // the list is newest first, often filtered by status
      `CREATE INDEX IF NOT EXISTS events_created_at ON ${this.#table} (created_at)`,
      `CREATE INDEX IF NOT EXISTS events_status_created_at ON ${this.#table} (status, created_at)`,
    ]
    for (const sql of statements) {
      try {
        await this.#engine.exec(sql)
      } catch (err) {
        // another replica created it at the same moment (PostgreSQL's catalog race): once more
        await this.#engine.exec(sql).catch(() => {
          throw err
        })
      }
    }
  }

  async list(filter: EventFilter, page: PageRequest): Promise<PageOfEventDTO> {
    await this.init()
    const where = this.#where(filter)
    const [[total]] = await this.#engine.query(`SELECT count(*) FROM ${this.#table}${where}`)
    const offset = (page.pageNum - 1) * page.pageSize
    const rows = await this.#engine.query(
      `SELECT ${COLUMNS.join(', ')} FROM ${this.#table}${where} ORDER BY created_at DESC, id DESC LIMIT ${page.pageSize} OFFSET ${offset}`,
    )
    return { total: Number(total), pageNum: page.pageNum, pageSize: page.pageSize, items: rows.map(toEvent) }
  }

  async get(id: string): Promise<EventDTO | undefined> {
    await this.init()
    const rows = await this.#engine.query(`SELECT ${COLUMNS.join(', ')} FROM ${this.#table} WHERE id = ${this.#s(id)}`)
    return rows.length === 0 ? undefined : toEvent(rows[0])
  }

  /** active -> acknowledged; an acknowledged event stays as it is; a resolved one is a conflict. */
  async acknowledge(id: string, user: string, at = Date.now()): Promise<ChangeOutcome> {
    await this.init()
    const rows = await this.#engine.query(
      `UPDATE ${this.#table} SET status = 'acknowledged', acknowledged_at = ${at}, acknowledged_by = ${this.#s(user)}, updated_at = ${at} ` +
        `WHERE id = ${this.#s(id)} AND status = 'active' RETURNING ${COLUMNS.join(', ')}`,
    )
    if (rows.length > 0) {
      return { event: toEvent(rows[0]), changed: true }
    }
    const now = await this.get(id)
    if (now === undefined) {
      return 'missing'
    }
    return now.status === 'resolved' ? 'conflict' : { event: now, changed: false }
  }

  /** active or acknowledged -> resolved; a resolved event stays as it is. */
  async resolve(id: string, user: string, at = Date.now()): Promise<ChangeOutcome> {
    await this.init()
    const rows = await this.#engine.query(
      `UPDATE ${this.#table} SET ${this.#resolving(user, at)} WHERE id = ${this.#s(id)} AND status <> 'resolved' RETURNING ${COLUMNS.join(', ')}`,
    )
    if (rows.length > 0) {
      return { event: toEvent(rows[0]), changed: true }
    }
    const now = await this.get(id)
    return now === undefined ? 'missing' : { event: now, changed: false }
  }

  /**
   * Opens an event for the condition, or counts it again when one is open (message, labels and
   * severity take the latest report). `at` is when the condition was seen (Unix ms).
   */
  async raise(cond: RaisedCondition, at = Date.now()): Promise<RaiseResult> {
    await this.init()
    for (let attempt = 0; ; attempt++) {
      const rows = await this.#engine.query(
        `UPDATE ${this.#table} SET count = count + 1, updated_at = ${at}, severity = ${this.#s(cond.severity)}, ` +
          `title = ${this.#s(cond.title)}, message = ${this.#s(cond.message)}, labels = ${this.#s(JSON.stringify(cond.labels))} ` +
          `WHERE open_key = ${this.#s(cond.key)} RETURNING ${COLUMNS.join(', ')}`,
      )
      if (rows.length > 0) {
        return { event: toEvent(rows[0]), opened: false }
      }
      const event: EventDTO = {
        id: randomUUID(),
        status: 'active',
        severity: cond.severity,
        elementId: cond.elementId,
        source: cond.source,
        title: cond.title,
        message: cond.message,
        labels: cond.labels,
        createdAt: at,
        updatedAt: at,
        acknowledgedAt: null,
        acknowledgedBy: null,
        resolvedAt: null,
        resolvedBy: null,
        count: 1,
      }
      try {
        await this.#engine.exec(
          `INSERT INTO ${this.#table} (open_key, ${COLUMNS.join(', ')}) VALUES (${this.#s(cond.key)}, ${this.#values(event)})`,
        )
        return { event, opened: true }
      } catch (err) {
        // another replica opened the same condition a moment ago: count it there instead
        if (attempt > 0) {
          throw err
        }
      }
    }
  }

  /** Resolves the open event of a condition, if there is one. */
  async resolveCondition(key: string, by: string, at = Date.now()): Promise<EventDTO | undefined> {
    await this.init()
    const rows = await this.#engine.query(
      `UPDATE ${this.#table} SET ${this.#resolving(by, at)} WHERE open_key = ${this.#s(key)} RETURNING ${COLUMNS.join(', ')}`,
    )
    return rows.length === 0 ? undefined : toEvent(rows[0])
  }

  /** The keys of the open events whose key starts with `prefix` (a source's own, at start). */
  async openKeys(prefix: string): Promise<string[]> {
    await this.init()
    const like = this.#s(`${prefix.replaceAll('\\', '\\\\').replaceAll('%', '\\%').replaceAll('_', '\\_')}%`)
    const rows = await this.#engine.query(`SELECT open_key FROM ${this.#table} WHERE open_key LIKE ${like} ESCAPE '\\'`)
    return rows.map((r) => String(r[0]))
  }

  /** Deletes resolved events resolved before `before` (Unix ms); returns how many. */
  async purge(before: number): Promise<number> {
    await this.init()
    const rows = await this.#engine.query(
      `DELETE FROM ${this.#table} WHERE status = 'resolved' AND resolved_at < ${Math.trunc(before)} RETURNING id`,
    )
    return rows.length
  }

  #resolving(by: string, at: number): string {
    return `status = 'resolved', resolved_at = ${at}, resolved_by = ${this.#s(by)}, updated_at = ${at}, open_key = NULL`
  }

  #where(f: EventFilter): string {
    const parts: string[] = []
    if (f.from !== undefined) {
      parts.push(`created_at >= ${Math.trunc(f.from)}`)
    }
    if (f.to !== undefined) {
      parts.push(`created_at <= ${Math.trunc(f.to)}`)
    }
    if (f.status !== undefined) {
      parts.push(`status = ${this.#s(f.status)}`)
    }
    if (f.severity !== undefined) {
      parts.push(`severity = ${this.#s(f.severity)}`)
    }
    if (f.elementId !== undefined) {
      parts.push(`element_id = ${this.#s(f.elementId)}`)
    }
    return parts.length === 0 ? '' : ` WHERE ${parts.join(' AND ')}`
  }

  #values(e: EventDTO): string {
    const n = (v: number | null): string => (v === null ? 'NULL' : String(Math.trunc(v)))
    const s = (v: string | null): string => (v === null ? 'NULL' : this.#s(v))
    return [
      s(e.id), s(e.status), s(e.severity), s(e.elementId), s(e.source), s(e.title), s(e.message),
      s(JSON.stringify(e.labels)), n(e.createdAt), n(e.updatedAt), n(e.acknowledgedAt), s(e.acknowledgedBy),
      n(e.resolvedAt), s(e.resolvedBy), n(e.count),
    ].join(', ')
  }

  #s(v: string): string {
    return this.#engine.dialect.quoteString(v)
  }
}

function toEvent(r: unknown[]): EventDTO {
  const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v))
  const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v))
  return {
    id: String(r[0]),
    status: String(r[1]) as EventStatus,
    severity: String(r[2]) as EventSeverity,
    elementId: String(r[3]),
    source: String(r[4]),
    title: String(r[5]),
    message: String(r[6]),
    labels: parseLabels(r[7]),
    createdAt: Number(r[8]),
    updatedAt: Number(r[9]),
    acknowledgedAt: num(r[10]),
    acknowledgedBy: str(r[11]),
    resolvedAt: num(r[12]),
    resolvedBy: str(r[13]),
    count: Number(r[14]),
  }
}

function parseLabels(v: unknown): Record<string, string> {
  try {
    const parsed: unknown = JSON.parse(String(v))
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, string>) : {}
  } catch {
    return {}
  }
}
