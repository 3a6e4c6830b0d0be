import { StorageUnavailableError } from '../errors.js'

const CONNECTION_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'EAI_AGAIN',
])

/** SQLSTATEs meaning "the server cannot serve us right now" rather than "your SQL is wrong". */
function isUnavailableSqlState(code: string): boolean {
  return (
    code.startsWith('08') || // connection exception
    code === '57P01' || // admin_shutdown
    code === '57P02' || // crash_shutdown
    code === '57P03' || // cannot_connect_now (starting up / recovering)
    code === '53300' // too_many_connections
  )
}

export function isConnectionError(err: unknown): boolean {
  if (err instanceof StorageUnavailableError) {
    return true
  }
  if (!(err instanceof Error)) {
    return false
  }
  const code = (err as { code?: unknown }).code
  if (typeof code === 'string' && (CONNECTION_ERRNOS.has(code) || isUnavailableSqlState(code))) {
    return true
  }
  return /Connection terminated|not queryable|timeout exceeded when trying to connect|Connection ended|Client was closed/i.test(
    err.message,
  )
}

export function sqlState(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : undefined
}

/** For errors ignored on purpose (a connection being thrown away), and a no-op unsubscribe. */
export function noop(): void {}
