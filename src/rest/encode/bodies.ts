/**
 * JSON bodies of `/rest/sql`, byte for byte as taosAdapter writes them: keys in the order
 * code, column_meta, data, rows, no whitespace. This file holds the small ones (exec results and
 * errors); query results are streamed by query-body.ts.
 */

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8'

const EXEC_META = '[["affected_rows","INT",4]]'

export function execBody(affectedRows: number): string {
  return `{"code":0,"column_meta":${EXEC_META},"data":[[${affectedRows}]],"rows":1}`
}

/**
 * Error body `{"code":N,"desc":"..."}`. gin's JSON writer escapes <, > and & as \u003c etc.;
 * kept so error texts compare equal byte for byte with the original.
 */
export function errorBody(code: number, desc: string): string {
  const d = JSON.stringify(desc).replace(/[<>&]/g, (ch) =>
    ch === '<' ? '\\u003c' : ch === '>' ? '\\u003e' : '\\u0026',
  )
  return `{"code":${code},"desc":${d}}`
}
