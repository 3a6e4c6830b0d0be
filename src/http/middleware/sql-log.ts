/**
 * @module
 * HTTP SQL log (`log.enableRecordHttpSql`): one line per request that carried SQL, with request
 * id, uri, method, client ip and the statement, written to the separate SQL log. The line is
 * written once the response is done, from the body the handler already read (Hono caches it), so
 * the handler's streaming and error paths stay untouched; a request rejected before its body was
 * read (bad credentials, memory pause) carried no executed SQL and writes no line.
 */
import type { MiddlewareHandler } from 'hono'
import type { Logger } from '../../logger.js'

export interface SqlLogOptions {
  sqlLogger: Logger
}

export function sqlLog({ sqlLogger }: SqlLogOptions): MiddlewareHandler {
  return async function sqlLog(c, next) {
    await next()
    // `/rest/sql/{db}/vgid` bodies are table-name lists, not SQL
    if (c.req.path.endsWith('/vgid')) {
      return
    }
    const cached = c.req.bodyCache.text
    if (cached === undefined) {
      return
    }
    let sql: string
    try {
      sql = await cached
    } catch {
      return
    }
    const url = new URL(c.req.url)
    sqlLogger.info(
      {
        reqId: c.get('requestId'),
        uri: url.pathname + url.search,
        method: c.req.method,
        clientIp: c.get('clientIp'),
        sql,
      },
      'sql',
    )
  }
}
