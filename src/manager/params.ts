/**
 * @module
 * The list operation's query parameters, checked one by one: a bad one is a 400 whose message
 * names it and what it should be.
 */
import { DEFAULT_PAGE_SIZE, EVENT_SEVERITIES, EVENT_STATUSES, MAX_PAGE_SIZE } from './event-types.js'
import type { EventFilter, EventSeverity, EventStatus, PageRequest } from './event-types.js'

export class BadParameter extends Error {
  constructor(readonly parameter: string, message: string) {
    super(message)
    this.name = 'BadParameter'
  }
}

/** Longest elementId filter accepted (the store holds what sources report, never longer). */
const MAX_ELEMENT_ID = 1024
const MAX_PAGE_NUM = 1_000_000_000

type Query = (name: string) => string | undefined

function integer(query: Query, name: string, what: string, min: number, max: number): number | undefined {
  const raw = query(name)
  if (raw === undefined) {
    return undefined
  }
  const n = /^-?\d{1,16}$/.test(raw.trim()) ? Number(raw.trim()) : NaN
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new BadParameter(name, `${name} must be ${what}, got ${JSON.stringify(raw.slice(0, 64))}`)
  }
  return n
}

function oneOf<T extends string>(query: Query, name: string, allowed: readonly T[]): T | undefined {
  const raw = query(name)
  if (raw === undefined) {
    return undefined
  }
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new BadParameter(name, `${name} must be one of ${allowed.join(', ')}, got ${JSON.stringify(raw.slice(0, 64))}`)
  }
  return raw as T
}

export function parseListParams(query: Query): { filter: EventFilter; page: PageRequest } {
  const ms = 'Unix milliseconds (an integer)'
  const from = integer(query, 'from', ms, -Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)
  const to = integer(query, 'to', ms, -Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)
  if (from !== undefined && to !== undefined && from > to) {
    throw new BadParameter('from', `from (${from}) must not be after to (${to})`)
  }
  const status: EventStatus | undefined = oneOf(query, 'status', EVENT_STATUSES)
  const severity: EventSeverity | undefined = oneOf(query, 'severity', EVENT_SEVERITIES)
  const elementId = query('elementId')
  if (elementId !== undefined && (elementId === '' || elementId.length > MAX_ELEMENT_ID)) {
    throw new BadParameter('elementId', `elementId must be 1 to ${MAX_ELEMENT_ID} characters`)
  }
  const pageNum = integer(query, 'pageNum', `an integer from 1 (the first page) to ${MAX_PAGE_NUM}`, 1, MAX_PAGE_NUM) ?? 1
  const pageSize = integer(query, 'pageSize', `an integer from 1 to ${MAX_PAGE_SIZE}`, 1, MAX_PAGE_SIZE) ?? DEFAULT_PAGE_SIZE
  const filter: EventFilter = {
    ...(from !== undefined ? { from } : {}),
    ...(to !== undefined ? { to } : {}),
    ...(status !== undefined ? { status } : {}),
    ...(severity !== undefined ? { severity } : {}),
    ...(elementId !== undefined ? { elementId } : {}),
  }
  return { filter, page: { pageNum, pageSize } }
}
