/**
 * JSON bodies of `/rest/sql`, byte for byte as taosAdapter writes them: keys in the order
 * code, column_meta, data, rows, no whitespace. This file holds the small one of exec results;
 * errors are written by src/http/error-table.ts, query results streamed by query-body.ts.
 */

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8'

const EXEC_META = '[["affected_rows","INT",4]]'

export function execBody(affectedRows: number): string {
  return `{"code":0,"column_meta":${EXEC_META},"data":[[${affectedRows}]],"rows":1}`
}
